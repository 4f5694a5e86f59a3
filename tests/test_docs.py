"""The documentation: a short README, a site that builds strictly, a page per command."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from planner.cli.main import build_parser
from planner.config.json_schema import config_schema

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 200
MAIN_JOB = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "
    "planner apply -c examples/quickstart.toml --auto-approve && "
    "planner plan -c examples/quickstart.toml"
)
TESTS_JOB = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[dev]' && scripts/check"
)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
CODE_PATH = re.compile(r"`((?:planner|tests|benchmarks|examples|schemas|docs)/[\w./-]+\.\w+)`")


def load_hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def command_words(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name)
                yield from command_words(sub, (*path, name))


def test_readme_is_a_landing_page_that_starts_with_the_two_commands() -> None:
    """The README is at most 200 lines and its first two code blocks are the two jobs."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= README_MAX_LINES
    blocks = re.findall(r"```sh\n(.*?)\n```", text, flags=re.DOTALL)
    assert blocks[:2] == [MAIN_JOB, TESTS_JOB]
    assert lines.index(MAIN_JOB) < 10
    assert lines.index(TESTS_JOB) < 20
    assert "(SECURITY.md)" in text


def test_relative_links_of_the_root_documents_resolve() -> None:
    """Every relative link in README, CONTRIBUTING and ARCHITECTURE names a real file."""
    missing = []
    for name in ("README.md", "CONTRIBUTING.md", "ARCHITECTURE.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        for target in LINK.findall(text):
            if "://" not in target and not (ROOT / target).exists():
                missing.append(f"{name}: {target}")
    assert missing == []


def test_paths_named_by_the_contributor_documents_exist() -> None:
    """A file moved or deleted cannot leave ARCHITECTURE or CONTRIBUTING pointing at nothing."""
    missing = []
    for name in ("CONTRIBUTING.md", "ARCHITECTURE.md"):
        text = (ROOT / name).read_text(encoding="utf-8")
        missing += [f"{name}: {p}" for p in CODE_PATH.findall(text) if not (ROOT / p).exists()]
    assert missing == []


def test_every_command_and_subcommand_has_a_page_and_a_nav_entry() -> None:
    """The command reference is generated from the parser, so no command lacks a page."""
    hooks = load_hooks()
    pages = hooks.command_pages()
    nav_paths = {path for entry in hooks.command_nav() for path in entry.values()}
    words = list(command_words(build_parser()))
    assert ("state", "list") in words and ("state", "rm") in words
    for command in words:
        path = hooks.command_page_path(command)
        assert path in pages, command
        assert path in nav_paths, command
        assert f"# `planner {' '.join(command)}`" in pages[path]
    assert hooks.COMMANDS_INDEX in pages


def test_every_option_of_a_command_is_on_its_page() -> None:
    """Each option string of `planner plan` appears on its generated page."""
    hooks = load_hooks()
    page = hooks.command_pages()[hooks.command_page_path(("plan",))]
    parser = next(p for w, p, _ in hooks.iter_commands(build_parser()) if w == ("plan",))
    for action in parser._actions:
        for option in action.option_strings:
            assert f"`{option}`" in page


def test_config_reference_has_a_section_per_schema_definition() -> None:
    """Every model of the config's JSON Schema has its section in the generated reference."""
    page = load_hooks().config_reference()
    for name in config_schema()["$defs"]:
        assert f"## `{name}` {{#{name.lower()}}}" in page


def test_angle_brackets_in_help_text_are_escaped_outside_code() -> None:
    """`<config stem>` in a help text prints as written, not swallowed as an HTML tag."""
    hooks = load_hooks()
    page = hooks.command_pages()[hooks.command_page_path(("plan",))]
    table = page.split("## Arguments and options", 1)[1]
    assert "state/&lt;config stem&gt;.state.json" in table
    assert "<config stem>" not in table
    assert hooks.escape_html("a <b> `<c>` & ``<d>``") == "a &lt;b&gt; `<c>` &amp; ``<d>``"


def test_field_behaviour_page_is_the_table() -> None:
    """The generated field-behaviour page has one row per table entry, with its class."""
    from planner.api.fields import FIELD_BEHAVIOUR

    page = load_hooks().generated_pages()["reference/field-behaviour.md"]
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert len(rows) == len(FIELD_BEHAVIOUR)
    for path, change_class in FIELD_BEHAVIOUR.items():
        assert any(
            row.startswith(f"| `{path}`") and f"| {change_class.value} |" in row for row in rows
        )
    assert "| `source_config.resource_spec` and every key below it | new-revision |" in page


def test_the_real_service_guide_gets_the_words_table_of_the_code() -> None:
    """The guide holds the marker the hook fills, and the table the hook puts there has a
    row for every pair of `planner.api.vocabulary` and the integration routes."""
    from planner.api.vocabulary import (
        INTEGRATION_SEGMENT,
        RESOURCE_SPEC_KEYS,
        REVISION_CONFIG_KEYS,
        SOURCE_WORDS,
    )

    hooks = load_hooks()
    guide = (ROOT / "docs" / "guides" / "real-service.md").read_text(encoding="utf-8")
    assert guide.count(hooks.VOCABULARY_MARKER) == 1
    page = hooks.on_page_markdown(guide, None, None, None)
    assert hooks.VOCABULARY_MARKER not in page
    rows = [line for line in page.splitlines() if line.startswith("| ")]
    for seed, service in (*SOURCE_WORDS, *REVISION_CONFIG_KEYS, *RESOURCE_SPEC_KEYS):
        assert any(f"| `{seed}` | `{service}` |" in row for row in rows), seed
    seed_segment, service_segment = INTEGRATION_SEGMENT
    assert any(
        f"/v1/integrations/{seed_segment}/install" in row
        and f"/v1/integrations/{service_segment}/install" in row
        for row in rows
    )


def test_plan_format_page_names_every_top_level_key_and_mode() -> None:
    """docs/reference/plan-format.md has a row for each key of the JSON plan, and its
    `mode` row names every mode the model allows."""
    from typing import get_args

    from planner.plan.model import Plan, PlanMode

    page = (ROOT / "docs" / "reference" / "plan-format.md").read_text(encoding="utf-8")
    rows = {row.split("|")[1].strip() for row in page.splitlines() if row.startswith("| `")}
    keys = {key.strip("`").removesuffix("[]") for row in rows for key in row.split(", ")}
    assert set(Plan.model_fields) <= keys
    mode_row = next(row for row in page.splitlines() if row.startswith("| `mode` |"))
    assert all(f"`{mode}`" in mode_row for mode in get_args(PlanMode))


def test_generated_pages_are_not_checked_in() -> None:
    """Generated pages exist only at build time, so none can be stale in the repository."""
    hooks = load_hooks()
    stale = [path for path in hooks.generated_pages() if (ROOT / "docs" / path).exists()]
    assert stale == []


@pytest.mark.slow
def test_mkdocs_build_is_strict_clean(tmp_path: Path) -> None:
    """`mkdocs build --strict` succeeds offline and writes every command's page."""
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    hooks = load_hooks()
    for command in command_words(build_parser()):
        page = Path(hooks.command_page_path(command)).with_suffix("")
        assert (site / page / "index.html").is_file(), command
    assert (site / "reference" / "config" / "index.html").is_file()
    assert (site / "security" / "index.html").is_file()
