"""Reading files a user names (config, seed, saved plan), bounded in time and memory.

Every such file goes through `read_user_text`: only a regular file is read (a FIFO would
block forever, `/dev/zero` never ends), at most `MAX_FILE_BYTES`, as UTF-8. Parsed data
goes through `check_nesting`, so a document nested thousands deep is one clear error,
not a RecursionError in whatever walks it later.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from planner.errors import PlannerError

Loc = tuple[str | int, ...]  # a path into parsed data: object keys, list indices

MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_NESTING = 64  # files people write (config, seed)
MAX_WRITTEN_NESTING = 256  # files the planner writes (state, saved plan): config depth + own
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def read_user_text(
    path: Path, what: str, error: type[PlannerError], limit: int = MAX_FILE_BYTES
) -> str:
    """The UTF-8 text of the regular file PATH (at most LIMIT bytes); ERROR naming the path
    and WHAT it is otherwise. FileNotFoundError is left to the caller (its hint differs)."""
    data = read_user_bytes(path, what, error, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: cannot read {what}: not UTF-8 text ({exc.reason})") from None


def read_user_bytes(
    path: Path, what: str, error: type[PlannerError], limit: int = MAX_FILE_BYTES
) -> bytes:
    """The bytes of the regular file PATH (at most LIMIT), as `read_user_text` reads them."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise error(f"{path}: cannot read {what}: {os_reason(exc)}") from None
    try:
        return _read_regular(fd, path, what, error, limit)
    finally:
        os.close(fd)


def os_reason(error: OSError) -> str:
    """Why an OS call failed, in words (a parent that is a file reads as such)."""
    if isinstance(error, FileExistsError | NotADirectoryError):
        return "a part of the path is a file, not a directory"
    return error.strerror or str(error)


def non_regular_kind(mode: int) -> str | None:
    """What a file of MODE is when it is not a regular file ("a FIFO (named pipe)"...)."""
    if stat.S_ISREG(mode):
        return None
    return next((name for is_kind, name in _KINDS if is_kind(mode)), "not a plain file")


def _read_regular(fd: int, path: Path, what: str, error: type[PlannerError], limit: int) -> bytes:
    kind = non_regular_kind(os.fstat(fd).st_mode)
    if kind is not None:
        raise error(f"{path}: cannot read {what}: it is {kind}, not a regular file")
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        try:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        except OSError as exc:
            raise error(f"{path}: cannot read {what}: {os_reason(exc)}") from None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    megabytes = limit / (1024 * 1024)
    raise error(f"{path}: cannot read {what}: larger than {megabytes:g} MB")


def nested_too_deep(data: Any, limit: int) -> Loc | None:
    """The path to the first object or array in `data` more than `limit` levels deep
    (`data` itself is level 1), else None. Iterative: any depth is safe to ask about.
    A first pass counts levels only (this runs for every deployment of a config); the
    path is built only when something is too deep."""
    if not _deeper_than(data, limit):
        return None
    pending: list[tuple[Any, Loc]] = [(data, ())]
    while pending:
        node, loc = pending.pop()
        if not isinstance(node, Mapping | list):
            continue
        if len(loc) >= limit:
            return loc
        items = node.items() if isinstance(node, Mapping) else enumerate(node)
        pending.extend((value, (*loc, key)) for key, value in reversed(list(items)))
    return None


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether DATA holds an object or array more than LIMIT levels below it."""
    children = _children(data)
    if children is None:
        return False
    if limit <= _RECURSIVE_DEPTH:
        return _deeper_below(children, limit)
    return _deeper_than_iterative(data, limit)


# Up to this many levels the walk recurses (a frame per level, no tuple per value: the
# common case, run on every config, state and saved plan read: a 10,000-deployment state
# in 16 ms, not 59); deeper limits walk iteratively.
_RECURSIVE_DEPTH = MAX_WRITTEN_NESTING


def _deeper_below(children: Iterable[Any], remaining: int) -> bool:
    """Whether a container holding CHILDREN, REMAINING levels above the limit, has one
    below it past the limit."""
    if remaining <= 0:
        return True
    for child in children:
        kind = type(child)
        if kind is dict:
            inner: Iterable[Any] = child.values()
        elif kind is list:
            inner = child
        elif kind in _SCALARS:
            continue
        else:
            other = _children(child)
            if other is None:
                continue
            inner = other
        if _deeper_below(inner, remaining - 1):
            return True
    return False


def _deeper_than_iterative(data: Any, limit: int) -> bool:
    pending: list[tuple[Any, int]] = [(data, 0)]
    while pending:
        node, depth = pending.pop()
        children = _children(node)
        if children is None:
            continue
        if depth >= limit:
            return True
        pending.extend(
            (child, depth + 1)
            for child in children
            if type(child) not in _SCALARS and _children(child) is not None
        )
    return False


# The types of most values: never containers, whatever the ABCs say (checked first: cheap).
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _children(node: Any) -> Iterable[Any] | None:
    """The values inside a JSON object or array (None for a scalar); exact types first,
    as an ABC `isinstance` costs several times more."""
    if type(node) is dict:
        return node.values()
    if type(node) is list:
        return node
    if isinstance(node, Mapping):
        return node.values()
    return node if isinstance(node, list) else None


def check_nesting(
    data: Any, path: Path, error: type[PlannerError], limit: int = MAX_NESTING
) -> None:
    """ERROR naming PATH (and where) when DATA nests deeper than LIMIT."""
    deep = nested_too_deep(data, limit)
    if deep is not None:
        where = ".".join(str(part) for part in deep[:6]) + ("..." if len(deep) > 6 else "")
        raise error(f"{path}: nested deeper than {limit} levels (at {where})")


def parse_nested(
    parse: Callable[[str], Any],
    text: str,
    path: Path,
    error: type[PlannerError],
    limit: int = MAX_NESTING,
) -> Any:
    """`parse(text)`, refusing a document nested deeper than LIMIT (the parser's own
    RecursionError included); the parser's other errors pass through."""
    try:
        data = parse(text)
    except RecursionError:
        raise error(f"{path}: nested deeper than {limit} levels") from None
    except ValueError as exc:
        if type(exc) is not ValueError:  # the parser's own decode error: the caller's
            raise
        digits = sys.get_int_max_str_digits()
        raise error(f"{path}: a number has more than {digits} digits") from None
    check_nesting(data, path, error, limit)
    return data
