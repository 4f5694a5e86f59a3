"""A saved plan's target: the config, state and embedded plane it was made with.

`load_sealed_plan(planfile, options, environ)` reads the plan, resolves its target (one
`resolve_target`, from what the plan records and what the command gives) and checks its
seal with the key beside that state, before anything else is read or sent. The config is
`-c` when given, else the path the plan records relative to the plan file, else the
absolute one (a moved checkout finds it by the first). The state is `--state` when
given, else the plan's (a file that no longer exists, as after a move: the state the
config resolves to). `--env`, `--var` and `--var-file` must agree with the plan.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from planner.cli.options import WorkspaceOptions
from planner.cli.target import Target, resolve_target
from planner.errors import ConfigError, PlanError
from planner.plan.saved import SavedPlan, check_seal, read_saved_plan
from planner.secrets import url_without_password
from planner.state.location import STATE_ENV, is_postgres_url


@dataclass(frozen=True)
class SealedPlan:
    """A saved plan whose seal verified, and the target it applies to."""

    saved: SavedPlan
    target: Target


def load_sealed_plan(
    planfile: str, options: WorkspaceOptions, environ: Mapping[str, str]
) -> SealedPlan:
    """The saved plan at PLANFILE and its target, its seal checked with the key beside
    its state (opened, never locked or read)."""
    saved = read_saved_plan(planfile)
    target = saved_plan_target(saved, Path(planfile), options, environ)
    backend = target.state.open()
    try:
        key = backend.plan_key(create=False)
    finally:
        backend.close()
    check_seal(saved, key, Path(planfile).absolute())
    return SealedPlan(saved, target)


def saved_plan_target(
    saved: SavedPlan, planfile: Path, options: WorkspaceOptions, environ: Mapping[str, str]
) -> Target:
    """What SAVED applies to, OPTIONS (`-c`, `--state`, `--base-url`, `--dialect`)
    overriding."""
    check_environment(saved, options.environment(environ))
    config = options.config if options.is_config_given else saved_config(saved, planfile)
    state_dir = Path(relocated(saved.state_dir, saved.config_path, config))
    state = saved_state(saved, environ)
    if state is not None and not is_postgres_url(state):
        state = relocated(state, saved.config_path, config)
    chosen = WorkspaceOptions(
        config=config,
        state=options.state or state,
        env=saved.plan.environment,
        var=options.var,  # the plan's are checked by digest once the config is loaded
        base_url=options.base_url,
        dialect=options.dialect,
    )
    return resolve_target(chosen, environ, state_dir=state_dir if state_dir.is_dir() else None)


def saved_config(saved: SavedPlan, planfile: Path) -> str:
    """The plan's config: by its path relative to the plan file, else its absolute one."""
    candidates = [saved.config_path]
    if saved.config_relative is not None:
        plan_dir = os.path.dirname(os.path.realpath(planfile))
        candidates.insert(0, os.path.normpath(os.path.join(plan_dir, saved.config_relative)))
    candidates = list(dict.fromkeys(candidates))  # both spellings may be one path
    for candidate in candidates:
        if Path(candidate).is_file():
            return candidate
    raise ConfigError(
        f"config file not found: {' nor '.join(candidates)} (the paths the plan file "
        f"{planfile} records)",
        hint="pass -c FILE to name the config the plan was made with",
    )


def relocated(path: str, made_with: str, config: str) -> str:
    """PATH, which the plan recorded beside the config it was MADE_WITH, beside CONFIG
    instead when the config was found elsewhere (a moved or copied checkout: its state
    and embedded database moved with it); a path outside that directory stays as is."""
    old_dir = os.path.dirname(os.path.abspath(made_with))
    new_dir = os.path.dirname(os.path.abspath(config))
    inside = os.path.relpath(os.path.abspath(path), old_dir)
    if old_dir == new_dir or inside == ".." or inside.startswith(".." + os.sep):
        return path
    return os.path.join(new_dir, inside)


def saved_state(saved: SavedPlan, environ: Mapping[str, str]) -> str | None:
    """The plan's state as a `--state`, or None: let the resolver find it (a URL given
    in $PLANNER_STATE with its password; a file gone since, as after a move)."""
    address = saved.state_path
    if is_postgres_url(address):
        given = environ.get(STATE_ENV)
        return None if given and url_without_password(given) == address else address
    return address if Path(address).exists() else None


def check_environment(saved: SavedPlan, chosen: str | None) -> None:
    if chosen is not None and chosen != saved.plan.environment:
        made_for = saved.plan.environment or "a config without environments"
        raise PlanError(
            f"the plan was made for environment {made_for}, not {chosen}",
            hint="apply it without --env (and PLANNER_ENV), or make a plan for this environment",
        )
