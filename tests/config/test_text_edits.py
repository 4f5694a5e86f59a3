"""Values set in a config file's text: the value's own text changes, every other byte of
the file (comments, order, blank lines, quoting, indent) stays; TOML and JSON."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.config.reader import parse_raw
from planner.config.text_edits import SetValue, edited_text, with_values
from planner.errors import ConfigError
from tests.strategies import words

TOML = Path("planner.toml")
JSON = Path("planner.json")

FILE = """\
# the fleet: one line per environment
[variables.image_tag]
default = "1.0.0"   # prod pins its own

[environments.staging]
variables = { image_tag = "1.4.0" }  # promoted by CI

[environments.prod]
control_plane = { tenant_id = "33333333-3333-4333-8333-333333333333" }
pinned = 'registry.example.com/acme/hello:1.2.0' # literal quotes

[environments.prod.deployments.hello.source_revision_config]
image_uri = "registry.example.com/acme/hello:1.2.0"
"""


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """The (removed, added) line pairs and lone lines of a line diff, in order."""
    diff = difflib.ndiff(before.splitlines(), after.splitlines())
    return [(line[0], line[2:]) for line in diff if line[:1] in "-+"]


def test_a_replaced_value_keeps_its_comment_and_every_other_line() -> None:
    """Only the value's text changes: the line's key and comment, and every other line, stay."""
    after = edited_text(
        TOML, FILE, [SetValue(("environments", "staging", "variables", "image_tag"), "1.5.0")]
    )
    assert changed_lines(FILE, after) == [
        ("-", 'variables = { image_tag = "1.4.0" }  # promoted by CI'),
        ("+", 'variables = { image_tag = "1.5.0" }  # promoted by CI'),
    ]


def test_a_literal_string_keeps_its_quotes_where_it_can() -> None:
    """A value in 'literal' quotes stays so; one that holds a quote gets basic quotes."""
    loc = ("environments", "prod", "pinned")
    kept = edited_text(TOML, FILE, [SetValue(loc, "registry.example.com/acme/hello:1.4.0")])
    assert "pinned = 'registry.example.com/acme/hello:1.4.0' # literal quotes" in kept
    quoted = edited_text(TOML, FILE, [SetValue(loc, "it's")])
    assert 'pinned = "it\'s" # literal quotes' in quoted


@pytest.mark.parametrize(
    ("written", "value", "expected"),
    [
        ("'r/x:0'", "r/x:2", "'r/x:2'"),
        ("'''r/x:0'''", "r/x:2", "'''r/x:2'''"),
        ('"""r/x:0"""', "r/x:2", '"""r/x:2"""'),
        ('"r/x:0"', "r/x:2", '"r/x:2"'),
        ("'''r/x:0'''", "it's", '"it\'s"'),
        ('"""r/x:0"""', 'say "hi"', '"say \\"hi\\""'),
    ],
)
def test_a_string_keeps_its_quotes_single_or_multi_line(
    written: str, value: str, expected: str
) -> None:
    """Literal or basic, one line or three quotes: the new value is written in the old
    value's quotes, in a table and in an inline one; one those quotes cannot hold gets
    basic quotes."""
    for text, loc in (
        (f"[a]\nx = {written} # kept\n", ("a", "x")),
        (f"a = {{ x = {written} }}\n", ("a", "x")),
    ):
        after = edited_text(TOML, text, [SetValue(loc, value)])
        assert after == text.replace(written, expected)


def test_a_value_of_a_sub_table_under_a_dotted_header_is_replaced_in_place() -> None:
    """`[environments.prod.deployments.hello.source_revision_config]` is edited where it is."""
    loc = ("environments", "prod", "deployments", "hello", "source_revision_config", "image_uri")
    after = edited_text(TOML, FILE, [SetValue(loc, "registry.example.com/acme/hello:1.4.0")])
    assert after == FILE.replace('hello:1.2.0"\n', 'hello:1.4.0"\n')


def test_a_key_added_to_a_table_goes_after_its_last_key() -> None:
    """A new variable value in `[environments.prod]` is one line after its last key; the
    blank line and the tables after it stay."""
    after = edited_text(
        TOML, FILE, [SetValue(("environments", "prod", "variables", "image_tag"), "1.4.0")]
    )
    assert changed_lines(FILE, after) == [("+", 'variables = { image_tag = "1.4.0" }')]
    assert 'literal quotes\nvariables = { image_tag = "1.4.0" }\n\n[environments.prod.' in after


def test_a_key_added_to_an_inline_table_keeps_its_spacing_and_comment() -> None:
    """`{ a = "1" }` becomes `{ a = "1", b = "2" }`; the comment after it stays."""
    after = edited_text(
        TOML, FILE, [SetValue(("environments", "staging", "variables", "repo_ref"), "main")]
    )
    assert 'variables = { image_tag = "1.4.0", repo_ref = "main" }  # promoted by CI' in after


def test_an_empty_inline_table_gets_its_first_key() -> None:
    """`{}` becomes `{ a = "1" }`."""
    text = "[environments.prod]\nvariables = {}\n"
    after = edited_text(TOML, text, [SetValue(("environments", "prod", "variables", "a"), "1")])
    assert after == '[environments.prod]\nvariables = { a = "1" }\n'


def test_dotted_keys_are_edited_where_they_are_written() -> None:
    """`variables.a = "1"` inside a table is replaced on its own line."""
    text = '[environments.prod]\nvariables.a = "1" # a\nvariables.b = 2\n'
    after = edited_text(TOML, text, [SetValue(("environments", "prod", "variables", "a"), "9")])
    assert after == '[environments.prod]\nvariables.a = "9" # a\nvariables.b = 2\n'


JSON_FILE = """{
    "variables": {"image_tag": {"default": "1.0.0"}},
    "environments": {
        "staging": {"variables": {"image_tag": "1.4.0"}, "tags": ["a", "b"]},
        "prod": {
            "control_plane": {
                "tenant_id": "33333333-3333-4333-8333-333333333333"
            }
        }
    }
}"""


def test_a_json_value_is_replaced_in_place_and_no_other_byte_changes() -> None:
    """Key order, the 4-space indent, one-line objects and the missing final line break
    stay; only the value's text differs."""
    loc = ("environments", "staging", "variables", "image_tag")
    after = edited_text(JSON, JSON_FILE, [SetValue(loc, "1.5.0")])
    assert after == JSON_FILE.replace('"1.4.0"', '"1.5.0"')


def test_a_json_member_is_added_after_the_last_one_with_its_layout() -> None:
    """A member added to a multi-line object takes the indent of the one before it; a
    missing object on the way is added whole, on its own lines indented as the file is;
    a member of a one-line object stays on its line."""
    loc = ("environments", "prod", "variables", "image_tag")
    after = edited_text(JSON, JSON_FILE, [SetValue(loc, "1.4.0")])
    assert after == JSON_FILE.replace(
        '333333333333"\n            }\n',
        '333333333333"\n            },\n            "variables": {\n'
        '                "image_tag": "1.4.0"\n            }\n',
    )
    inline = edited_text(JSON, JSON_FILE, [SetValue(("variables", "x"), {"default": 1})])
    assert '"variables": {"image_tag": {"default": "1.0.0"}, "x": {"default": 1}},' in inline


def test_an_empty_json_object_gets_its_first_member() -> None:
    """`{}` becomes `{"a": "1"}`."""
    after = edited_text(
        JSON, '{"environments": {"prod": {}}}\n', [SetValue(("environments", "prod", "a"), "1")]
    )
    assert after == '{"environments": {"prod": {"a": "1"}}}\n'


@pytest.mark.parametrize("indent", ["    ", "  ", "\t"])
def test_an_empty_json_object_of_an_indented_file_gets_indented_members(indent: str) -> None:
    """In a file written with an indent, `"prod": {}` gets its member, and the object
    added under it, on their own lines, one indent deeper each, as json.dumps lays them."""
    data: dict[str, Any] = {"environments": {"prod": {}, "staging": {"variables": {"tag": "1"}}}}
    text = json.dumps(data, indent=indent) + "\n"
    after = edited_text(JSON, text, [SetValue(("environments", "prod", "variables", "tag"), "2")])
    data["environments"]["prod"] = {"variables": {"tag": "2"}}
    assert after == json.dumps(data, indent=indent) + "\n"


def test_no_edit_is_the_same_text() -> None:
    """Nothing to set: the text itself, not a rewrite of it."""
    text = "a   =   1 # odd spacing\n"
    assert edited_text(TOML, text, []) is text


def test_an_edit_through_a_value_that_is_not_a_table_is_an_error() -> None:
    """A location below a string cannot be set: an error naming the file, no text."""
    loc = ("variables", "image_tag", "default", "x")
    for path, text in ((JSON, JSON_FILE), (TOML, FILE)):
        with pytest.raises(ConfigError) as refused:
            edited_text(path, text, [SetValue(loc, 1)])
        expected = f"{path}: cannot edit the file: variables.image_tag.default is not a table"
        assert refused.value.message == expected


# What a config file holds at its leaves (no NaN: it is not equal to itself).
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12)
)


def json_documents() -> st.SearchStrategy[dict[str, Any]]:
    """Objects of objects, scalars at the leaves (what a config's tables are)."""
    return st.recursive(
        st.dictionaries(words, scalars, min_size=1, max_size=3),
        lambda children: st.dictionaries(words, children, min_size=1, max_size=3),
        max_leaves=12,
    )


def leaves(node: Any, loc: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(node, dict):
        return [found for key, value in node.items() for found in leaves(value, (*loc, key))]
    return [loc]


@settings(max_examples=60, deadline=None)
@given(json_documents(), st.sampled_from([None, 2, 4, "\t"]), st.data())
def test_a_json_edit_changes_only_the_value_it_sets(
    document: dict[str, Any], indent: int | str | None, data: st.DataObject
) -> None:
    """Whatever the layout, setting one leaf gives the data with that value set, and the
    text before and after the value's span is kept byte for byte."""
    text = json.dumps(document, indent=indent)
    loc = data.draw(st.sampled_from(leaves(document)))
    value = data.draw(scalars)
    after = edited_text(JSON, text, [SetValue(loc, value)])
    assert parse_raw(JSON, after) == with_values(document, [SetValue(loc, value)])
    old, new = json.dumps(_at(document, loc)), json.dumps(value, ensure_ascii=False)
    spans = [i for i in range(len(text)) if text.startswith(old, i)]
    assert any(after == text[:i] + new + text[i + len(old) :] for i in spans)


def _at(node: Any, loc: tuple[str, ...]) -> Any:
    for part in loc:
        node = node[part]
    return node


def test_tables_added_inside_inline_tables_are_inline_and_keys_quoted() -> None:
    """Environments written as inline tables get their missing table inline, a key that
    is not a bare word quoted; an implicit table of sub-tables gets its own header."""
    text = '[environments]\nprod = {}\ndev = { control_plane = { tenant_id = "x" } }   # dev\n'
    after = edited_text(
        TOML,
        text,
        [
            SetValue(("environments", "prod", "variables", "tag"), "2"),
            SetValue(("environments", "dev", "variables", "a b"), 3),
        ],
    )
    assert after == (
        '[environments]\nprod = { variables = { tag = "2" } }\n'
        'dev = { control_plane = { tenant_id = "x" }, variables = { "a b" = 3 } }   # dev\n'
    )
    implicit = "[environments.prod.deployments.x.source_config]\nmax = 2\n"
    added = edited_text(TOML, implicit, [SetValue(("environments", "prod", "variables", "t"), "1")])
    assert parse_raw(TOML, added)["environments"]["prod"]["variables"] == {"t": "1"}
    assert added.endswith(implicit)


def test_several_json_members_added_to_one_object_are_one_addition() -> None:
    """Two values under one missing object make one object holding both; two keys added
    to an empty object are both inside it, in the order given."""
    edits = [
        SetValue(("environments", "prod", "variables", "a"), "1"),
        SetValue(("environments", "prod", "variables", "b"), 2),
        SetValue(("environments", "dev", "x"), True),
        SetValue(("environments", "dev", "y"), None),
    ]
    text = '{"environments": {"prod": {"control_plane": {}}, "dev": {}}}'
    after = edited_text(JSON, text, edits)
    assert after == (
        '{"environments": {"prod": {"control_plane": {}, "variables": {"a": "1", "b": 2}}, '
        '"dev": {"x": true, "y": null}}}'
    )
