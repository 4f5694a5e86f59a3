"""The operation log's shared rules: lines, replay, and what a replay refuses."""

from __future__ import annotations

import pytest

from planner.errors import StateError
from planner.state import StateDocument
from planner.state.oplog import Group, check_base, group_of, parse_lines, read_log, replay
from tests.state.contract import ENDPOINT, SECRET_VALUE, TENANT, sample_recorded


def based() -> StateDocument:
    doc = StateDocument.new(ENDPOINT, TENANT)
    doc.serial = 3
    return doc


def test_a_line_round_trips_and_only_a_torn_tail_is_skipped() -> None:
    """Complete lines parse back to their groups; text after the last newline, and lines
    after the last good one that do not parse, are ignored; damage before a good line is
    an error whose hint keeps the records."""
    doc = based()
    group = group_of(doc, [{"forget": "a"}])
    assert parse_lines(group.line() * 2 + '{"lin', source="log") == [group, group]
    assert parse_lines(group.line() + '{"deltas": 1}\n', source="log") == [group]
    with pytest.raises(StateError, match=r"log is damaged \(line 1\)") as caught:
        parse_lines('{"deltas": 1}\n' + group.line(), source="log")
    assert "remove" not in str(caught.value.hint) and "keep the file" in str(caught.value.hint)


@pytest.mark.parametrize(
    "tail",
    [
        b"half a line",
        '{"lineage":"x","base":3,"deltas":[{"forget":"é'.encode()[:-1],  # inside a character
        b"\x00" * 4096,
        b"\x00\x00\n\xff\xfe garbage\n\x00",
        b"\xff\xfe\n",
    ],
    ids=["torn-line", "torn-utf8", "nul", "garbage-lines", "garbage-newline"],
)
def test_every_kind_of_torn_tail_is_ignored_with_a_warning(
    tail: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    """A torn tail of any kind (a line cut anywhere, inside a UTF-8 character, NULs,
    garbage lines) is ignored and counted, with a warning naming the log."""
    group = group_of(based(), [{"forget": "a"}])
    good = group.line().encode() * 2
    parsed = read_log(good + tail, source="the.journal")
    assert (parsed.groups, parsed.kept, parsed.torn) == ([group, group], len(good), len(tail))
    assert "the.journal: ignored" in caplog.text


def test_groups_of_another_base_are_not_replayed() -> None:
    """Only groups built on the document's lineage and serial apply; the others (an older
    version's leftovers) change nothing, not even the checksum."""
    doc = based()
    doc.checksum = "sha256:before"
    stale = Group(doc.lineage, 2, [{"record": sample_recorded().model_dump(mode="json")}])
    other = Group("another-lineage", 3, [{"forget": "x"}])
    assert replay(doc, [stale, other]).deployments == {}
    assert doc.checksum == "sha256:before" and doc.replayed == 0


@pytest.mark.parametrize(
    "delta",
    [{}, {"forget": "a", "clear": "b"}, {"rename": "a"}, {"intent": {"op": "create"}}],
)
def test_a_malformed_delta_is_a_state_error(delta: dict[str, object]) -> None:
    """Deltas with no key, two keys, an unknown kind or an invalid value are refused."""
    doc = based()
    with pytest.raises(StateError, match="holds an invalid entry"):
        replay(doc, [group_of(doc, [delta])])


def test_a_secret_value_in_a_logged_record_is_refused_without_echoing_it() -> None:
    """A record whose secret is not a keyed digest is refused like a versioned write,
    and the error does not show the value."""
    doc = based()
    record = sample_recorded().model_dump(mode="json")
    record["secret_digests"] = {"OPENAI_API_KEY": SECRET_VALUE}
    with pytest.raises(StateError) as caught:
        replay(doc, [group_of(doc, [{"record": record}])])
    assert SECRET_VALUE not in str(caught.value) + " ".join(caught.value.details)


def test_check_base_refuses_an_absent_or_moved_version() -> None:
    """A group needs the stored version to be exactly its base."""
    doc = based()
    group = group_of(doc, [])
    check_base(doc, group, "here")
    with pytest.raises(StateError, match=r"serial - stored, operations recorded against 3"):
        check_base(None, group, "here")
    moved = doc.model_copy(update={"serial": 4})
    with pytest.raises(StateError, match="serial 4 stored"):
        check_base(moved, group, "here")
