"""Reading the file: TOML or JSON by extension, errors that name the file and position."""

from __future__ import annotations

import datetime as dt
import importlib
import sys
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.config import reader
from planner.config.reader import read_raw
from planner.errors import ConfigError


def test_missing_file_names_the_file(in_tmp: Path) -> None:
    """A missing config file is a ConfigError naming it, with a hint to pass -c."""
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("nope.toml"))
    assert caught.value.message == "nope.toml: config file not found"
    assert caught.value.hint is not None and "-c FILE" in caught.value.hint


def test_unreadable_file_names_the_file(in_tmp: Path) -> None:
    """A path that cannot be read as a file (a directory) is an error naming it."""
    (in_tmp / "dir.toml").mkdir()
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("dir.toml"))
    assert caught.value.message.startswith("dir.toml: cannot read config file")


def test_unsupported_extension_is_an_error(in_tmp: Path) -> None:
    """Only .toml and .json are read; any other extension is named in the error."""
    (in_tmp / "planner.yaml").write_text("a: 1\n")
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("planner.yaml"))
    assert caught.value.message == "planner.yaml: unsupported config file type '.yaml'"


def test_toml_syntax_error_has_line_and_column(in_tmp: Path) -> None:
    """A TOML syntax error names the file, line and column."""
    (in_tmp / "planner.toml").write_text('[control_plane]\nbase_url = "x"\ntenant_id = \n')
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("planner.toml"))
    assert caught.value.message.startswith("planner.toml:3:")
    assert "invalid TOML" in caught.value.message


def test_a_byte_order_mark_is_named_in_the_hint(in_tmp: Path) -> None:
    """A file saved with a BOM gets tomli's error at 1:1 and a hint that names the BOM;
    an error elsewhere in such a file does not blame it."""
    (in_tmp / "planner.toml").write_text("\ufeff[control_plane]\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("planner.toml"))
    assert caught.value.message.startswith("planner.toml:1:1: invalid TOML")
    assert caught.value.hint is not None and "byte order mark" in caught.value.hint
    (in_tmp / "planner.toml").write_text("[control_plane]\ntenant_id = \n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("planner.toml"))
    assert caught.value.hint is None


def test_json_syntax_error_has_line_and_column(in_tmp: Path) -> None:
    """A JSON syntax error names the file, line and column."""
    (in_tmp / "planner.json").write_text('{\n  "deployments": {,}\n}\n')
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("planner.json"))
    assert caught.value.message.startswith("planner.json:2:19: invalid JSON:")


def test_json_top_level_must_be_an_object(in_tmp: Path) -> None:
    """A JSON file whose top level is not an object is rejected."""
    (in_tmp / "planner.json").write_text("[1, 2]")
    with pytest.raises(ConfigError) as caught:
        read_raw(Path("planner.json"))
    assert "top level must be an object" in caught.value.message


def test_json_duplicate_keys_are_remembered(in_tmp: Path) -> None:
    """Repeated JSON keys keep the last value and are recorded for the walk to report."""
    (in_tmp / "planner.json").write_text('{"deployments": {"a": {}, "a": {"source": "x"}}}')
    data = read_raw(Path("planner.json"))
    assert data["deployments"]["a"] == {"source": "x"}
    assert data["deployments"].duplicates == ["a"]


@pytest.mark.parametrize(
    "text",
    ['[t]\nb = "\\q"\n', "a = 1\na = 2\n", "x = [1,\n", "[deployments.api]\nsource = 'git_host'\n"],
)
def test_without_tomli_the_standard_library_reads_the_file_alike(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """Where tomli is not installed, the standard library's tomllib parses the file: the
    same data, and a broken file reported with the same message and position."""
    path = in_tmp / "planner.toml"
    path.write_text(text, encoding="utf-8")

    def outcome() -> object:
        try:
            return reader.read_raw(path)
        except ConfigError as error:
            return error.message

    assert reader.TOML_PARSER == "tomli"
    with_tomli = outcome()
    monkeypatch.setitem(sys.modules, "tomli", None)  # `import tomli` raises ImportError
    try:
        importlib.reload(reader)
        assert reader.TOML_PARSER == "tomllib"
        assert outcome() == with_tomli
    finally:
        monkeypatch.undo()
        importlib.reload(reader)
    assert reader.TOML_PARSER == "tomli"


# Text where the two TOML parsers could part: order of tables defined out of order, dotted
# keys, TOML 1.1 forms, numbers at and past 64 bits, special floats, dates, a byte-order
# mark, nesting past rtoml's own depth limit, and broken files (tomli's message must stay).
_TRICKY_TOML = [
    '[deployments.b.source_config]\nx = 1\n[deployments.a]\ny = 2\n[deployments.b]\nz = "3"\n',
    'a.b.c = 1\na.d = "x"\n[e]\nf.g = [1, 2.5, "h", {i = true}]\n',
    "[[t]]\nx = 1\n[[t]]\nx = 2\n[t.sub]\ny = 3\n",
    'a = {b = 1,\n c = 2}\nd = "\\e\\x41"\nt = 07:32\n',
    "a = 18446744073709551615\nb = -9223372036854775809\nc = 99999999999999999999\n",
    "a = 1e400\nb = nan\nc = -0.0\nd = -inf\ne = 0x_1\n",
    "a = " + "9" * 5000 + "\n",
    "a = 1979-05-27T07:32:00Z\nb = 1979-05-27\nc = 07:32:00\nd = 1979-05-27T07:32:00\n",
    '\ufeffa = "with a byte-order mark"\n',
    "a = " + "[" * 120 + "]" * 120 + "\n",
    "a = " + "{b = " * 60 + "1" + "}" * 60 + "\n",
    "a = " + "[" * 2000 + "]" * 2000 + "\n",
    'a = "x"\na = "y"\n',
    "[t]\n[t]\n",
    "x = \"\"\"\nline\\\n  more\"\"\"\ny = '''raw\\n'''\n",
    "a = 1__0\n",
    'a = "\\ud800"\n',
    "a = 1\r\nb = 2\r\n",
]


def _both_parsers(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    """What read_raw makes of PATH with rtoml first, and with tomli alone: its data (or
    its error message), with the exact type of every value."""

    def outcome() -> object:
        try:
            return _typed(reader.read_raw(path))
        except ConfigError as error:
            return error.message

    fast = outcome()
    monkeypatch.setattr(reader, "_fast_loads", None)
    return fast, outcome()


def _typed(value: object) -> object:
    """VALUE with each part's exact type and each table's key order made comparable."""
    if isinstance(value, dict):
        return (type(value), [(key, _typed(item)) for key, item in value.items()])
    if isinstance(value, list):
        return (list, [_typed(item) for item in value])
    if isinstance(value, float):
        return (float, repr(value))  # nan and -0.0 compare by their text
    if isinstance(value, dt.datetime):  # the offset's class differs; its value may not
        return (dt.datetime, value.replace(tzinfo=None), value.utcoffset())
    return (type(value), value)


@pytest.mark.parametrize("text", _TRICKY_TOML)
def test_rtoml_reads_toml_as_tomli_does(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """With rtoml installed a file reads as tomli reads it: the same values of the same
    types in the same order, and a broken file the same message and position."""
    assert reader._fast_loads is not None
    path = in_tmp / "planner.toml"
    path.write_text(text, encoding="utf-8", newline="")
    fast, tomli_only = _both_parsers(path, monkeypatch)
    assert fast == tomli_only


_toml_keys = st.text(st.characters(codec="utf-8"), max_size=6)
_toml_scalars = (
    st.text(st.characters(codec="utf-8"), max_size=8)
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=False)
    | st.booleans()
)
_toml_values = st.recursive(
    _toml_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_toml_keys, inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(_toml_keys, _toml_values, max_size=5), st.booleans())
def test_rtoml_and_tomli_agree_on_generated_files(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, data: dict[str, object], inline: bool
) -> None:
    """Any document tomli_w writes (tables or inline tables) reads the same through rtoml
    as through tomli."""
    path = in_tmp / "planner.toml"
    try:
        text = tomli_w.dumps(data, multiline_strings=inline)
    except (TypeError, ValueError):  # what TOML cannot hold
        return
    path.write_text(text, encoding="utf-8", newline="")
    with monkeypatch.context() as patched:
        fast, tomli_only = _both_parsers(path, patched)
    assert fast == tomli_only


_header_keys = st.lists(
    st.sampled_from(["a", "b", "c", "b-c", '"a"', " b "]), min_size=1, max_size=3
)
_toml_lines = st.one_of(
    _header_keys.map(lambda key: f"[{'.'.join(key)}]"),
    _header_keys.map(lambda key: f"[[{'.'.join(key)}]]"),
    st.tuples(_header_keys, st.integers(0, 9)).map(lambda kv: f"{'.'.join(kv[0])} = {kv[1]}"),
    _header_keys.map(lambda key: f"{key[0]} = {{ {'.'.join(key)} = 1 }}"),
)


@settings(max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_toml_lines, min_size=1, max_size=8))
def test_tables_in_any_order_read_as_tomli_reads_them(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str]
) -> None:
    """Tables, arrays of tables and dotted keys in any order (sub-tables before their
    parents included) keep tomli's order of keys."""
    path = in_tmp / "planner.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with monkeypatch.context() as patched:
        fast, tomli_only = _both_parsers(path, patched)
    assert fast == tomli_only


@pytest.mark.parametrize(
    ("text", "in_order"),
    [
        ('[defaults.a.b]\nx = 1\n[deployments.s-1]\nsource = "x"\n[deployments.s-1.c]\n', True),
        ("[[t]]\nx = 1\n[[t]]\nx = 2\n[u]\n", True),
        ("[a.b.c]\n[a.x]\n[a.b]\n", False),  # `b` given a header after `a.b.c` made it
        ("[[t]]\n[t.sub]\n[[t]]\n", False),
        ('[a."b.c"]\n', False),  # quoted keys: tomli
        ("[a] # comment\n", False),
        ("  [a]\n", False),
        ("x = [\n[1],\n]\n", False),
    ],
)
def test_which_files_rtoml_reads(text: str, in_order: bool) -> None:
    """rtoml reads a file whose headers are simple and in order (a large fleet's are);
    anything else is tomli's to read."""
    assert reader._in_order(text) is in_order


def test_without_rtoml_tomli_reads_every_file(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where rtoml is not installed (no wheel for the platform), tomli reads the file."""
    path = in_tmp / "planner.toml"
    path.write_text('[deployments.api]\nsource = "git_host"\n', encoding="utf-8")
    monkeypatch.setitem(sys.modules, "rtoml", None)  # `import rtoml` raises ImportError
    try:
        importlib.reload(reader)
        assert reader._fast_loads is None
        assert reader.read_raw(path) == {"deployments": {"api": {"source": "git_host"}}}
    finally:
        monkeypatch.undo()
        importlib.reload(reader)
    assert reader._fast_loads is not None
