"""Secrets in the config: `NAME = { env = "VAR" }` (read from the environment) or a literal.

Values never appear in problems or warnings; only names of secrets and variables do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import SecretStr

from planner.api.rules import is_env_var_name
from planner.config.diagnostics import Loc, Problem
from planner.config.variables import as_text, referenced_variables

_FORM = 'must be a string or { env = "VARIABLE" }'
MISSING_PREFIX = "environment variable "
# a variable to set: one that is not set, or whose bytes are not UTF-8 text
_MISSING = re.compile(re.escape(MISSING_PREFIX) + r"(\S+) is not (?:set|valid UTF-8) ")


@dataclass
class ResolvedSecrets:
    """Secret values by name, the variable each env-sourced one came from, and findings."""

    values: dict[str, SecretStr] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    literal_names: list[str] = field(default_factory=list)


def resolve_secrets(
    raw: Any, *, deployment: str, loc: Loc, environ: Mapping[str, str] | None
) -> ResolvedSecrets:
    """Resolve the raw `secrets` table of one deployment (unknown keys are reported elsewhere).

    With `environ` None, only names and forms are checked (for `[defaults]`, whose
    variables are looked up per deployment).
    """
    resolved = ResolvedSecrets()
    if not isinstance(raw, Mapping):
        resolved.problems.append(Problem(loc, "must be a table of NAME = value"))
        return resolved
    for name, value in raw.items():
        here = (*loc, name)
        if not is_env_var_name(name):
            resolved.problems.append(Problem(here, _bad_name_message()))
            continue
        _resolve_one(resolved, name, value, here, deployment, environ)
    return resolved


def missing_variables_hint(problems: Iterable[Problem], other_hint: str) -> str:
    """The hint of a config error: every variable a secret reads that is not set (or not
    UTF-8), once each (so one error says all there is to set), then OTHER_HINT for other
    problems."""
    problems = list(problems)
    found = [_MISSING.match(problem.message) for problem in problems]
    missing = sorted({match.group(1) for match in found if match})
    if not missing:
        return other_hint
    hint = "set these environment variables: " + " ".join(missing)
    return hint if all(found) else f"{hint}; {other_hint}"


def _bad_name_message() -> str:
    return (
        "secret name must be a valid environment variable name "
        "(letters, digits and '_', not starting with a digit)"
    )


def _resolve_one(
    resolved: ResolvedSecrets,
    name: str,
    value: Any,
    loc: Loc,
    deployment: str,
    environ: Mapping[str, str] | None,
) -> None:
    if isinstance(value, str):
        resolved.values[name] = SecretStr(value)
        resolved.literal_names.append(name)
    elif isinstance(value, Mapping) and isinstance(value.get("env"), str) and value["env"]:
        variable = value["env"]
        if environ is None:
            return
        if variable not in environ:
            message = f"{MISSING_PREFIX}{variable} is not set (secret of deployment {deployment})"
            resolved.problems.append(Problem(loc, message))
            return
        text = environ[variable]
        if not _is_utf8(text):  # os.environ keeps undecodable bytes as surrogate escapes
            message = (
                f"{MISSING_PREFIX}{variable} is not valid UTF-8 (secret of deployment "
                f"{deployment}); its value is not shown"
            )
            resolved.problems.append(Problem(loc, message))
            return
        resolved.values[name] = SecretStr(text)
        resolved.env[name] = variable
    elif isinstance(value, Mapping) and value and "env" not in value:
        return  # only unknown keys: the key walk reports them with a suggestion
    else:
        resolved.problems.append(Problem(loc, _FORM))


def _is_utf8(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class NotingMissing(Mapping[str, str]):
    """An environ in which every variable a secret names is set (`planner validate` never
    needs secret values): a missing one reads as a placeholder and is remembered.

    `get` sees only what is really set, so `PLANNER_VAR_NAME` lookups are unaffected.
    """

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ
        self.missing: list[str] = []

    def __getitem__(self, key: str) -> str:
        if key in self._environ:
            return self._environ[key]
        if key not in self.missing:
            self.missing.append(key)
        return ""

    def __contains__(self, key: object) -> bool:
        return True

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        return self._environ.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._environ)

    def __len__(self) -> int:
        return len(self._environ)


def written_secret_texts(raw: Mapping[str, Any]) -> set[str]:
    """Every secret value a config file writes, as text: each literal of a `secrets` table
    (in `[defaults]`, deployments, templates and environments), and every value in the
    file of a variable such a literal references. What shows a piece of the file (a diff)
    masks these; `{ env = "VAR" }` values are not in the file."""
    found: set[str] = set()
    names: set[str] = set()
    for table in _secret_tables(raw):
        for value in table.values():
            if isinstance(value, str):
                found.add(value)
                names.update(referenced_variables(value))
    for name in names:
        found.update(as_text(value) for value in _variable_values(raw, name))
    return {text for text in found if text}


def _secret_tables(raw: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The `secrets` tables of RAW's deployment-shaped tables."""
    shaped: list[Any] = [raw.get("defaults")]
    for section in ("deployments", "templates"):
        tables = raw.get(section)
        shaped += list(tables.values()) if isinstance(tables, Mapping) else []
    environments = raw.get("environments")
    for environment in environments.values() if isinstance(environments, Mapping) else ():
        if isinstance(environment, Mapping):
            shaped.append(environment.get("defaults"))
            tables = environment.get("deployments")
            shaped += list(tables.values()) if isinstance(tables, Mapping) else []
    for table in shaped:
        secrets = table.get("secrets") if isinstance(table, Mapping) else None
        if isinstance(secrets, Mapping):
            yield secrets


def _variable_values(raw: Mapping[str, Any], name: str) -> Iterator[Any]:
    """Every value the file gives variable NAME: its default and each environment's."""
    declared = raw.get("variables")
    spec = declared.get(name) if isinstance(declared, Mapping) else None
    if isinstance(spec, Mapping) and "default" in spec:
        yield spec["default"]
    environments = raw.get("environments")
    for environment in environments.values() if isinstance(environments, Mapping) else ():
        values = environment.get("variables") if isinstance(environment, Mapping) else None
        if isinstance(values, Mapping) and name in values:
            yield values[name]
