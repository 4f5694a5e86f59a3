"""The state's JSON encoder: a state's body written in pieces, byte for byte what
`json.dumps` makes of the whole (canonical for the checksum, indented for the file).

The values of `deployments` and `pending` (the parts that grow with the state) are
encoded one entry at a time, a model dumped only as its turn comes, so a write holds one
entry's copy at a time, never a second whole document. `tests/state/test_document_pieces.py`
pins the pieces joined to `json.dumps` of the whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_INDENTED = json.JSONEncoder(sort_keys=True, indent=2, ensure_ascii=False)
_ENTRY_INDENT = "\n    "  # an entry of a top-level object or array: two levels deep


def canonical_chunks(body: Mapping[str, Any]) -> Iterator[str]:
    """`json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`
    (the canonical form the checksum covers) in pieces (BODY's top-level objects and arrays entry by
    entry; a model among their entries is dumped as JSON when its turn comes)."""
    separator = "{"
    for key in sorted(body):
        value = body[key]
        yield separator + _CANONICAL.encode(key) + ":"
        separator = ","
        if isinstance(value, dict) and value:
            inner = "{"
            for name in sorted(value):
                yield (
                    inner
                    + _CANONICAL.encode(name)
                    + ":"
                    + _CANONICAL.encode(json_value(value[name]))
                )
                inner = ","
            yield "}"
        elif isinstance(value, list) and value:
            inner = "["
            for entry in value:
                yield inner + _CANONICAL.encode(json_value(entry))
                inner = ","
            yield "]"
        else:
            yield _CANONICAL.encode(value)
    yield "}" if body else "{}"


def indented_chunks(payload: Mapping[str, Any]) -> Iterator[str]:
    """`json.dumps(payload, indent=2, sort_keys=True, ensure_ascii=False)` in pieces, as
    `canonical_chunks` cuts them."""
    if not payload:
        yield "{}"
        return
    separator = "{\n  "
    for key in sorted(payload):
        value = payload[key]
        yield separator + _INDENTED.encode(key) + ": "
        separator = ",\n  "
        if isinstance(value, dict) and value:
            inner = "{" + _ENTRY_INDENT
            for name in sorted(value):
                yield inner + _INDENTED.encode(name) + ": " + _indented_entry(value[name])
                inner = "," + _ENTRY_INDENT
            yield "\n  }"
        elif isinstance(value, list) and value:
            inner = "[" + _ENTRY_INDENT
            for entry in value:
                yield inner + _indented_entry(entry)
                inner = "," + _ENTRY_INDENT
            yield "\n  ]"
        else:
            yield _INDENTED.encode(value)
    yield "\n}"


def _indented_entry(entry: Any) -> str:
    return _indented_value(json_value(entry), _ENTRY_INDENT)


_encode_text = json.encoder.encode_basestring  # a string as ensure_ascii=False writes it


def _indented_value(value: Any, indent: str) -> str:
    """`_INDENTED.encode(value)` with every line after its first moved in to INDENT (a
    newline and the spaces of VALUE's own level): the same text, built a container at a
    time with the compiled encoder for strings and scalars (json's indenting encoder is
    pure Python, token by token: most of a large state's write)."""
    if isinstance(value, str):
        return _encode_text(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        if not all(isinstance(key, str) for key in value):  # json's own key conversions
            # a newline in JSON text is always structure (one in a string is escaped)
            return _INDENTED.encode(value).replace("\n", indent)
        inner = indent + "  "
        items = [
            _encode_text(key) + ": " + _indented_value(value[key], inner) for key in sorted(value)
        ]
        return "{" + inner + ("," + inner).join(items) + indent + "}"
    if isinstance(value, list | tuple):
        if not value:
            return "[]"
        inner = indent + "  "
        return (
            "["
            + inner
            + ("," + inner).join([_indented_value(v, inner) for v in value])
            + indent
            + "]"
        )
    return _CANONICAL.encode(value)  # a number, true, false, null: as json writes them


def json_value(entry: Any) -> Any:
    """ENTRY as JSON data: a model dumped (`mode="json"`), anything else as it is."""
    return entry.model_dump(mode="json") if isinstance(entry, BaseModel) else entry
