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
- a literal of `[deployments.N]`, a template or `[defaults]` that no other environment
  reads (each has a value of its own for the deployments that read the key there) gets
  TO's own value: `[environments.TO.deployments.N]` is added;
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
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from planner.api.vocabulary import seed_source
from planner.config.diagnostics import Loc, Problem, format_loc
from planner.config.environments import Inputs, environment_names, resolve_environment
from planner.config.merge import deep_merge
from planner.config.promoted_fields import (
    ABSENT,
    FieldEdit,
    Promoter,
    environment_layers,
    promoted,
    same,
)
from planner.config.text_edits import SetValue, with_values
from planner.errors import PromotionError, did_you_mean

REFUSED_HINT = (
    "give the environment its own value ([environments.<env>.deployments.<name>]) or a "
    "variable with a value per environment (docs/guides/promotion.md#what-cannot-be-promoted)"
)


class SkipReason(StrEnum):
    """Why a deployment of the config is not promoted (its JSON name)."""

    ONLY_IN_FROM = "only-in-from"
    ONLY_IN_TO = "only-in-to"
    IN_NEITHER = "in-neither"
    SOURCE_DIFFERS = "source-differs"


@dataclass(frozen=True)
class Skipped:
    """A deployment of the config that is not promoted, and why."""

    deployment: str
    reason: SkipReason


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
    promoter = Promoter(raw, from_env, to_env, environ, label)
    for env in (from_env, to_env):
        inputs = Inputs(env=env, environ=environ)
        promoter.resolved[env] = resolve_environment(raw, inputs, label=label)
        promoter.layers[env] = environment_layers(raw, env)
    compared, skipped = _selected(promoter, only)
    fields = [edit for name in compared for edit in promoted(promoter, name)]
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


def _selected(promoter: Promoter, only: Sequence[str]) -> tuple[list[str], list[Skipped]]:
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


def _skip_reason(promoter: Promoter, name: str) -> SkipReason | None:
    """Why deployment NAME is not compared (None: it is)."""
    in_from, in_to = (
        promoter.resolved[env].get("deployments", {}).get(name) for env in promoter.envs
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


def _why(promoter: Promoter, skip: Skipped) -> str:
    return skip_reason_text(skip.reason, promoter.from_env, promoter.to_env)


def _conflicts(fields: Sequence[FieldEdit]) -> list[Problem]:
    """Two fields that need different values at one location."""
    first: dict[Loc, FieldEdit] = {}
    problems = []
    for edit in fields:
        seen = first.setdefault(edit.location, edit)
        if not same(seen.written_after, edit.written_after):
            problems.append(
                Problem(
                    edit.location,
                    f"{seen.deployment}'s {seen.field} needs {seen.written_after!r} here, "
                    f"{edit.deployment}'s {edit.field} needs {edit.written_after!r}",
                )
            )
    return problems


def _side_effects(promoter: Promoter, fields: Sequence[FieldEdit]) -> list[Problem]:
    """A problem for each edit that would change values of --to besides the fields it
    promotes (secrets named, never shown), and for a promoted field the edits would not
    make --from's value. One resolution with every edit; each edit alone only to say
    which one reaches further."""
    by_location: dict[Loc, list[FieldEdit]] = {}
    for edit in fields:
        by_location.setdefault(edit.location, []).append(edit)
    edits = [SetValue(loc, group[0].written_after) for loc, group in by_location.items()]
    before = _effective(promoter.resolved[promoter.to_env])
    after = _effective(promoter.resolve(with_values(promoter.raw, edits)))
    promoted = {_path(edit): edit for edit in fields}
    problems = [
        Problem(
            edit.location,
            f"setting it would not make {edit.deployment}'s {edit.field} "
            f"{promoter.from_env}'s value",
        )
        for path, edit in promoted.items()
        if not same(_at(after, path), edit.from_value)
    ]
    if any(loc not in promoted for loc in _differences(before, after)):
        problems += _reaching_further(promoter, by_location, before)
    return problems


def _reaching_further(
    promoter: Promoter, by_location: Mapping[Loc, list[FieldEdit]], before: Mapping[str, Any]
) -> list[Problem]:
    """Each edit that, made alone, changes a value of --to it does not promote. An
    overlay's value is its own deployment's alone: only the others are tried."""
    problems = []
    for loc, own in by_location.items():
        if loc[2:3] == ("deployments",):
            continue
        edit = SetValue(loc, own[0].written_after)
        after = _effective(promoter.resolve(with_values(promoter.raw, [edit])))
        promoted = {_path(field) for field in own}
        others = [changed for changed in _differences(before, after) if changed not in promoted]
        if others:
            problems.append(Problem(loc, _side_effect(promoter.to_env, own, others)))
    return problems


def _path(edit: FieldEdit) -> Loc:
    """Where EDIT's field is in the effective view of the environment promoted to."""
    return ("deployments", edit.deployment, *edit.field.split("."))


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
    elif not same(before, after):
        yield loc


def _at(data: Any, loc: Loc) -> Any:
    for part in loc:
        data = data.get(part, ABSENT) if isinstance(data, Mapping) else ABSENT
    return data
