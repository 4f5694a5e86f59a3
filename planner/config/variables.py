"""`[variables]` and `${...}` interpolation: pure, from raw data and the inputs given.

A variable's value, highest first: an explicit override (`--var NAME=VALUE` or
`--var-file FILE`, the later one winning: `planner.config.var_files`), the environ's
`PLANNER_VAR_NAME`, the environment's `[environments.E.variables]`, the
variable's `default`. Values given as text (overrides, environ) take the type of the
default when it has one (`--var replicas=3` is the integer 3 when the default is 2, a
list or table is read as JSON); a variable without a default takes the text as it is. A
`--var-file`'s list or table goes only to a variable whose default is one.

In a string, `${var.NAME}` is replaced by the value, `${env}` by the environment's name and
`$${` is a literal `${`. A string that is exactly one `${var.NAME}` is the value itself,
with its type. Variable values are never interpolated themselves, so nothing recurses.
What interpolation produces is counted against the bounds of `planner.config.bounds`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from planner.config.bounds import (
    MAX_VALUE_BYTES,
    VALUE_TOO_LARGE,
    Budget,
    plain_size,
    size_of,
    text_bytes,
)
from planner.config.diagnostics import Loc, Problem, with_article
from planner.config.var_files import shape_given, var_file_of
from planner.errors import did_you_mean

ENVIRON_PREFIX = "PLANNER_VAR_"
VARIABLE_KEYS = ("default", "description")
_REFERENCE = re.compile(r"\$(\$\{)|\$\{([^}]*)\}")
_WHOLE_VARIABLE = re.compile(r"^\$\{var\.([^}]*)\}$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_KINDS = {str: "string", bool: "bool", int: "int", float: "float", list: "list", dict: "table"}


@dataclass(frozen=True)
class Unset:
    """A variable with no value anywhere: an error only where it is used."""

    name: str


@dataclass
class Scope:
    """What `${...}` can name: the variables' values and the environment's name; the
    budget what interpolating with it has produced (the texts and sizes of references
    are computed once)."""

    values: dict[str, Any] = field(default_factory=dict)
    env: str | None = None
    budget: Budget = field(default_factory=Budget)
    texts: dict[str, str] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)

    def apart(self) -> Scope:
        """The same names with a budget of its own (a template, counted per user)."""
        return Scope(self.values, self.env, Budget(), self.texts, self.sizes)


def declared_variables(raw: Any, problems: list[Problem]) -> dict[str, Mapping[str, Any]]:
    """The `[variables]` table by name; malformed declarations become problems."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        problems.append(Problem(("variables",), "must be a table of variables by name"))
        return {}
    declared: dict[str, Mapping[str, Any]] = {}
    for name, spec in raw.items():
        loc: Loc = ("variables", name)
        if not _NAME.match(name):
            problems.append(Problem(loc, "a variable name is letters, digits, '_' and '-'"))
        elif not isinstance(spec, Mapping):
            problems.append(Problem(loc, "must be a table (default, description)"))
        else:
            problems.extend(_unknown_keys(spec, VARIABLE_KEYS, loc))
            declared[name] = spec
    return declared


def given_values(
    raw_variables: Any, overrides: Mapping[str, str], environ: Mapping[str, str]
) -> dict[str, str]:
    """The declared variables given from outside the file (`--var`, `PLANNER_VAR_NAME`),
    as given: what a saved plan must carry to be applied with the same values."""
    names = raw_variables if isinstance(raw_variables, Mapping) else {}
    given: dict[str, str] = {}
    for name in names:
        text = overrides.get(name, environ.get(ENVIRON_PREFIX + str(name)))
        if text is not None:
            given[str(name)] = text
    return given


def referenced_variables(value: Any) -> list[str]:
    """The names of the `${var.NAME}` references in VALUE (a string; `$${` is literal)."""
    if not isinstance(value, str):
        return []
    found = (match.group(2) for match in _REFERENCE.finditer(value) if match.group(2))
    return [ref.removeprefix("var.") for ref in found if ref.startswith("var.")]


def value_source(
    name: str,
    raw: Mapping[str, Any],
    env: str | None,
    overrides: Mapping[str, str],
    environ: Mapping[str, str],
) -> str:
    """Where variable NAME's value comes from, named as a person would look for it
    (highest source first, as `_value_of` picks it)."""
    if name in overrides:
        source = var_file_of(overrides, name)
        return f"--var-file {source}" if source else f"--var {name}"
    if environ.get(ENVIRON_PREFIX + name) is not None:  # `in`: true of NotingMissing
        return f"the environment variable {ENVIRON_PREFIX}{name}"
    environments = raw.get("environments")
    table = environments.get(env) if env and isinstance(environments, Mapping) else None
    values = table.get("variables") if isinstance(table, Mapping) else None
    if isinstance(values, Mapping) and name in values:
        return f"environments.{env}.variables.{name} in the config file"
    return f"the default of variables.{name} in the config file"


def variable_values(
    declared: Mapping[str, Mapping[str, Any]],
    *,
    env_values: Any,
    env_loc: Loc,
    overrides: Mapping[str, str],
    environ: Mapping[str, str],
    problems: list[Problem],
) -> dict[str, Any]:
    """Each declared variable's value (or `Unset`), highest source first."""
    if env_values is None:
        env_values = {}
    if not isinstance(env_values, Mapping):
        problems.append(Problem(env_loc, "must be a table of variable values by name"))
        env_values = {}
    for name in [*env_values, *overrides]:
        if name not in declared:
            where = env_loc if name in env_values else None
            problems.append(_unknown(name, declared, where, overrides))
    values: dict[str, Any] = {}
    for name, spec in declared.items():
        values[name] = _value_of(name, spec, env_values, overrides, environ, problems)
    return values


def _unknown(
    name: str, declared: Mapping[str, object], env_loc: Loc | None, given: Mapping[str, str]
) -> Problem:
    """An unknown variable set in the environment's table (ENV_LOC), a `--var-file`, or
    by `--var`, at that place."""
    message = f"unknown variable '{name}'{did_you_mean(name, declared)}"
    if env_loc is not None:
        return Problem((*env_loc, name), message)
    source = var_file_of(given, name)
    if source is not None:
        return Problem((), message, file=source)
    return Problem(("--var", name), message)


def _value_of(
    name: str,
    spec: Mapping[str, Any],
    env_values: Mapping[str, Any],
    overrides: Mapping[str, str],
    environ: Mapping[str, str],
    problems: list[Problem],
) -> Any:
    default = spec.get("default", Unset(name))
    text = overrides.get(name)
    if text is not None:
        source = var_file_of(overrides, name)
        where = Problem((name,), "", file=source) if source else Problem((f"--var {name}",), "")
        return _typed(text, default, where, problems, shape_given(overrides, name))
    text = environ.get(ENVIRON_PREFIX + name)
    if text is not None:
        return _typed(text, default, Problem((ENVIRON_PREFIX + name,), ""), problems)
    return env_values.get(name, default)


def _typed(
    text: str, default: Any, where: Problem, problems: list[Problem], shape: str | None = None
) -> Any:
    """`text` as the default's type (number, boolean; a list or table read as JSON), else
    the text itself. SHAPE, a file's list or table, fits only a default of that kind. A
    mismatch is a problem at WHERE (the place, its message still empty)."""
    if shape is not None and isinstance(default, Unset):
        message = f"{text} is a {shape}; a variable without a default takes text"
        problems.append(replace(where, message=message))
        return text
    if shape is not None and not isinstance(default, Mapping | list):
        problems.append(replace(where, message=f"{text} is a {shape}, {_wanted(default)}"))
        return default
    if isinstance(default, str | Unset):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    kind = _kind_of(default)
    if isinstance(value, float) and not math.isfinite(value):
        value = None
    if _kind_of(value) == kind or (kind == "float" and _kind_of(value) == "int"):
        return value
    told = f"{text} is a {shape}," if shape else f"'{text}' is"
    problems.append(replace(where, message=f"{told} {_wanted(default)}"))
    return default


def _wanted(default: Any) -> str:
    """What a variable with DEFAULT takes, said after what a value is."""
    return f"not {with_article(_kind_of(default))} like the default"


def _kind_of(value: Any) -> str:
    """The kind of a variable's value as the messages name it ('int', 'table', ...)."""
    kind = dict if isinstance(value, Mapping) else type(value)
    return _KINDS.get(kind, kind.__name__)


def text_around(value: str, name: str, env: str | None) -> tuple[str, str] | None:
    """What VALUE expands to before and after its one `${var.NAME}` (its `${env}` and
    `$${` expanded, ENV the environment's name); None unless that is its only reference
    to a variable."""
    pieces: tuple[list[str], list[str]] = ([], [])
    side, start = 0, 0
    for match in _REFERENCE.finditer(value):
        pieces[side].append(value[start : match.start()])
        start = match.end()
        reference = match.group(2)
        if match.group(1) is not None or reference == "env":
            pieces[side].append("${" if match.group(1) is not None else env or "")
        elif reference != f"var.{name}" or side == 1:
            return None
        else:
            side = 1
    pieces[side].append(value[start:])
    return ("".join(pieces[0]), "".join(pieces[1])) if side == 1 else None


def interpolate(value: Any, scope: Scope, loc: Loc, problems: list[Problem]) -> Any:
    """`value` with every `${...}` in its strings resolved; problems at their location.
    What it produces is spent from `scope.budget` (ExpansionTooLarge past the bound)."""
    if type(value) is str and "$" not in value:  # most values: exact type checks first
        scope.budget.spend(text_bytes(value), loc)
        return value
    if type(value) is dict:
        # Most tables hold no `${`: counted whole, and kept as they are (no copy).
        size = plain_size(value)
        if size is not None and scope.budget.fits(size):
            scope.budget.spend(size, loc)
            return value
    if type(value) is dict or isinstance(value, Mapping):
        scope.budget.spend(sum(text_bytes(str(key)) for key in value), loc)
        return {key: interpolate(item, scope, (*loc, key), problems) for key, item in value.items()}
    if isinstance(value, list):
        return [
            interpolate(item, scope, (*loc, index), problems) for index, item in enumerate(value)
        ]
    if not isinstance(value, str) or "$" not in value:
        scope.budget.spend(size_of(value), loc)
        return value
    whole = _WHOLE_VARIABLE.match(value)
    if whole is not None:
        return _whole(f"var.{whole.group(1)}", scope, loc, problems)
    return _expanded(value, scope, loc, problems)


def _whole(reference: str, scope: Scope, loc: Loc, problems: list[Problem]) -> Any:
    """The value of a string that is one `${var.NAME}`, with its type (not past 1 MiB)."""
    found = _lookup(reference, scope, loc, problems)
    size = scope.sizes.get(reference)
    if size is None:
        size = scope.sizes[reference] = size_of(found)
    if size > MAX_VALUE_BYTES:
        problems.append(Problem(loc, VALUE_TOO_LARGE))
        return ""
    scope.budget.spend(size, loc)
    return found


def _expanded(value: str, scope: Scope, loc: Loc, problems: list[Problem]) -> str:
    """VALUE with its references replaced, never built past 1 MiB."""
    parts: list[str] = []
    size, start = 0, 0
    for match in _REFERENCE.finditer(value):
        literal = value[start : match.start()]
        piece = "${" if match.group(1) is not None else _text(match.group(2), scope, loc, problems)
        parts += (literal, piece)
        size += text_bytes(literal) + text_bytes(piece)
        start = match.end()
        if size > MAX_VALUE_BYTES:
            problems.append(Problem(loc, VALUE_TOO_LARGE))
            return ""
    parts.append(value[start:])
    scope.budget.spend(size + text_bytes(parts[-1]), loc)
    return "".join(parts)


def _text(reference: str, scope: Scope, loc: Loc, problems: list[Problem]) -> str:
    """A reference as text in a string, computed once per reference that resolves."""
    cached = scope.texts.get(reference)
    if cached is not None:
        return cached
    before = len(problems)
    text = as_text(_lookup(reference, scope, loc, problems))
    if len(problems) == before:
        scope.texts[reference] = text
    return text


def _lookup(reference: str, scope: Scope, loc: Loc, problems: list[Problem]) -> Any:
    if reference == "env":
        if scope.env is None:
            problems.append(Problem(loc, "${env} is used but no environment is selected"))
        return scope.env or ""
    kind, _, name = reference.partition(".")
    if kind != "var" or not name:
        message = f"unknown reference '${{{reference}}}' (use ${{var.NAME}}, ${{env}}, or $${{"
        problems.append(Problem(loc, message + " for a literal ${)"))
        return ""
    value = scope.values.get(name)
    if name not in scope.values:
        hint = did_you_mean(name, scope.values)
        problems.append(Problem(loc, f"unknown variable '{name}'{hint}"))
        return ""
    if isinstance(value, Unset):
        message = f"variable '{name}' has no value (set --var {name}=..., "
        problems.append(Problem(loc, message + f"{ENVIRON_PREFIX}{name}, or a default)"))
        return ""
    return value


def as_text(value: Any) -> str:
    """A variable's value as a string interpolation writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Mapping | list):
        return json.dumps(value)
    return str(value)


def _unknown_keys(table: Mapping[str, Any], known: tuple[str, ...], loc: Loc) -> list[Problem]:
    return [
        Problem((*loc, key), f"unknown key '{key}'{did_you_mean(key, known)}")
        for key in table
        if key not in known
    ]
