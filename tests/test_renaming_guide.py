"""The sample outputs of docs/guides/renaming.md are what the commands print: the guide's
story is replayed against the embedded control plane, and each `$ planner ...` block of
the guide, ids aside, is a run of consecutive lines of that command's output."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.cli.main import main
from tests.cli.conftest import FAST_TIMINGS

ROOT = Path(__file__).parents[1]
GUIDE = ROOT / "docs" / "guides" / "renaming.md"
SAMPLE = re.compile(r"^```\n\$ (planner [^\n]*)\n(.*?)^```", re.S | re.M)
# a full id as printed, and the guide's shortening of one (`6f1c...`)
IDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{4}\.\.\.")

SALES = """
[deployments.sales]
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/sales:1"
"""
SALES_AGENT = SALES.replace("[deployments.sales]", '[deployments.sales-agent]\nname = "sales"')
PER_ENV = """
[deployments.worker]
name = "worker-${env}"
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/worker:1"

[environments.dev]
[environments.prod]
"""
BLUE = """
[deployments.worker]
name = "worker-blue"
source = "internal_docker"
source_revision_config.image_uri = "registry.example.com/acme/worker:1"

[deployments.worker.lifecycle]
create_before_destroy = true
"""
GREEN = BLUE.replace("worker-blue", "worker-green")
FAILING_GREEN = GREEN.replace("worker:1", "worker:fail-deploy")

Run = Callable[..., str]  # `planner ARGV...` in the current directory: its output


def guide_samples() -> list[tuple[str, list[str]]]:
    """Each `$ planner ...` block of the guide: the command and the lines shown."""
    text = GUIDE.read_text(encoding="utf-8")
    return [(command, lines(body)) for command, body in SAMPLE.findall(text)]


def lines(text: str) -> list[str]:
    """TEXT's lines with every id (or shortened id) as `<id>`, trailing blanks dropped."""
    return [IDS.sub("<id>", line).rstrip() for line in text.rstrip("\n").split("\n")]


def is_run_of(sample: list[str], output: list[str]) -> bool:
    """Whether SAMPLE is a run of consecutive lines of OUTPUT."""
    return any(output[i : i + len(sample)] == sample for i in range(len(output)))


def part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, config: str) -> None:
    """A fresh directory NAME (its own state and embedded control plane) as the working
    directory, with CONFIG as planner.toml."""
    directory = tmp_path / name
    directory.mkdir()
    (directory / "planner.toml").write_text(config, encoding="utf-8")
    monkeypatch.chdir(directory)


def replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Run) -> list[tuple[str, str]]:
    """The guide's story: each sampled command with its output, in the guide's order."""
    story: list[tuple[str, str]] = []

    def shown(*argv: str) -> None:
        story.append((" ".join(["planner", *argv]), run(*argv)))

    part(tmp_path, monkeypatch, "moves", SALES)
    run("apply", "--auto-approve")
    Path("planner.toml").write_text(SALES_AGENT, encoding="utf-8")
    shown("plan")
    shown("state", "mv", "sales", "sales-agent")
    part(tmp_path, monkeypatch, "taken", PER_ENV)
    for env in ("prod", "dev"):
        run("apply", "--env", env, "--auto-approve")
    Path("planner.toml").write_text(PER_ENV.replace("${env}", "prod"), encoding="utf-8")
    shown("plan", "--env", "dev", "--replace", "worker")
    part(tmp_path, monkeypatch, "blue-green", BLUE)
    run("apply", "--auto-approve")
    Path("planner.toml").write_text(GREEN, encoding="utf-8")
    shown("plan")
    story.append(
        ("planner apply --replace worker", run("apply", "--replace", "worker", "--auto-approve"))
    )
    part(tmp_path, monkeypatch, "failed", BLUE)
    run("apply", "--auto-approve")
    Path("planner.toml").write_text(FAILING_GREEN, encoding="utf-8")
    run("apply", "--replace", "worker", "--auto-approve")
    shown("plan")
    Path("planner.toml").write_text(BLUE, encoding="utf-8")
    run("state", "rm", "worker")
    shown("plan")
    return story


def test_every_sample_of_the_guide_is_what_its_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Replayed in order, each command the guide shows prints the guide's lines."""
    for variable in ("PLANNER_BASE_URL", "PLANNER_API_KEY", "PLANNER_TENANT_ID", "PLANNER_ENV"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv("PLANNER_STATE_DIR", raising=False)
    for variable, value in FAST_TIMINGS.items():
        monkeypatch.setenv(variable, value)

    def run(*argv: str) -> str:
        capsys.readouterr()
        main(list(argv))
        return capsys.readouterr().out

    story = replay(tmp_path, monkeypatch, run)
    samples = guide_samples()
    assert [command for command, _ in samples] == [command for command, _ in story]
    for (command, sample), (_, output) in zip(samples, story, strict=True):
        assert is_run_of(sample, lines(output)), f"`{command}` printed:\n{output}"
