"""The install name is `deployment-planner`: no document or example installs `planner`,
which on PyPI is an unrelated project."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest

import planner

ROOT = Path(__file__).resolve().parents[1]
# A pip (or pipx/uv) install, or a PIP_SPEC, up to the end of its shell command.
INSTALL = re.compile(r"(?:pip3?|pipx|uv pip|uv tool) install[^\n;&|#]*|PIP_SPEC[:=][^\n#]*")
# The requirement `planner` (with extras, a version or a URL), not a path or another name.
BARE_NAME = re.compile(r"""(?<![\w./@+-])planner(?:\[[\w,]+\])?(?=[\s=<>~!@;,'"`)]|$)""")


def shipped_texts() -> list[Path]:
    """Every text a user copies install commands from: docs, examples, the root guides,
    the CI scripts, and the hints in the code."""
    patterns = ["*.md", "docs/**/*.md", "examples/**/*", "planner/**/*.py", ".ci/*"]
    found = {path for pattern in patterns for path in ROOT.glob(pattern) if path.is_file()}
    return sorted(found)


def installs_of_planner(text: str) -> list[str]:
    """The install commands of `text` that name the bare distribution `planner`."""
    return [m.group(0) for m in INSTALL.finditer(text) if BARE_NAME.search(m.group(0))]


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("pip install planner", True),
        ("`pip install planner`", True),
        ("""hint="install it: pip install 'planner[postgres]'",""", True),
        ("pip install 'planner[postgres]'", True),
        ("pip install --quiet planner==0.1.0", True),
        ("PIP_SPEC: planner # pin it", True),
        ("pip install -e . && planner apply -c x.toml", False),
        ("pip install 'deployment-planner[postgres]'", False),
        ("pip install ./planner", False),
        ("PIP_SPEC: deployment-planner @ git+https://git.example.com/acme/planner@abc", False),
    ],
)
def test_the_grep_tells_the_bare_name_from_the_right_ones(text: str, flagged: bool) -> None:
    """The check flags `planner` as a requirement, never a path, a URL or a command."""
    assert bool(installs_of_planner(text)) is flagged


def test_no_shipped_text_installs_the_pypi_planner() -> None:
    """No doc, example, CI script or hint installs `planner` by name."""
    texts = shipped_texts()
    assert ROOT / "docs" / "guides" / "team.md" in texts
    assert ROOT / "examples" / "ci" / "gitlab" / ".gitlab-ci.yml" in texts
    offending = {
        str(path.relative_to(ROOT)): hits
        for path in texts
        if (hits := installs_of_planner(path.read_text(encoding="utf-8", errors="replace")))
    }
    assert offending == {}


def test_the_distribution_is_deployment_planner() -> None:
    """pyproject names the distribution `deployment-planner` (its extras too), and
    `planner.__version__` is that distribution's version."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == planner.DISTRIBUTION == "deployment-planner"
    assert project["scripts"] == {"planner": "planner.cli.main:entrypoint"}
    assert all(not dep.startswith("planner[") for dep in project["optional-dependencies"]["dev"])
    assert planner.installed_version.__wrapped__() == importlib.metadata.version(
        "deployment-planner"
    )
