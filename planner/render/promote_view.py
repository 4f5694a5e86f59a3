"""What `planner promote` prints: the edits, the deployments not promoted, the unified diff
of the config file, and the plan of `--to` with the edits (text), or one JSON document.

Secret values never print: every piece of the file shown (the diff, a value written at a
location) has the texts of the file's secrets (`written_secret_texts`) masked.

The JSON document (`format_version` 1):
`config`, `from`, `to`, `changed` (an edit is needed), `written` (the file was edited),
`compared` (the deployments of both environments), `edits[]` (one per promoted field:
`deployment`, `field`, `from_value` (what `--from` resolves to), `to_value` (what `--to`
resolved to before), `location` {`file`, `path`, `keys`, `before`, `after`, `added`}: where
the edit is made and what is written there before and after; fields may share a location),
`skipped[]` {`deployment`, `reason`: `only-in-from`, `only-in-to`, `in-neither`,
`source-differs`}, `diff` (the unified diff, "" without an edit) and `plan` (the plan JSON
of `planner plan --format json`, null with `--write` or without an edit).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from planner.command_lines import suggested_command
from planner.config.diagnostics import Loc, format_loc
from planner.config.promoted_fields import FieldEdit
from planner.config.promotion import Promotion, skip_reason_text
from planner.config.variables import as_text
from planner.plan.changes import show
from planner.plan.model import Plan
from planner.render.json import render_json
from planner.render.safe import visible, visible_json
from planner.render.text import render_text
from planner.secrets import SENSITIVE

FORMAT_VERSION = 1
_SHORT = 4  # a secret's text shorter than this is masked only as a whole quoted string
NO_NEWLINE = "\\ No newline at end of file"


@dataclass(frozen=True)
class PromotionResult:
    """A promotion and what came of it, to show."""

    promotion: Promotion
    config: str
    before: str  # the file's text
    after: str  # the file's text with the edits
    written: bool = False
    plan: Plan | None = None
    sensitive: frozenset[str] = field(default_factory=frozenset)
    command_args: tuple[str, ...] = ()  # `-c`, `--state` as given, for a suggested command


def render_promotion_text(result: PromotionResult) -> str:
    """What a promotion found, as text: its edits and the deployments not promoted, then
    the file's diff (without `--write`) or what was written. The plan follows apart
    (`render_planned`): it is made after this is shown."""
    return "".join(f"{visible(line)}\n" for line in _text_lines(result))


def render_planned(result: PromotionResult, plan: Plan, *, color: bool = False) -> str:
    """The plan of `--to` with the edits, as `planner plan` prints it, and how to write them."""
    promotion = result.promotion
    command = suggested_command(
        "promote",
        command_args=(
            *("--from", promotion.from_env, "--to", promotion.to_env),
            *result.command_args,
            "--write",
        ),
    )
    heading = f"\nPlan of {visible(promotion.to_env)} with these edits:\n"
    footer = visible(f"Nothing was written. To edit {result.config}: {command}")
    return f"{heading}{render_text(plan, color=color)}\n{footer}\n"


def render_promotion_json(result: PromotionResult) -> str:
    promotion = result.promotion
    document = {
        "format_version": FORMAT_VERSION,
        "config": result.config,
        "from": promotion.from_env,
        "to": promotion.to_env,
        "changed": bool(promotion.fields),
        "written": result.written,
        "compared": list(promotion.compared),
        "edits": [_edit_json(result, edit) for edit in promotion.fields],
        "skipped": [
            {"deployment": s.deployment, "reason": str(s.reason)} for s in promotion.skipped
        ],
        "diff": "".join(f"{line}\n" for line in diff_lines(result)),
        "plan": json.loads(render_json(result.plan)) if result.plan is not None else None,
    }
    return visible_json(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"


def _edit_json(result: PromotionResult, edit: FieldEdit) -> dict[str, Any]:
    mask = _Mask(result.sensitive)
    return {
        "deployment": edit.deployment,
        "field": edit.field,
        "from_value": mask.value(edit.from_value),
        "to_value": mask.value(edit.to_value),
        "location": {
            "file": result.config,
            "path": format_loc(edit.location),
            "keys": list(edit.location),
            "before": None if edit.added else mask.value(edit.written_before),
            "after": mask.value(edit.written_after),
            "added": edit.added,
        },
    }


def _text_lines(result: PromotionResult) -> Iterator[str]:
    promotion = result.promotion
    from_env, to_env = promotion.from_env, promotion.to_env
    if not promotion.fields:
        count = len(promotion.compared)
        yield (
            f"Nothing to promote: {to_env} already has {from_env}'s revision values "
            f"({count} {'deployment' if count == 1 else 'deployments'} compared); "
            f"{result.config} is unchanged."
        )
        yield from _skipped_lines(promotion)
        return
    yield from _edit_lines(result)
    yield from _skipped_lines(promotion)
    yield ""
    if result.written:
        plan = suggested_command("plan", command_args=(*result.command_args, "--env", to_env))
        yield f"Wrote {result.config}. Review and commit it; `{plan}` shows what apply will do."
    else:
        yield from diff_lines(result)


def _edit_lines(result: PromotionResult) -> Iterator[str]:
    promotion, mask = result.promotion, _Mask(result.sensitive)
    edits = promotion.edits
    count = len(promotion.fields)
    yield (
        f"Promote {promotion.from_env} → {promotion.to_env} in {result.config}: "
        f"{len(edits)} {'edit' if len(edits) == 1 else 'edits'} for {count} "
        f"{'value' if count == 1 else 'values'}"
    )
    by_location: dict[Loc, list[FieldEdit]] = {}
    for edit in promotion.fields:
        by_location.setdefault(edit.location, []).append(edit)
    for location, fields in by_location.items():
        first = fields[0]
        where = format_loc(location)
        if first.added:
            yield f"  + {where} = {mask.value(first.written_after, shown=True)}"
        else:
            before = mask.value(first.written_before, shown=True)
            yield f"  ~ {where}: {before} → {mask.value(first.written_after, shown=True)}"
        for edit in fields:
            before, after = (mask.value(v, shown=True) for v in (edit.to_value, edit.from_value))
            yield f"      {edit.deployment}: {edit.field}: {before} → {after}"


def _skipped_lines(promotion: Promotion) -> Iterator[str]:
    if promotion.skipped:
        yield "Not promoted:"
        envs = (promotion.from_env, promotion.to_env)
        for skipped in promotion.skipped:
            yield f"  {skipped.deployment}: {skip_reason_text(skipped.reason, *envs)}"


def diff_lines(result: PromotionResult) -> list[str]:
    """The unified diff of the config file (secret texts masked); empty without an edit."""
    before = result.before.splitlines(keepends=True)
    after = result.after.splitlines(keepends=True)
    name = result.config
    diff = difflib.unified_diff(before, after, fromfile=name, tofile=name)
    return list(_Mask(result.sensitive).lines(_with_end_markers(diff)))


def _with_end_markers(lines: Iterable[str]) -> Iterator[str]:
    """Diff lines without their line breaks; a line the file does not end with a line
    break after is followed by the marker `diff` writes."""
    for line in lines:
        if line.endswith("\n"):
            yield line[:-1]
        else:
            yield line
            yield NO_NEWLINE


@dataclass(frozen=True)
class _Mask:
    """The texts of the file's secrets, replaced by `(sensitive)` wherever they show: as
    any part of a line, or for a text shorter than `_SHORT` (a flag like "1" a secret
    holds, which would hide every digit of the diff) where it is a whole quoted string."""

    texts: frozenset[str]

    def lines(self, lines: Iterable[str]) -> Iterator[str]:
        pieces: list[tuple[str, str]] = []
        for text in sorted(self.texts, key=len, reverse=True):
            if len(text) >= _SHORT:
                pieces.append((text, SENSITIVE))
            else:
                pieces += [(f"{q}{text}{q}", f"{q}{SENSITIVE}{q}") for q in ('"', "'")]
        for line in lines:
            for text, mask in pieces:
                line = line.replace(text, mask)
            yield line

    def value(self, value: Any, *, shown: bool = False) -> Any:
        """VALUE, or `(sensitive)` when its text is a secret's; SHOWN: as one line."""
        if as_text(value) in self.texts:
            return SENSITIVE
        return show(value) if shown else value
