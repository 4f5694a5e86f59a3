"""`[variables]` values by precedence and `${...}` interpolation."""

from __future__ import annotations

from typing import Any

from planner.config.diagnostics import Problem
from planner.config.variables import (
    Scope,
    Unset,
    declared_variables,
    interpolate,
    variable_values,
)


def _values(
    declared: dict[str, Any],
    env_values: Any = None,
    overrides: dict[str, str] | None = None,
    environ: dict[str, str] | None = None,
) -> tuple[dict[str, Any], list[Problem]]:
    problems: list[Problem] = []
    values = variable_values(
        declared,
        env_values=env_values,
        env_loc=("environments", "dev", "variables"),
        overrides=overrides or {},
        environ=environ or {},
        problems=problems,
    )
    return values, problems


def _interpolated(value: Any, values: dict[str, Any], env: str | None = "dev") -> Any:
    problems: list[Problem] = []
    result = interpolate(value, Scope(values=values, env=env), ("x",), problems)
    assert problems == []
    return result


def test_precedence_override_then_environ_then_environment_then_default() -> None:
    """--var wins over PLANNER_VAR_NAME, which wins over the environment, then the default."""
    declared = {"tag": {"default": "1"}}
    env = {"tag": "2"}
    environ = {"PLANNER_VAR_tag": "3"}
    assert _values(declared)[0] == {"tag": "1"}
    assert _values(declared, env)[0] == {"tag": "2"}
    assert _values(declared, env, environ=environ)[0] == {"tag": "3"}
    assert _values(declared, env, {"tag": "4"}, environ)[0] == {"tag": "4"}


def test_text_values_take_the_type_of_the_default() -> None:
    """A number or boolean default makes an override parse as one; a mismatch is a problem."""
    declared = {"n": {"default": 2}, "on": {"default": False}, "f": {"default": 0.5}}
    values, problems = _values(declared, overrides={"n": "3", "on": "true", "f": "1"})
    assert values == {"n": 3, "on": True, "f": 1} and problems == []
    values, problems = _values(declared, overrides={"n": "three"})
    assert values["n"] == 2 and "'three' is not an int like the default" in problems[0].message


def test_unknown_variables_in_environment_or_overrides_suggest_a_name() -> None:
    """A value for an undeclared variable is a problem with a did-you-mean."""
    _, problems = _values({"image_tag": {}}, {"image_tga": "1"}, {"imagetag": "2"})
    assert [problem.message for problem in problems] == [
        "unknown variable 'image_tga' (did you mean 'image_tag'?)",
        "unknown variable 'imagetag' (did you mean 'image_tag'?)",
    ]
    assert problems[0].loc == ("environments", "dev", "variables", "image_tga")


def test_a_variable_without_default_is_unset() -> None:
    """No value anywhere leaves the variable unset, an error only where it is used."""
    values, problems = _values({"tag": {"description": "x"}})
    assert values == {"tag": Unset("tag")} and problems == []


def test_declarations_must_be_tables_with_known_keys() -> None:
    """A malformed declaration or unknown key in it is a problem at its place."""
    problems: list[Problem] = []
    declared = declared_variables({"a": 1, "b": {"defualt": 1}, "c d": {}}, problems)
    assert list(declared) == ["b"]
    assert [problem.loc for problem in problems] == [
        ("variables", "a"),
        ("variables", "b", "defualt"),
        ("variables", "c d"),
    ]


def test_whole_reference_keeps_the_type_and_embedded_becomes_text() -> None:
    """`${var.n}` alone is the number; inside text it is written out."""
    values = {"n": 3, "f": 2.0, "on": True}
    assert _interpolated("${var.n}", values) == 3
    assert _interpolated("n=${var.n} f=${var.f} on=${var.on}", values) == "n=3 f=2 on=true"


def test_env_and_escape() -> None:
    """`${env}` is the environment's name and `$${` a literal `${`."""
    assert _interpolated({"a": ["x-${env}", "$${var.n}"]}, {}) == {"a": ["x-dev", "${var.n}"]}


def test_reference_problems_name_the_place() -> None:
    """Unknown, unset and malformed references are problems at the string's location."""
    problems: list[Problem] = []
    scope = Scope(values={"image_tag": Unset("image_tag")}, env=None)
    for text in ("${var.image_tga}", "${var.image_tag}", "${TAG}", "${env}"):
        interpolate({"k": text}, scope, ("deployments", "a"), problems)
    assert [problem.loc for problem in problems] == [("deployments", "a", "k")] * 4
    messages = [problem.message for problem in problems]
    assert "did you mean 'image_tag'" in messages[0]
    assert "has no value" in messages[1]
    assert "unknown reference '${TAG}'" in messages[2]
    assert "no environment is selected" in messages[3]


def test_strings_without_dollar_and_other_values_are_unchanged() -> None:
    """Plain values come back as they are."""
    value = {"a": 1, "b": [True, 2.5, "text"], "c": {"d": None}}
    assert _interpolated(value, {}) == value


def test_text_for_a_list_or_table_default_is_read_as_json_of_that_kind() -> None:
    """`--var` for a list or table variable is JSON of that kind; a boolean is no int."""
    declared = {"flags": {"default": ["a"]}, "spec": {"default": {"cpu": 1}}, "n": {"default": 1}}
    overrides = {"flags": '["b"]', "spec": '{"cpu": 2}'}
    values, problems = _values(declared, overrides=overrides)
    assert values == {"flags": ["b"], "spec": {"cpu": 2}, "n": 1} and problems == []
    values, problems = _values(declared, overrides={"flags": "b", "spec": "[]", "n": "true"})
    assert values == {"flags": ["a"], "spec": {"cpu": 1}, "n": 1}
    assert [problem.message for problem in problems] == [
        "'b' is not a list like the default",
        "'[]' is not a table like the default",
        "'true' is not an int like the default",
    ]
