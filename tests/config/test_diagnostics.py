"""How problem locations print and how suggestions are found."""

from __future__ import annotations

from planner.config.diagnostics import Problem, format_loc, has_path, under
from planner.errors import did_you_mean


def test_locations_print_as_dotted_paths_with_indexes_and_quotes() -> None:
    """Keys join with dots, list indexes use brackets, odd keys are quoted."""
    assert format_loc(("deployments", "api", "sidecars", 0, "name")) == (
        "deployments.api.sidecars[0].name"
    )
    assert format_loc(("deployments", "my.app", "source")) == 'deployments."my.app".source'


def test_problem_renders_with_file_label() -> None:
    """A problem prints as `<file>: <path>: <message>` (no path: just the file)."""
    assert Problem(("a", "b"), "bad").render("planner.toml") == "planner.toml: a.b: bad"
    assert Problem((), "bad").render("planner.toml") == "planner.toml: bad"


def test_did_you_mean_only_for_close_words() -> None:
    """A close option is suggested; a far one is not."""
    assert did_you_mean("memroy_mb", ["memory_mb", "cpu"]) == " (did you mean 'memory_mb'?)"
    assert did_you_mean("zzz", ["memory_mb", "cpu"]) == ""


def test_has_path_and_under() -> None:
    """has_path walks tables and lists; under matches a location or its descendants."""
    data = {"a": {"b": [{"c": 1}]}}
    assert has_path(data, ("a", "b", 0, "c"))
    assert not has_path(data, ("a", "b", 1))
    assert not has_path(data, ("a", "x"))
    assert under(("a", "b", "c"), [("a", "b")])
    assert not under(("a",), [("a", "b")])
