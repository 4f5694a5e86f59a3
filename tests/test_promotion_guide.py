"""docs/guides/promotion.md is what the commands do: the guide's config is the one run, its
story is replayed against the embedded control plane, and each `$ planner ...` block, ids
aside, is a run of consecutive lines of that command's output (stdout, then stderr)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planner.cli.main import main
from planner.config.promoted_fields import PROMOTED_KEYS
from planner.config.promotion import REFUSED_HINT
from planner.errors import PromotionError
from tests.cli.conftest import FAST_TIMINGS
from tests.test_renaming_guide import is_run_of, lines

ROOT = Path(__file__).parents[1]
GUIDE = ROOT / "docs" / "guides" / "promotion.md"
SAMPLE = re.compile(r"^```\n\$ (planner [^\n]*)\n(.*?)^```", re.S | re.M)
CONFIG = re.compile(r"^```toml\n(.*?)^```", re.S | re.M)


def guide_text() -> str:
    return GUIDE.read_text(encoding="utf-8")


def test_every_sample_of_the_guide_is_what_its_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the guide's config, prod applied, each command the guide shows prints the
    guide's lines, in the guide's order, and the file ends as the guide says."""
    for variable in ("PLANNER_BASE_URL", "PLANNER_API_KEY", "PLANNER_TENANT_ID", "PLANNER_ENV"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.delenv("PLANNER_STATE_DIR", raising=False)
    monkeypatch.setenv("API_TOKEN", "token-of-the-guide")
    for variable, value in FAST_TIMINGS.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.chdir(tmp_path)
    (config,) = CONFIG.findall(guide_text())
    Path("planner.toml").write_text(config, encoding="utf-8")

    def run(command: str) -> str:
        capsys.readouterr()
        main(command.split()[1:])
        captured = capsys.readouterr()
        return captured.out + captured.err

    run("planner apply --env prod --auto-approve")
    samples = [(command, lines(body)) for command, body in SAMPLE.findall(guide_text())]
    assert [command for command, _ in samples] == [
        "planner promote --from staging --to prod",
        "planner promote --from staging --to prod --only hello",
        "planner promote --from staging --to prod --write",
        "planner promote --from staging --to prod",
    ]
    for command, sample in samples:
        output = run(command)
        assert is_run_of(sample, lines(output)), f"`{command}` printed:\n{output}"
    promoted = config.replace('image_tag = "1.2.0" }', 'image_tag = "1.4.0" }')
    assert Path("planner.toml").read_text(encoding="utf-8") == promoted != config


def test_the_guide_lists_the_promoted_fields() -> None:
    """Every field promotion copies is named in "What is promoted"."""
    section = guide_text().split("## What is promoted", 1)[1].split("\n## ", 1)[0]
    assert all(f"`{key}`" in section for key in PROMOTED_KEYS)


def test_the_hint_of_a_refusal_points_at_the_guide_s_section() -> None:
    """A refused promotion's hint names this page and an anchor one of its headings makes;
    the error code scripts branch on is the one the guide documents."""
    page, anchor = re.findall(r"\((docs/[\w/.-]+)#([\w-]+)\)", REFUSED_HINT)[0]
    headings = re.findall(r"^## (.+)$", guide_text(), re.M)
    assert ROOT / page == GUIDE
    assert anchor in [re.sub(r"[^a-z0-9]+", "-", h.lower()).strip("-") for h in headings]
    assert f'"code": "{PromotionError.code}"' in guide_text()
