"""Promotion: the revision-level values one environment resolves to, written where another
environment's values come from (`planner promote --from FROM --to TO`).

Pure: the file's raw data in, a `Promotion` out (the edits as values; the file's text is
edited by `planner.config.text_edits`, with tomlkit for TOML). The promoted fields are the
`source_revision_config` fields the field-behaviour table classes as new-revision (what a
revision is built from: the image, the ref, the paths); sizes, secrets and everything else
stay each environment's own.

For each deployment of both environments and each such field FROM sets, TO's value is
traced to the table it comes from, highest first (`[environments.TO.deployments.N]`,
`[deployments.N]`, its template, `[environments.TO.defaults]`, `[defaults]`):

- a literal in TO's own tables (under `[environments.TO]`) is replaced by FROM's value;
- a string with one `${var.NAME}` (the whole string or part of it) gets the variable value
  that makes it FROM's value: `[environments.TO.variables] NAME` is set (or added);
- anything else is refused, naming the deployment, the field and where its value comes
  from: a literal other environments read too, a value built from several variables, a
  FROM value that does not fit TO's string, a variable `PLANNER_VAR_NAME` sets.

Invariants: every edit is under `[environments.TO]`, so no other environment changes; TO
resolved again with the edits differs from before only in the promoted fields, which then
equal FROM's (checked: an edit that would change anything else, a secret included, is
refused); a field TO already resolves to FROM's value makes no edit, so promoting
twice changes nothing the second time.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from planner.api.fields import FIELD_BEHAVIOUR, ChangeClass
from planner.api.vocabulary import seed_source, service_word
from planner.config.diagnostics import Loc, Problem, did_you_mean, format_loc
from planner.config.environments import (
    Inputs,
    Layer,
    deployment_layers,
    environment_names,
    resolve_environment,
)
from planner.config.merge import deep_merge
from planner.config.text_edits import SetValue, with_values
from planner.config.variables import ENVIRON_PREFIX, as_text, referenced_variables, text_around
from planner.errors import PromotionError

REVISION = "source_revision_config"
PROMOTED_KEYS: tuple[str, ...] = tuple(
    path.partition(".")[2]
    for path, change in FIELD_BEHAVIOUR.items()
    if path.startswith(f"{REVISION}.") and change is ChangeClass.NEW_REVISION
)
REFUSED_HINT = (
    "give the environment its own value ([environments.<env>.deployments.<name>]) or a "
    "variable with a value per environment (docs/guides/promotion.md#what-cannot-be-promoted)"
)


class _Absent:
    """No value (a field or variable the file does not set)."""


ABSENT = _Absent()


class SkipReason(StrEnum):
    """Why a deployment of the config is not promoted (its JSON name)."""

    ONLY_IN_FROM = "only-in-from"
    ONLY_IN_TO = "only-in-to"
    IN_NEITHER = "in-neither"
    SOURCE_DIFFERS = "source-differs"


@dataclass(frozen=True)
class Skipped:
    deployment: str
    reason: SkipReason


@dataclass(frozen=True)
class FieldEdit:
    """One promoted field: DEPLOYMENT's FIELD goes from TO_VALUE to FROM_VALUE in TO
    by writing WRITTEN_AFTER at LOCATION (where WRITTEN_BEFORE was, or nothing: ADDED)."""

    deployment: str
    field: str
    from_value: Any
    to_value: Any
    location: Loc
    written_before: Any
    written_after: Any
    added: bool = False


@dataclass(frozen=True)
class Promotion:
    """What promoting FROM to TO edits; FIELDS empty: nothing to promote."""

    from_env: str
    to_env: str
    fields: tuple[FieldEdit, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    compared: tuple[str, ...] = ()

    @property
    def edits(self) -> tuple[SetValue, ...]:
        """The values to set in the file, one a location (fields may share one)."""
        unique = {edit.location: edit.written_after for edit in self.fields}
        return tuple(SetValue(loc, value) for loc, value in unique.items())


@dataclass
class _Promoter:
    """One promotion's inputs, and what it found."""

    raw: Mapping[str, Any]
    from_env: str
    to_env: str
    environ: Mapping[str, str]
    label: str
    resolved: dict[str, dict[str, Any]] = field(default_factory=dict)
    layers: dict[str, dict[str, list[Layer]]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def resolve(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        return resolve_environment(
            raw, Inputs(env=self.to_env, environ=self.environ), label=self.label
        )


def plan_promotion(
    raw: Mapping[str, Any],
    *,
    from_env: str,
    to_env: str,
    only: Sequence[str] = (),
    environ: Mapping[str, str],
    label: str,
) -> Promotion:
    """The edits that make TO's revision-level values FROM's (ONLY: those
    deployments); PromotionError listing every value that cannot be promoted so."""
    check_environments(raw, from_env, to_env, label)
    promoter = _Promoter(raw, from_env, to_env, environ, label)
    for env in (from_env, to_env):
        inputs = Inputs(env=env, environ=environ)
        promoter.resolved[env] = resolve_environment(raw, inputs, label=label)
        promoter.layers[env] = _layers(raw, env)
    compared, skipped = _selected(promoter, only)
    fields = [edit for name in compared for edit in _promoted(promoter, name)]
    promoter.problems += _conflicts(fields)
    if not promoter.problems:
        promoter.problems += _side_effects(promoter, fields)
    if promoter.problems:
        count = len(promoter.problems)
        raise PromotionError(
            f"cannot promote {from_env} to {to_env}: {count} "
            + ("value cannot" if count == 1 else "values cannot")
            + " be written by one edit of the file",
            details=[problem.render(label) for problem in promoter.problems],
            hint=REFUSED_HINT,
        )
    return Promotion(from_env, to_env, tuple(fields), tuple(skipped), tuple(compared))


def check_environments(raw: Mapping[str, Any], from_env: str, to_env: str, label: str) -> None:
    """Refuse a promotion between environments the config does not declare (or one)."""
    names = environment_names(raw)
    if not names:
        raise PromotionError(
            f"{label} has no [environments]: there is nothing to promote between",
            hint="promotion copies values between [environments.<name>] of one config",
        )
    for given in (from_env, to_env):
        if given not in names:
            raise PromotionError(
                f"{label}: no environment '{given}'{did_you_mean(given, names)}",
                hint=f"the environments are: {', '.join(names)}",
            )
    if from_env == to_env:
        raise PromotionError(f"--from and --to are both {from_env}: nothing to promote")


def _layers(raw: Mapping[str, Any], env: str) -> dict[str, list[Layer]]:
    """Each deployment's tables in ENV, highest first, the defaults of ENV included."""
    environment = raw["environments"][env]
    env_defaults = environment.get("defaults") if isinstance(environment, Mapping) else None
    shared: list[Layer] = []
    if isinstance(env_defaults, Mapping):
        shared.append((("environments", env, "defaults"), env_defaults))
    if isinstance(raw.get("defaults"), Mapping):
        shared.append((("defaults",), raw["defaults"]))
    return {name: [*own, *shared] for name, own in deployment_layers(raw, env).items()}


def _selected(promoter: _Promoter, only: Sequence[str]) -> tuple[list[str], list[Skipped]]:
    """The deployments to compare, in file order, and those of one environment only."""
    declared = promoter.raw.get("deployments")
    names = list(declared) if isinstance(declared, Mapping) else []
    unknown = [name for name in only if name not in names]
    if unknown:
        raise PromotionError(
            f"{promoter.label}: no deployment '{unknown[0]}'{did_you_mean(unknown[0], names)}",
            hint="--only takes the name of a [deployments.<name>] table",
        )
    compared: list[str] = []
    skipped: list[Skipped] = []
    for name in [name for name in names if name in only] if only else names:
        reason = _skip_reason(promoter, name)
        if reason is None:
            compared.append(name)
        elif reason is not SkipReason.IN_NEITHER or only:
            skipped.append(Skipped(name, reason))
    if only and skipped:
        raise PromotionError(
            f"cannot promote {', '.join(skip.deployment for skip in skipped)} from "
            f"{promoter.from_env} to {promoter.to_env}",
            details=[f"{skip.deployment}: {_why(promoter, skip)}" for skip in skipped],
            hint="--only names deployments of both environments",
        )
    return compared, skipped


def _skip_reason(promoter: _Promoter, name: str) -> SkipReason | None:
    """Why deployment NAME is not compared (None: it is)."""
    in_from, in_to = (
        promoter.resolved[env].get("deployments", {}).get(name) for env in _envs(promoter)
    )
    if in_from is None or in_to is None:
        if in_from is not None:
            return SkipReason.ONLY_IN_FROM
        return SkipReason.ONLY_IN_TO if in_to is not None else SkipReason.IN_NEITHER
    if seed_source(in_from.get("source")) != seed_source(in_to.get("source")):
        return SkipReason.SOURCE_DIFFERS
    return None


def skip_reason_text(reason: SkipReason, from_env: str, to_env: str) -> str:
    """Why a deployment is not promoted, in words (errors and views say it alike)."""
    return {
        SkipReason.ONLY_IN_FROM: f"not in {to_env}",
        SkipReason.ONLY_IN_TO: f"not in {from_env}",
        SkipReason.IN_NEITHER: f"in neither {from_env} nor {to_env}",
        SkipReason.SOURCE_DIFFERS: f"its source differs between {from_env} and {to_env}",
    }[reason]


def _why(promoter: _Promoter, skip: Skipped) -> str:
    return skip_reason_text(skip.reason, promoter.from_env, promoter.to_env)


def _envs(promoter: _Promoter) -> tuple[str, str]:
    return promoter.from_env, promoter.to_env


def _promoted(promoter: _Promoter, name: str) -> Iterator[FieldEdit]:
    for key in PROMOTED_KEYS:
        found = _promoted_field(promoter, name, key)
        if isinstance(found, Problem):
            promoter.problems.append(found)
        elif found is not None:
            yield found


def _promoted_field(promoter: _Promoter, name: str, key: str) -> FieldEdit | Problem | None:
    spellings = dict.fromkeys((key, service_word(key)))
    values = [_resolved_value(promoter.resolved[env], name, spellings) for env in _envs(promoter)]
    origins = [_origin(promoter.layers[env].get(name, []), spellings) for env in _envs(promoter)]
    for origin in origins:
        overridden = _overridden(promoter, name, origin)
        if overridden is not None:
            return overridden
    from_value, to_value = values
    if from_value is ABSENT or _same(from_value, to_value):
        return None
    if to_value is ABSENT or origins[1] is None:
        unset: Loc = ("deployments", name, REVISION, key)
        message = f"{promoter.from_env} sets it, {promoter.to_env} does not (nothing to replace)"
        return Problem(unset, message)
    loc, written = origins[1]
    field_name = f"{REVISION}.{loc[-1]}"
    variables = referenced_variables(written)
    if not variables:
        return _literal_edit(promoter, name, field_name, (from_value, to_value), loc, written)
    return _variable_edit(promoter, name, field_name, (from_value, to_value), loc, written)


def _resolved_value(resolved: Mapping[str, Any], name: str, spellings: Mapping[str, None]) -> Any:
    """The value of a `source_revision_config` key of deployment NAME in one environment
    (ABSENT: not set), its defaults merged in."""
    for table in (resolved.get("deployments", {}).get(name), resolved.get("defaults")):
        revision = table.get(REVISION) if isinstance(table, Mapping) else None
        for spelling in spellings:
            if isinstance(revision, Mapping) and spelling in revision:
                return revision[spelling]
    return ABSENT


def _origin(layers: list[Layer], spellings: Mapping[str, None]) -> tuple[Loc, Any] | None:
    """Where the highest of LAYERS writes the key, and what it writes (None: none does)."""
    for loc, table in layers:
        revision = table.get(REVISION)
        for spelling in spellings:
            if isinstance(revision, Mapping) and spelling in revision:
                return (*loc, REVISION, spelling), revision[spelling]
    return None


def _same(one: Any, other: Any) -> bool:
    return type(one) is type(other) and one == other


def _overridden(promoter: _Promoter, name: str, origin: tuple[Loc, Any] | None) -> Problem | None:
    """A problem when the value written at ORIGIN reads a variable the environ sets: the
    file is not where its value comes from, in any environment."""
    if origin is None:
        return None
    loc, written = origin
    for variable in referenced_variables(written):
        if ENVIRON_PREFIX + variable in promoter.environ:
            return Problem(
                loc,
                f"{name}'s value reads ${{var.{variable}}}, which the environment variable "
                f"{ENVIRON_PREFIX}{variable} sets in every environment: unset it to promote "
                "the file's values",
            )
    return None


def _literal_edit(
    promoter: _Promoter, name: str, field_name: str, values: tuple[Any, Any], loc: Loc, written: Any
) -> FieldEdit | Problem:
    if loc[:2] != ("environments", promoter.to_env):
        readers = [env for env in _readers(promoter.raw, loc) if env != promoter.to_env]
        shared = f"which {', '.join(readers)} also read" if readers else "shared by other tables"
        return Problem(
            loc,
            f"{promoter.to_env}'s {field_name} of {name} is this literal, {shared}: "
            f"promotion only writes under [environments.{promoter.to_env}]",
        )
    from_value, to_value = values
    after = from_value.replace("${", "$${") if isinstance(from_value, str) else from_value
    return FieldEdit(name, field_name, from_value, to_value, loc, written, after)


def _readers(raw: Mapping[str, Any], loc: Loc) -> list[str]:
    """The environments that read the table at LOC (`[deployments.N]`, a template,
    `[defaults]`)."""
    names = environment_names(raw)
    tables = raw.get("deployments")
    deployments = tables if isinstance(tables, Mapping) else {}
    if loc[0] == "deployments":
        users = [deployments.get(loc[1])]
    elif loc[0] == "templates":
        users = [
            t
            for t in deployments.values()
            if isinstance(t, Mapping) and t.get("template") == loc[1]
        ]
    else:
        return names
    return [env for env in names if any(_is_in(user, env) for user in users)]


def _is_in(table: Any, env: str) -> bool:
    chosen = table.get("environments") if isinstance(table, Mapping) else None
    return isinstance(table, Mapping) and (not isinstance(chosen, list) or env in chosen)


def _variable_edit(
    promoter: _Promoter, name: str, field_name: str, values: tuple[Any, Any], loc: Loc, written: Any
) -> FieldEdit | Problem:
    variables = referenced_variables(written)
    if len(variables) > 1:
        listed = ", ".join(dict.fromkeys(variables))
        message = f"{name}'s {field_name} is built from several variables ({listed}) in "
        return Problem(loc, message + f"{promoter.to_env}: promotion sets one variable's value")
    variable = variables[0]
    from_value, to_value = values
    value = _variable_value(promoter, written, variable, from_value)
    if value is ABSENT:
        return Problem(
            loc,
            f"{promoter.from_env}'s {field_name} of {name}, {as_text(from_value)!r}, does not "
            f"fit {promoter.to_env}'s {written!r} (only ${{var.{variable}}} can change)",
        )
    where: Loc = ("environments", promoter.to_env, "variables", variable)
    before = _file_variable(promoter.raw, promoter.to_env, variable, defaults=False)
    added = before is ABSENT
    return FieldEdit(
        name, field_name, from_value, to_value, where, None if added else before, value, added
    )


def _variable_value(promoter: _Promoter, written: str, variable: str, from_value: Any) -> Any:
    """The value of VARIABLE that makes WRITTEN resolve to FROM_VALUE in --to (ABSENT:
    none does). A value --from gives the variable is kept with its type."""
    if written == f"${{var.{variable}}}":
        return from_value
    around = text_around(written, variable, promoter.to_env)
    if around is None or not isinstance(from_value, str):
        return ABSENT
    before, after = around
    fits = len(from_value) >= len(before) + len(after)
    if not (fits and from_value.startswith(before) and from_value.endswith(after)):
        return ABSENT
    text = from_value[len(before) : len(from_value) - len(after)]
    source_value = _file_variable(promoter.raw, promoter.from_env, variable, defaults=True)
    return source_value if as_text(source_value) == text else text


def _file_variable(raw: Mapping[str, Any], env: str, variable: str, *, defaults: bool) -> Any:
    """VARIABLE's value in ENV as the file gives it (with DEFAULTS: its default else)."""
    environment = raw["environments"][env]
    values = environment.get("variables") if isinstance(environment, Mapping) else None
    if isinstance(values, Mapping) and variable in values:
        return values[variable]
    declared = raw.get("variables")
    spec = declared.get(variable) if isinstance(declared, Mapping) else None
    if defaults and isinstance(spec, Mapping) and "default" in spec:
        return spec["default"]
    return ABSENT


def _conflicts(fields: Sequence[FieldEdit]) -> list[Problem]:
    """Two fields that need different values at one location."""
    first: dict[Loc, FieldEdit] = {}
    problems = []
    for edit in fields:
        seen = first.setdefault(edit.location, edit)
        if not _same(seen.written_after, edit.written_after):
            problems.append(
                Problem(
                    edit.location,
                    f"{seen.deployment}'s {seen.field} needs {seen.written_after!r} here, "
                    f"{edit.deployment}'s {edit.field} needs {edit.written_after!r}",
                )
            )
    return problems


def _side_effects(promoter: _Promoter, fields: Sequence[FieldEdit]) -> list[Problem]:
    """A problem for each edit that would change values of --to besides the fields
    it promotes (secrets named, never shown), or not make a promoted field --from's
    value."""
    before = _effective(promoter.resolved[promoter.to_env])
    problems = []
    for edit in Promotion(promoter.from_env, promoter.to_env, tuple(fields)).edits:
        own = [f for f in fields if f.location == edit.loc]
        promoted: dict[Loc, FieldEdit] = {
            ("deployments", f.deployment, *f.field.split(".")): f for f in own
        }
        after = _effective(promoter.resolve(with_values(promoter.raw, [edit])))
        changed = list(_differences(before, after))
        others = [loc for loc in changed if loc not in promoted]
        if others:
            problems.append(Problem(edit.loc, _side_effect(promoter.to_env, own, others)))
        for loc, found in promoted.items():
            if not _same(_at(after, loc), found.from_value):
                message = f"setting it would not make {found.deployment}'s {found.field} "
                problems.append(Problem(edit.loc, message + f"{promoter.from_env}'s value"))
    return problems


def _side_effect(to_env: str, own: Sequence[FieldEdit], others: Sequence[Loc]) -> str:
    """What an edit for OWN would also change in TO_ENV: the values OTHERS, listed."""
    names = ", ".join(dict.fromkeys(edit.deployment for edit in own))
    shown = [format_loc(loc) for loc in others[:_LISTED]]
    if len(others) > _LISTED:
        shown.append(f"and {len(others) - _LISTED} more")
    secret = any("secrets" in loc[2:3] for loc in others)
    count = f"{len(others)} value" if len(others) == 1 else f"{len(others)} values"
    return (
        f"setting it for {names} would also change {count} of {to_env} that "
        + ("are" if len(others) > 1 else "is")
        + f" not promoted ({', '.join(shown)})"
        + ("; secrets are never promoted" if secret else "")
        + ": promote the deployments that share it together, or give "
        + f"{names} a value of {'their' if len(own) > 1 else 'its'} own"
    )


_LISTED = 3


def _effective(resolved: Mapping[str, Any]) -> dict[str, Any]:
    """RESOLVED with `[defaults]` merged into each deployment, as the loader merges them."""
    defaults = resolved.get("defaults")
    base = defaults if isinstance(defaults, Mapping) else {}
    deployments = resolved.get("deployments", {})
    view = {key: value for key, value in resolved.items() if key not in ("defaults", "deployments")}
    view["deployments"] = {
        name: deep_merge(base, table) if isinstance(table, Mapping) else table
        for name, table in deployments.items()
    }
    return view


def _differences(before: Any, after: Any, loc: Loc = ()) -> Iterator[Loc]:
    """The locations where BEFORE and AFTER differ (a table compared key by key)."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in dict.fromkeys([*before, *after]):
            yield from _differences(before.get(key, ABSENT), after.get(key, ABSENT), (*loc, key))
    elif not _same(before, after):
        yield loc


def _at(data: Any, loc: Loc) -> Any:
    for part in loc:
        data = data.get(part, ABSENT) if isinstance(data, Mapping) else ABSENT
    return data
