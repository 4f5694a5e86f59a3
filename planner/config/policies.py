"""`[policies.NAME]`: the guardrails of a config, checked like every other table.

Only the shape is checked here (keys, types, environments named in `environments`);
compiling the CEL expression is `planner.plan.policies`' (validate and plan do it). The
policies of one environment are those without `environments` and those naming it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from planner.config.deployment import validate_model
from planner.config.diagnostics import Loc, Problem
from planner.config.environments import environment_names
from planner.config.keys import check_keys
from planner.config.models import POLICY_NAME_PATTERN, Policy, PolicySpec
from planner.errors import did_you_mean

SECTION = "policies"
NAME = re.compile(POLICY_NAME_PATTERN)


def load_policies(
    file_data: Mapping[str, Any], env: str | None, problems: list[Problem]
) -> tuple[Policy, ...]:
    """The policies of FILE_DATA that apply in ENV, in file order; problems added."""
    raw = file_data.get(SECTION)
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        problems.append(Problem((SECTION,), "must be a table of policies by name"))
        return ()
    names = environment_names(file_data)
    policies = []
    for name, table in raw.items():
        loc: Loc = (SECTION, name)
        spec = _load_policy(table, loc, names, problems)
        if spec is not None and (spec.environments is None or env in spec.environments):
            severity = str(spec.severity)
            policies.append(Policy(str(name), spec.expression, spec.message, severity))
    return tuple(policies)


def well_formed_policies(file_data: Mapping[str, Any], env: str | None) -> tuple[Policy, ...]:
    """The policies of FILE_DATA that apply in ENV and whose own tables are valid, whatever
    else the config gets wrong: validate compiles them beside the config's problems, so
    one run reports both."""
    return load_policies(file_data, env, [])


def _load_policy(
    table: Any, loc: Loc, names: list[str], problems: list[Problem]
) -> PolicySpec | None:
    if not isinstance(table, Mapping):
        problems.append(Problem(loc, "must be a table"))
        return None
    found = list(check_keys(PolicySpec, table, loc))
    spec, invalid = validate_model(PolicySpec, table)
    found += [Problem((*loc, *problem.loc), problem.message) for problem in invalid]
    chosen = table.get("environments")
    if isinstance(chosen, list) and all(isinstance(item, str) for item in chosen):
        found += _unknown_environments(chosen, (*loc, "environments"), names)
    if not NAME.match(str(loc[-1])):
        found.append(Problem(loc, "a policy name is letters, digits, '-' and '_'"))
    problems.extend(found)
    return spec if not found else None


def _unknown_environments(chosen: list[str], loc: Loc, names: list[str]) -> list[Problem]:
    if not names:
        return [Problem(loc, "the config has no [environments] to choose from")]
    return [
        Problem((*loc, index), f"unknown environment '{item}'{did_you_mean(item, names)}")
        for index, item in enumerate(chosen)
        if item not in names
    ]
