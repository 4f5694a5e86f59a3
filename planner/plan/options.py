"""What a plan is asked to cover: `PlanOptions`, the names it selects, and the check that
every name given to --only / --exclude / --replace is one the plan knows."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from planner.command_lines import suggested_command
from planner.errors import PlanError, did_you_mean
from planner.plan.model import Drift, PlanMode
from planner.state.moves import successor_of


@dataclass(frozen=True)
class PlanOptions:
    """What to plan: `only`/`exclude` select names, `replace` forces delete + create."""

    only: AbstractSet[str] = frozenset()
    exclude: AbstractSet[str] = frozenset()
    replace: AbstractSet[str] = frozenset()
    destroy: bool = False
    refresh_only: bool = False
    command_args: tuple[str, ...] = ()  # repeated in the commands a plan suggests (`-c F`)

    def __post_init__(self) -> None:
        # Callers pass argparse lists; the plan needs sets (and a hashable, frozen value).
        for name in ("only", "exclude", "replace"):
            object.__setattr__(self, name, frozenset(getattr(self, name)))

    @property
    def mode(self) -> PlanMode:
        if self.refresh_only:
            return "refresh-only"
        return "destroy" if self.destroy else "normal"


def selected_names(
    desired: Mapping[str, object], recorded: Mapping[str, object], options: PlanOptions
) -> list[str]:
    """The names to plan; a deposed record (`planner.state.moves`) goes with its successor:
    `--only worker` deletes the old deployment a create-before-destroy replace kept."""
    names = set(recorded) if options.destroy else set(desired) | set(recorded)
    return sorted(name for name in names if _is_selected(name, options))


def _is_selected(name: str, options: PlanOptions) -> bool:
    given = {name, successor_of(name) or name}
    return (not options.only or bool(given & options.only)) and not given & options.exclude


def check_option_names(
    desired: Collection[str], recorded: Collection[str], options: PlanOptions
) -> None:
    """PlanError listing every --only / --exclude / --replace name the plan cannot act on
    (a typo must never narrow a plan to nothing and report success)."""
    known = set(desired) | set(recorded)
    problems = [
        f"{flag} {name}: no deployment of that name in the config or the state"
        + did_you_mean(name, sorted(known))
        for flag, names in (("--only", options.only), ("--exclude", options.exclude))
        for name in sorted(set(names) - known)
    ]
    problems += [
        f"--replace {name}: "
        + ("not in the config" if name not in desired else "not in the state (nothing to replace)")
        for name in sorted(set(options.replace) - (set(desired) & set(recorded)))
    ]
    if problems:
        raise PlanError(
            f"unknown deployment name(s) in the options: {problems[0].split(':')[0]}"
            + (f" and {len(problems) - 1} more" if len(problems) > 1 else ""),
            details=problems,
            hint=f"known deployments: {', '.join(sorted(known)) or '(none)'}",
        )


def check_not_emptied(
    desired: Collection[str], recorded: Collection[str], options: PlanOptions
) -> None:
    """PlanError when the config declares no deployment (in this environment) while the
    state manages some: an emptied or mis-selected config must never delete them all.
    Only a destroy plan (`--destroy`, `planner destroy`) may; a refresh-only plan deletes
    nothing. --only / --exclude do not matter: the rule is about the config."""
    if desired or not recorded or options.destroy or options.refresh_only:
        return
    names = sorted(recorded)
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    raise PlanError(
        f"the config declares no deployments, but the state manages {len(names)} ({shown}); "
        "planning would delete every one",
        hint="to delete them all, use `planner destroy` (or `planner plan --destroy`); "
        "otherwise check the config file and --env",
    )


def record_command(options: PlanOptions, drift: Collection[Drift]) -> str | None:
    """`planner apply --refresh-only` with the options given, for a refresh-only plan that
    found drift (every plan is read-only: that command is the way to record it)."""
    if not (options.refresh_only and drift):
        return None
    flags = [
        *(w for name in sorted(options.only) for w in ("--only", name)),
        *(w for name in sorted(options.exclude) for w in ("--exclude", name)),
    ]
    return suggested_command("apply --refresh-only", *flags, command_args=options.command_args)
