"""Values set in a config file's text, everything else kept as it is written.

TOML goes through tomlkit, which keeps comments, order, blank lines and the spelling of
every other value: only the edited value's own text changes (a string keeps its quotes,
literal or basic, one line or three, where the new value can be written in them), and a
value added to a table lands after its last key. JSON goes through the spans of its
values: the edited value's text is replaced in place, and a new member goes after the last
one of its object with the same indent and separator (every other byte, key order and
indent included, stays). A missing table on the way is added as one inline table (TOML)
or object (JSON) holding the rest of the path; in a JSON file written on several lines,
an object added, and a member of an empty object, take their own lines at its indent.

Every edit is checked: the new text parses, with the config's own reader, to the old data
with the values set; anything else is an error, and no text is returned.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable, Item, SingleKey, String, StringType

from planner.config.diagnostics import Loc, format_loc
from planner.config.reader import parse_raw
from planner.errors import ConfigError

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_PLAIN_LITERAL = re.compile(r"[^'\x00-\x08\x0a-\x1f\x7f]*")  # fits in 'literal' quotes


@dataclass(frozen=True)
class SetValue:
    """Set the value at LOC (a table key path into the file's data) to VALUE."""

    loc: Loc
    value: Any


def edited_text(path: Path, text: str, edits: Sequence[SetValue]) -> str:
    """TEXT, the config file PATH, with EDITS made (TOML or JSON by PATH's extension)."""
    if not edits:
        return text
    is_json = path.suffix.lower() == ".json"
    try:
        new = _json_edited(text, edits) if is_json else _toml_edited(text, edits)
    except (TOMLKitError, ValueError, KeyError) as error:
        raise ConfigError(f"{path}: cannot edit the file: {error}") from None
    expected = with_values(parse_raw(path, text), edits)
    if parse_raw(path, new) != expected:
        where = ", ".join(format_loc(edit.loc) for edit in edits)
        raise ConfigError(f"{path}: editing {where} would change more than those values")
    return new


def with_values(data: Mapping[str, Any], edits: Sequence[SetValue]) -> dict[str, Any]:
    """A copy of DATA with EDITS made (tables on the way created as needed)."""
    edited = copy.deepcopy(dict(data))
    for edit in edits:
        node: Any = edited
        *parents, key = edit.loc
        for part in parents:
            node = node.setdefault(part, {})
        node[key] = edit.value
    return edited


def _nested(parts: Sequence[str | int], value: Any) -> Any:
    """VALUE under the keys PARTS (`a`, `b` -> `{a: {b: VALUE}}`)."""
    for part in reversed(parts):
        value = {part: value}
    return value


# ---- TOML ------------------------------------------------------------------------------


def _toml_edited(text: str, edits: Sequence[SetValue]) -> str:
    document = tomlkit.parse(text)
    for edit in edits:
        _toml_set(document, edit.loc, edit.value)
    return tomlkit.dumps(document)


def _toml_set(document: Container, loc: Loc, value: Any) -> None:
    node: Any = document
    for index, part in enumerate(loc):
        if not isinstance(node, MutableMapping):
            raise ValueError(f"{format_loc(loc[:index])} is not a table")
        if part not in node:  # added: the rest of the path as an inline table
            added = _nested(loc[index + 1 :], value)
            if isinstance(node, InlineTable):
                _toml_add_inline(document, loc[:index], node, str(part), added)
            else:
                node[part] = _parsed_value(_inline_text(added))
            return
        if index == len(loc) - 1:
            node[part] = _toml_item(node[part], value)
            return
        node = node[part]


def _toml_item(old: Any, value: Any) -> Item:
    """VALUE as a TOML item; a string replacing a string keeps its quotes (literal or
    basic, one line or several) where VALUE can be written so, else basic quotes."""
    if isinstance(old, String) and isinstance(value, str):
        literal = old.type in (StringType.SLL, StringType.MLL)
        multiline = old.type in (StringType.MLB, StringType.MLL)
        if _fits(value, literal=literal, multiline=multiline):
            kept: Item = tomlkit.string(value, literal=literal, multiline=multiline)
            return kept
    item: Item = tomlkit.item(value)
    return item


def _fits(value: str, *, literal: bool, multiline: bool) -> bool:
    """VALUE can be written in these quotes as it is, on one line (a literal has no
    escapes; a multi-line string here holds no quote, backslash or line break)."""
    if not (literal or multiline):
        return True
    plain = _PLAIN_LITERAL.fullmatch(value) is not None
    return plain and (literal or not {'"', "\\"} & set(value))


def _inline_text(value: Any) -> str:
    """VALUE as TOML text, its tables inline and written as people write them: `{ a = 1 }`."""
    if not isinstance(value, Mapping):
        return str(tomlkit.item(value).as_string())
    return "{ " + ", ".join(_pair(key, item) for key, item in value.items()) + " }"


def _pair(key: str, value: Any) -> str:
    return f"{SingleKey(key).as_string()} = {_inline_text(value)}"


def _toml_add_inline(
    document: Container, loc: Loc, table: InlineTable, key: str, value: Any
) -> None:
    """TABLE (at LOC) with KEY added before its closing brace, its spacing kept."""
    written = table.as_string()
    close = written.rstrip().rfind("}")
    body = written[:close].rstrip()
    pair = _pair(key, value)
    space = written[len(body) : close]
    joined = f"{body} {pair} " if body.endswith("{") else f"{body}, {pair}{space}"
    node: Any = document
    for part in loc[:-1]:
        node = node[part]
    node[loc[-1]] = _parsed_value(joined + written[close:])


def _parsed_value(written: str) -> Item:
    item: Item = tomlkit.parse(f"x = {written}\n")["x"]
    return item


# ---- JSON ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Member:
    """One member of a JSON object: where its key and value are (a value that is an
    object: its members too)."""

    key_start: int
    key_end: int
    value_start: int
    value_end: int
    object: _Object | None


@dataclass(frozen=True)
class _Object:
    start: int  # its `{`
    end: int  # past its `}`
    members: dict[str, _Member]


def _json_edited(text: str, edits: Sequence[SetValue]) -> str:
    """TEXT with EDITS made in one pass over the spans of its objects (read once)."""
    root = _json_object(text, _skip(text, 0))
    operations: list[tuple[int, int, str]] = []  # (start, end, new text), non-overlapping
    added: dict[int, tuple[_Object, dict[str, Any]]] = {}  # members added, by object
    for edit in edits:
        node = root
        for index, part in enumerate(edit.loc):
            member = node.members.get(str(part))
            if member is None:
                rest = _nested(edit.loc[index + 1 :], edit.value)
                _merge_into(added.setdefault(node.start, (node, {}))[1], str(part), rest)
                break
            if index == len(edit.loc) - 1:
                operations.append((member.value_start, member.value_end, _json_dumps(edit.value)))
            elif member.object is None:
                raise ValueError(f"{format_loc(edit.loc[: index + 1])} is not a table")
            else:
                node = member.object
    operations += [_json_addition(text, node, members) for node, members in added.values()]
    pieces, position = [], 0
    for start, end, new in sorted(operations):
        pieces += [text[position:start], new]
        position = end
    return "".join([*pieces, text[position:]])


def _json_object(text: str, start: int) -> _Object:
    """The object at START, with the spans of its members, objects within read too."""
    if text[start] != "{":
        raise ValueError(f"expected an object at character {start}")
    members: dict[str, _Member] = {}
    pos = _skip(text, start + 1)
    while text[pos] != "}":
        key_start = pos
        key, key_end = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
        value_start = _skip(text, _skip(text, key_end) + 1)  # past the ':'
        child = _json_object(text, value_start) if text[value_start] == "{" else None
        value_end = child.end if child else _value_end(text, value_start)
        members[key] = _Member(key_start, key_end, value_start, value_end, child)
        pos = _skip(text, value_end)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return _Object(start, pos + 1, members)


def _merge_into(members: dict[str, Any], key: str, value: Any) -> None:
    """VALUE added as KEY to MEMBERS, tables merged with what is added there already."""
    below = members.get(key)
    if isinstance(below, dict) and isinstance(value, dict):
        for inner, item in value.items():
            _merge_into(below, inner, item)
    else:
        members[key] = value


def _json_addition(text: str, node: _Object, added: Mapping[str, Any]) -> tuple[int, int, str]:
    """ADDED as members of NODE after its last one, laid out as the last one is (the
    separator before its key, and the one between key and value). In a multi-line
    object, or an empty one of a file written on several lines, a member and an object
    added take their own lines, indented as the file indents."""
    members = list(node.members.values())
    unit = _indent_unit(text)
    if not members:
        if unit is None:
            body = ", ".join(
                f"{_json_dumps(key)}: {_json_dumps(value)}" for key, value in added.items()
            )
            return node.start + 1, node.start + 1, body
        own = _line_indent(text, node.start)
        inner = own + unit
        body = ",".join(
            f"\n{inner}{_json_dumps(key)}: {_json_block(value, unit, inner)}"
            for key, value in added.items()
        )
        return node.start + 1, node.end - 1, f"{body}\n{own}"
    last = members[-1]
    if len(members) > 1:
        before_key = text[members[-2].value_end : last.key_start].split(",", 1)[-1]
    else:  # after `{`: the indent of a multi-line object, else one space as after a comma
        before_key = text[node.start + 1 : last.key_start]
        before_key = before_key if "\n" in before_key else " "
    colon = text[last.key_end : last.value_start]
    indent = before_key.rpartition("\n")[2] if "\n" in before_key else None
    layout = None if unit is None or indent is None else (unit, indent)
    body = "".join(
        f",{before_key}{_json_dumps(key)}{colon}"
        + (_json_block(value, *layout) if layout else _json_dumps(value))
        for key, value in added.items()
    )
    return last.value_end, last.value_end, body


def _indent_unit(text: str) -> str | None:
    """The indent one level of the file adds (None: its top object is on one line)."""
    start = _skip(text, 0)
    first = _skip(text, start + 1)
    between = text[start + 1 : first]
    if text[first : first + 1] in ("}", "") or "\n" not in between:
        return None
    return between.rpartition("\n")[2] or None


def _line_indent(text: str, pos: int) -> str:
    """The blanks that open the line POS is on."""
    start = text.rfind("\n", 0, pos) + 1
    return text[start : _skip_blanks(text, start)]


def _skip_blanks(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos


def _json_block(value: Any, unit: str, indent: str) -> str:
    """VALUE as JSON, an object on its own lines, one UNIT deeper than INDENT per level."""
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + indent)


def _json_dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _skip(text: str, pos: int) -> int:
    found = _WHITESPACE.match(text, pos)
    return found.end() if found else pos


def _value_end(text: str, pos: int) -> int:
    return int(_DECODER.raw_decode(text, pos)[1])
