"""`planner promote`: write the revision-level values of `--from` where `--to`'s come from.

The edits are found by the engine (`planner.config.promotion`) and made in the file's text
(`planner.config.text_edits`); the edited text must load as `--to`'s config (secrets'
environment variables not needed, as `planner validate`). Without `--write`, nothing is
written: the diff and the plan of `--to` made from the edited text in memory (the plan
`planner plan --env TO` would print after the edit: `planner.cli.run.plan.run_plan`, its
state and endpoint resolved as plan resolves them) are printed. With `--write`, the file
is replaced atomically (its mode kept, through a symlink to the file it names), unless it
changed since it was read. Nothing to promote: nothing planned, nothing written.
Exit codes: 0, or 1 on an error (a value that cannot be promoted) or a plan with errors.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import replace
from pathlib import Path

from planner.cli.commands.promote import PromoteArgs
from planner.cli.exits import EXIT_ERROR, EXIT_OK
from planner.cli.run.plan import is_color_terminal, run_plan
from planner.cli.run_async import run_async
from planner.cli.target import resolve_target
from planner.config import load_config
from planner.config.promotion import Promotion, plan_promotion
from planner.config.reader import parse_raw, read_text
from planner.config.secret_values import NotingMissing, written_secret_texts
from planner.config.text_edits import edited_text
from planner.errors import PlannerError, PromotionError
from planner.files import os_reason
from planner.plan.model import Plan
from planner.plan.options import PlanOptions
from planner.render.promote_view import (
    PromotionResult,
    render_planned,
    render_promotion_json,
    render_promotion_text,
)
from planner.state.localfile import real_path, write_atomic


def run(args: PromoteArgs) -> int:
    path = Path(args.workspace.config)
    text = read_text(path)
    raw = parse_raw(path, text)
    promotion = plan_promotion(
        raw,
        from_env=args.from_env,
        to_env=args.to_env,
        only=args.only,
        environ=os.environ,
        label=str(path),
    )
    edited = edited_text(path, text, promotion.edits)
    if promotion.fields:
        check_loads(path, parse_raw(path, edited), promotion)
        if args.write:
            write_config(path, text, edited)
    result = PromotionResult(
        promotion,
        str(path),
        text,
        edited,
        written=args.write and bool(promotion.fields),
        sensitive=frozenset(written_secret_texts(raw)),
        command_args=args.workspace.command_args(os.environ),
    )
    is_planned = bool(promotion.fields) and not args.write
    if args.format == "json":
        plan = plan_edited(args, parse_raw(path, edited)) if is_planned else None
        sys.stdout.write(render_promotion_json(replace(result, plan=plan)))
    else:
        sys.stdout.write(render_promotion_text(result))
        sys.stdout.flush()  # what the promotion does shows before the plan is made
        plan = plan_edited(args, parse_raw(path, edited)) if is_planned else None
        if plan is not None:
            sys.stdout.write(render_planned(result, plan, color=is_color_terminal()))
    return EXIT_ERROR if plan is not None and plan.has_errors else EXIT_OK


def check_loads(path: Path, edited_raw: dict[str, object], promotion: Promotion) -> None:
    """Refuse edits after which --to's config does not load."""
    load_config(path, environ=NotingMissing(os.environ), env=promotion.to_env, raw=edited_raw)


def plan_edited(args: PromoteArgs, edited_raw: dict[str, object]) -> Plan:
    """The plan of `--to` from the edited config (in memory), as `planner plan` makes it."""
    options = replace(args.workspace, env=args.to_env)
    target = replace(resolve_target(options, os.environ), raw=edited_raw)
    plan_options = PlanOptions(command_args=options.command_args(os.environ))
    return run_async(run_plan(target, plan_options, None))


def write_config(path: Path, read: str, edited: str) -> None:
    """EDITED over the config file PATH, atomically, unless PATH no longer holds READ."""
    if read_text(path) != read:
        raise PromotionError(
            f"{path} changed while it was being promoted: nothing was written",
            hint="run planner promote again",
        )
    real = real_path(path)
    try:
        write_atomic(real, edited, mode=stat.S_IMODE(real.stat().st_mode))
    except OSError as error:
        raise PlannerError(f"cannot write {path}: {os_reason(error)}") from None
