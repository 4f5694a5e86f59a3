"""docs/guides/day-2.md is what happens: every `$ ...` sample of the guide is replayed, in
the order written, against `planner serve` over loopback (in-process, revisions rolling
out at once), and each sample's lines are exactly what its command prints.

Each `## ` section with samples is a world of its own (a fresh directory, state and
workspace of the one server), set up by `WORLDS` from the story the section tells: the
bad release applies the section's first config; the older sections, whose configs the
guide does not show, get theirs from this file (a failing image, a change made by hand,
a deployment made outside the planner). Within a section a ```toml block is written to
`planner.toml` and a ```text block runs its `$ planner ...` lines, each expected to exit
0 unless a `$ echo $?` line under it shows another code.

Compared, line by line: stdout then stderr, with times (`<time>`), durations (`<s>`) and
the lock holder (`user@host`, shown as the guide's `ops@laptop`) made the guide's; ids
are matched as placeholders that must stand for the same id wherever the section repeats
one (by their first 8 characters, so the apply table's short ids count). Every ```text
block of the guide is a sample: nothing is shown that is not replayed.

`UPDATE_GOLDEN=1 python -m pytest tests/test_day2_guide.py` rewrites the samples with
what the commands print (real ids and times), to be reviewed like any golden file.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.api.models import Deployment
from planner.cli.main import main
from planner.controlplane.settings import EMBEDDED_API_KEY, ServerSettings
from planner.state.locking import LockInfo
from tests.loopback import served

ROOT = Path(__file__).parents[1]
GUIDE = ROOT / "docs" / "guides" / "day-2.md"
SECTION = re.compile(r"^## (.+)$", re.M)
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
IDS = re.compile(r"\b[0-9a-f]{8}(?:-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?\b")
TIMES = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")
SECONDS = re.compile(r"\b\d+\.\ds\b")
GUIDE_HOLDER = "ops@laptop"
EXIT_CODE = "echo $?"
IMAGE = "registry.example.com/acme/{}:{}"
UPDATING = bool(os.environ.get("UPDATE_GOLDEN"))


@dataclass(frozen=True)
class Command:
    """One `$ ...` line of a sample and the lines the guide shows under it."""

    line: str
    shown: list[str]


@dataclass(frozen=True)
class Step:
    """A ```toml block (CONFIG) or a ```text sample (COMMANDS); SPAN: its body in the guide."""

    span: tuple[int, int]
    config: str | None = None
    commands: tuple[Command, ...] = ()


def guide_sections(text: str) -> dict[str, list[Step]]:
    """Each `## ` section's configs and samples, in the order written."""
    starts = [(m.start(), m.group(1)) for m in SECTION.finditer(text)] + [(len(text), "")]
    sections: dict[str, list[Step]] = {}
    for (start, title), (end, _) in itertools.pairwise(starts):
        steps = [step_of(m) for m in BLOCK.finditer(text, start, end)]
        sections[title] = [step for step in steps if step is not None]
    return sections


def step_of(block: re.Match[str]) -> Step | None:
    kind, body = block.group(1), block.group(2)
    span = block.span(2)
    if kind == "toml":
        return Step(span, config=body)
    if kind != "text":
        return None  # shell lines to copy (`sh`), not output
    assert body.startswith("$ "), f"a ```text block that is not a sample:\n{body}"
    commands: list[Command] = []
    for line in body.rstrip("\n").split("\n"):
        if line.startswith("$ "):
            commands.append(Command(line[2:], []))
        else:
            commands[-1].shown.append(line)
    return Step(span, commands=tuple(commands))


@dataclass
class Day2World:
    """One section's world: its directory, its workspace of the server (API: a client
    of it acting outside the planner), and a way to run `planner`."""

    root: Path
    api: httpx2.Client
    capsys: pytest.CaptureFixture[str]
    lock_who: str = field(default_factory=lambda: LockInfo.for_this_process("guide").who)

    def write(self, config: str) -> None:
        (self.root / "planner.toml").write_text(config, encoding="utf-8")

    def planner(self, *argv: str) -> tuple[int, str]:
        """`planner ARGV` in the world's directory: its exit code and what it printed."""
        self.capsys.readouterr()
        code = main(list(argv))
        captured = self.capsys.readouterr()
        return code, (captured.out + captured.err).replace(self.lock_who, GUIDE_HOLDER)

    def applied(self, config: str) -> None:
        """CONFIG written and applied. Not waited for: the server rolls a revision out (or
        fails it) at once, and apply's poller would first look after 0.2 s (a failure
        after a second)."""
        self.write(config)
        code, printed = self.planner("apply", "--auto-approve", "--no-wait")
        assert code == 0, printed

    def deployment(self, name: str) -> Deployment:
        """The live deployment NAME of the world's workspace."""
        listed = self.api.get("/v2/deployments").json()["resources"]
        (found,) = [d for d in listed if d["name"] == name]
        return Deployment.model_validate(found)

    def outside(self, method: str, path: str, body: dict[str, Any]) -> None:
        """A request made outside the planner (a person with another client)."""
        response = self.api.request(method, path, json=body)
        assert response.is_success, response.text


def agent(name: str, tag: str) -> str:
    return (
        f'[deployments.{name}]\nsource = "internal_docker"\n'
        f'source_revision_config.image_uri = "{IMAGE.format(name, tag)}"\n'
    )


def docker(name: str, tag: str) -> dict[str, Any]:
    """The create body of an internal_docker deployment NAME running TAG."""
    return {
        "name": name,
        "source": "internal_docker",
        "source_config": {},
        "source_revision_config": {"image_uri": IMAGE.format(name, tag)},
        "secrets": [],
    }


def setup_bad_release(world: Day2World, steps: list[Step]) -> None:
    """The section's first config runs (applied the day before the story)."""
    first = next(step.config for step in steps if step.config is not None)
    world.applied(first)


def setup_failed_rollout(world: Day2World, steps: list[Step]) -> None:
    """support-agent's first revision failed to deploy (its image is marked to fail)."""
    world.applied(agent("support-agent", "1.4.0-fail-deploy"))


def setup_drifted(world: Day2World, steps: list[Step]) -> None:
    """support-agent applied at 1.4.0, then its image changed to 1.4.1 by hand."""
    world.applied(agent("support-agent", "1.4.0"))
    live = world.deployment("support-agent")
    image = {"image_uri": IMAGE.format("support-agent", "1.4.1")}
    world.outside("PATCH", f"/v2/deployments/{live.id}", {"source_revision_config": image})


def setup_hand_made(world: Day2World, steps: list[Step]) -> None:
    """support-agent applied; faq-bot made in the workspace outside the planner."""
    world.applied(agent("support-agent", "1.4.0"))
    world.outside("POST", "/v2/deployments", docker("faq-bot", "0.3.0"))


def setup_two_agents(world: Day2World, steps: list[Step]) -> None:
    """billing-agent runs; support-agent's first revision failed, fixed by a new image."""
    billing = agent("billing-agent", "2.1.0")
    world.applied(billing + "\n" + agent("support-agent", "1.4.0-fail-deploy"))
    world.applied(billing + "\n" + agent("support-agent", "1.4.1"))


WORLDS: dict[str, Callable[[Day2World, list[Step]], None]] = {
    "A bad release, step by step": setup_bad_release,
    "Failed rollouts": setup_failed_rollout,
    "Drift checks on a schedule": setup_drifted,
    "Adopting a hand-made deployment": setup_hand_made,
    "Status and history": setup_two_agents,
}


def normalised(text_lines: list[str]) -> list[str]:
    """LINES with times, durations and ids as placeholders, trailing blanks dropped."""
    out = []
    for line in text_lines:
        line = SECONDS.sub("<s>", TIMES.sub("<time>", line))
        out.append(IDS.sub("<id>", line).rstrip())
    return out


def printed_lines(printed: str) -> list[str]:
    return printed.rstrip("\n").split("\n") if printed.strip() else []


class SameIds:
    """The ids a section shows, each standing for one id the commands printed."""

    def __init__(self) -> None:
        self.real_of: dict[str, str] = {}
        self.guide_of: dict[str, str] = {}

    def check(self, shown: list[str], printed: list[str], command: str) -> None:
        for guide_line, real_line in zip(shown, printed, strict=True):
            for guide, real in zip(IDS.findall(guide_line), IDS.findall(real_line), strict=True):
                guide, real = guide[:8], real[:8]
                assert self.real_of.setdefault(guide, real) == real, (
                    f"`{command}`: the guide's {guide} stands for two ids"
                )
                assert self.guide_of.setdefault(real, guide) == guide, (
                    f"`{command}`: one id is shown as {self.guide_of[real]} and {guide}"
                )


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, list[str]]]:
    """`planner serve` (revisions roll out at once) with one workspace per section."""
    tenants = [f"00000000-0000-4000-8000-{n:012d}" for n in range(1, len(WORLDS) + 1)]
    settings = ServerSettings(
        db_path=tmp_path / "served.db",
        api_keys={EMBEDDED_API_KEY: tenants},
        build_seconds=0,
        deploy_seconds=0,
        delete_seconds=0,
    )
    with served(settings) as url:
        yield url, tenants


def test_every_sample_of_the_guide_is_what_its_command_prints(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    server: tuple[str, list[str]],
) -> None:
    """Replayed section by section in the guide's order, each `$ planner ...` exits as
    shown and prints the guide's lines, the guide's ids standing for the same ids."""
    url, tenants = server
    for variable in [v for v in os.environ if v.startswith("PLANNER_")] + ["NO_COLOR"]:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in {
        "PLANNER_BASE_URL": url,
        "PLANNER_API_KEY": EMBEDDED_API_KEY,
        "PLANNER_DIALECT": "seed",
    }.items():
        monkeypatch.setenv(variable, value)
    text = GUIDE.read_text(encoding="utf-8")
    sections = {
        title: steps
        for title, steps in guide_sections(text).items()
        if any(step.commands for step in steps)
    }
    assert list(sections) == list(WORLDS)
    rewritten: list[tuple[tuple[int, int], str]] = []
    for (title, steps), tenant in zip(sections.items(), tenants, strict=True):
        root = tmp_path / f"world-{tenant[-2:]}"
        root.mkdir()
        monkeypatch.chdir(root)
        monkeypatch.setenv("PLANNER_TENANT_ID", tenant)
        headers = {"X-Api-Key": EMBEDDED_API_KEY, "X-Tenant-Id": tenant}
        with httpx2.Client(base_url=url, headers=headers) as api:
            world = Day2World(root, api, capsys)
            WORLDS[title](world, steps)
            rewritten += replay_steps(world, steps)
    if UPDATING:
        for (start, end), body in sorted(rewritten, reverse=True):
            text = text[:start] + body + text[end:]
        GUIDE.write_text(text, encoding="utf-8")


def replay_steps(world: Day2World, steps: list[Step]) -> list[tuple[tuple[int, int], str]]:
    """Run STEPS in WORLD, checking each sample; each sample's body as printed."""
    ids = SameIds()
    bodies = []
    for step in steps:
        if step.config is not None:
            world.write(step.config)
            continue
        body, code = "", 0
        for command, following in zip(step.commands, [*step.commands[1:], None], strict=True):
            body += f"$ {command.line}\n"
            if command.line == EXIT_CODE:
                assert UPDATING or command.shown == [str(code)], f"exit code {code}"
                body += f"{code}\n"
                continue
            argv = shlex.split(command.line)
            assert argv[0] == "planner", command.line
            code, printed = world.planner(*argv[1:])
            body += printed
            if UPDATING:
                continue
            expected = following is not None and following.line == EXIT_CODE
            assert expected or code == 0, f"`{command.line}` exited {code}:\n{printed}"
            lines = printed_lines(printed)
            assert normalised(command.shown) == normalised(lines), (
                f"`{command.line}` printed:\n{printed}"
            )
            ids.check(command.shown, lines, command.line)
        bodies.append((step.span, body))
    return bodies
