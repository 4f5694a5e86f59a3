"""`[templates]`: deployment-shaped tables a deployment picks with `template = "T"`.

A template is interpolated once, so its problems show once, at the template, naming
the deployments that pick it. A template cannot pick a template, choose environments or
give a remote name: those belong to a deployment's own table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.config.diagnostics import Loc, Problem
from planner.config.variables import Scope, interpolate
from planner.errors import did_you_mean

SELECTION_KEYS = ("template", "environments")


def without_selection(table: Mapping[str, Any]) -> Mapping[str, Any]:
    """TABLE without `template` and `environments` (most tables have neither: not copied)."""
    if "template" not in table and "environments" not in table:
        return table
    return {key: value for key, value in table.items() if key not in SELECTION_KEYS}


def with_users(
    found: list[Problem], tables: Mapping[str, Any], resolved: Mapping[str, Any]
) -> list[Problem]:
    """A template's problems, each naming the deployments that pick the template."""
    named: list[Problem] = []
    for problem in found:
        if len(problem.loc) < 2:
            named.append(problem)
            continue
        users = [
            name
            for name in resolved
            if isinstance(tables[name], Mapping) and tables[name].get("template") == problem.loc[1]
        ]
        suffix = f" (in deployment {', '.join(users)})" if users else ""
        named.append(Problem(problem.loc, problem.message + suffix))
    return named


def resolve_templates(
    raw: Any, scope: Scope, problems: list[Problem], sizes: dict[str, int]
) -> dict[str, Mapping[str, Any]]:
    """Templates by name, interpolated once (a problem shows once, at the template); SIZES
    gets each one's expanded size, which every deployment that picks it spends again."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        problems.append(Problem(("templates",), "must be a table of templates by name"))
        return {}
    templates: dict[str, Mapping[str, Any]] = {}
    for name, table in raw.items():
        loc: Loc = ("templates", name)
        if not isinstance(table, Mapping):
            problems.append(Problem(loc, "must be a table"))
            continue
        for key in SELECTION_KEYS:
            if key in table:
                message = f"a template cannot set '{key}' (only a deployment picks it)"
                problems.append(Problem((*loc, key), message))
        if "name" in table:
            message = "a template cannot set 'name' (only a deployment's own table names it)"
            problems.append(Problem((*loc, "name"), message))
        table = {key: value for key, value in table.items() if key != "name"}
        own = scope.apart()
        templates[name] = interpolate(without_selection(table), own, loc, problems)
        sizes[name] = own.budget.spent
    return templates


def template_of(
    own: Mapping[str, Any],
    templates: Mapping[str, Mapping[str, Any]],
    loc: Loc,
    problems: list[Problem],
) -> Mapping[str, Any]:
    name = own.get("template")
    if name is None:
        return {}
    if not isinstance(name, str):
        problems.append(Problem((*loc, "template"), "must be the name of a [templates] table"))
        return {}
    if name not in templates:
        hint = did_you_mean(name, templates)
        problems.append(Problem((*loc, "template"), f"unknown template '{name}'{hint}"))
        return {}
    return templates[name]
