"""What a read of the server held that the wire models do not know, written back.

A PATCH replaces `source_config.resource_spec` whole: a spec rebuilt from the models
alone would erase every key they do not know (a newer setting, a container's `ports`),
at any depth. The client reads deployments with `READ_EXTRA` (pydantic's validation-time
`extra`), so every model of a read keeps the keys it does not know as its `model_extra`;
`with_unknown(model)` is the model's JSON with them back in place, at every level. The
models themselves ignore unknown keys (a server validating a body must not store them).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel

from planner.api.vocabulary import seed_word
from planner.pydantic_internals import field_values

# How the client validates what a server sent: the keys no model knows are kept.
READ_EXTRA: Final[Literal["allow"]] = "allow"


def with_unknown(model: BaseModel) -> dict[str, Any]:
    """MODEL's wire JSON (no nulls) with the unknown keys it was read with, at every level
    (a key no model knows never overrides a known one, nor does another spelling of a
    known field: the field holds its value)."""
    out: dict[str, Any] = model.model_dump(mode="json", exclude_none=True)
    _put_unknown(model, out)
    return out


def _put_unknown(model: BaseModel, out: dict[str, Any]) -> None:
    fields = type(model).model_fields
    for key, value in (model.model_extra or {}).items():
        if key not in out and seed_word(key) not in fields and value is not None:
            out[key] = value
    for name, value in field_values(model).items():
        dumped = out.get(name)
        if isinstance(value, BaseModel) and isinstance(dumped, dict):
            _put_unknown(value, dumped)
        elif isinstance(value, list) and isinstance(dumped, list) and len(value) == len(dumped):
            for item, item_out in zip(value, dumped, strict=True):
                if isinstance(item, BaseModel) and isinstance(item_out, dict):
                    _put_unknown(item, item_out)
