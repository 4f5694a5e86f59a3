"""The state's JSON written in pieces (entry by entry): byte for byte what json.dumps makes
of the whole, checksum included, and validated as a whole document would be."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner import __version__
from planner.errors import StateError
from planner.state import LocalFileBackend, RecordedDeployment, StateDocument
from planner.state import document as state_document
from planner.state.document import (
    PendingIntent,
    checksum_of,
    dump_state,
    sealed,
)
from planner.state.json_chunks import canonical_chunks, indented_chunks
from planner.state.localfile import write_atomic
from tests.state.contract import ENDPOINT, TENANT, sample_recorded

_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=8)
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


def _canonical(body: Any) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _indented(body: Any) -> str:
    return json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False)


@settings(max_examples=300)
@given(st.dictionaries(_TEXT, _VALUES, max_size=6))
def test_pieces_join_to_json_dumps(body: dict[str, Any]) -> None:
    """Any JSON object, whatever its nesting, empty containers and characters: the pieces
    joined are exactly json.dumps' canonical and indented texts."""
    assert "".join(canonical_chunks(body)) == _canonical(body)
    assert "".join(indented_chunks(body)) == _indented(body)


@pytest.mark.parametrize(
    "entry",
    [
        {"b": {2: "int key", 1: [True, 1.5, float("inf"), None]}, "a": ("tuple", [])},
        {"x": {"y": {"z": [{}, [], 'é\u2028\n"', -0.0, 10**20]}}},
    ],
)
def test_entries_of_any_json_kind_are_indented_as_json_dumps(entry: dict[str, Any]) -> None:
    """Keys that are not strings (json converts them), tuples, infinities, escapes: the
    entries of a top-level object are written as json.dumps writes them."""
    body = {"deployments": {"d": entry}, "pending": [entry]}
    assert "".join(indented_chunks(body)) == _indented(body)


def _recorded(index: int) -> RecordedDeployment:
    name = f"agent-é-{index:03d}" if index % 3 else f"Agent\n{index}"  # sorts, escapes
    return sample_recorded(name).model_copy(
        update={"managed": {"source": "git_host", "env": {"K": f"v\u2603{index}", "L": []}}}
    )


def _large(count: int, intents: int) -> StateDocument:
    doc = StateDocument.new(ENDPOINT, TENANT)
    for index in reversed(range(count)):  # inserted out of order: written sorted
        doc.record(_recorded(index))
    for index in range(intents):
        doc.add_intent("update", f"agent-{index}", deployment_id="d", details={"n": index})
    return doc


def _reference_text(doc: StateDocument, serial: int) -> str:
    """What a state's file held before it was written in pieces: a validated copy of the
    whole body, its canonical JSON hashed, the whole dumped indented."""
    body = doc.model_dump(mode="json", exclude={"checksum"})
    body.update(serial=serial, tool_version=__version__)
    copy = StateDocument.model_validate(body).model_dump(mode="json", exclude={"checksum"})
    checksum = "sha256:" + hashlib.sha256(_canonical(copy).encode("utf-8")).hexdigest()
    return _indented({**copy, "checksum": checksum}) + "\n"


@pytest.mark.parametrize(("count", "intents"), [(0, 0), (1, 0), (0, 2), (7, 3)])
def test_sealed_text_is_the_whole_document_dump(
    count: int, intents: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file text and checksum of a sealed document are byte for byte those of the
    whole document dumped at once, validated in batches smaller than the document."""
    monkeypatch.setattr(state_document, "_SEAL_BATCH", 2)
    doc = _large(count, intents)
    written = sealed(doc, 5)
    assert dump_state(written) == _reference_text(doc, 5)
    assert written.checksum == checksum_of(written)
    assert json.loads(dump_state(written))["checksum"] == written.checksum


def test_sealed_shares_entries_not_containers() -> None:
    """The sealed document holds DOC's entries in containers of its own; DOC is unchanged
    and changing it afterwards does not change what was sealed."""
    doc = _large(3, 1)
    before = doc.model_dump()
    written = sealed(doc, 9)
    assert doc.model_dump() == before
    assert (written.serial, doc.serial) == (9, 0)
    assert written.deployments == doc.deployments
    assert written.deployments is not doc.deployments and written.pending is not doc.pending
    doc.forget(next(iter(doc.deployments)))
    doc.add_intent("create", "late")
    assert len(written.deployments) == 3 and len(written.pending) == 1
    assert written.checksum == checksum_of(written)


def test_snapshot_is_apart_from_later_changes() -> None:
    """A snapshot keeps what the document held when it was taken, and its own changes
    log (none): a record or intent made afterwards is not in it."""
    doc = _large(2, 1)
    doc.track_changes()
    held = doc.model_dump()
    copy = doc.snapshot()
    doc.record(_recorded(7))
    doc.add_intent("create", "later")
    assert copy.take_changes() == [] and len(doc.take_changes()) == 2
    assert copy.model_dump() == held


# entries of the wrong type (set past validation) warn as they are dumped, as they always did
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
def test_invalid_entries_of_every_batch_reported_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validated a batch at a time, problems keep the whole document's paths (an intent's
    index in the whole list), each reported once however many batches repeat it."""
    monkeypatch.setattr(state_document, "_SEAL_BATCH", 2)
    doc = _large(5, 0)
    doc.deployments["agent-é-004"] = _recorded(4).model_copy(update={"id": 7})
    doc.pending = [
        *(PendingIntent(op="create", name=f"n{i}", started_at="t") for i in range(4)),
        PendingIntent.model_construct(op="create", name="n4", started_at=None),  # type: ignore[arg-type]
    ]
    with pytest.raises(StateError, match="invalid state") as caught:
        sealed(doc, -1)
    details = caught.value.details
    assert details.count("serial: Input should be greater than or equal to 0") == 1
    assert "deployments.agent-é-004.id: Input should be a valid string" in details
    assert "pending.4.started_at: Input should be a valid string" in details
    assert len(details) == 3
    doc = _large(5, 0)
    doc.deployments["agent-é-001"].secret_digests["K"] = "plain"
    with pytest.raises(StateError, match="invalid state") as caught:
        sealed(doc, 1)
    assert caught.value.details == [
        "deployments: Value error, agent-é-001: secret K is not a keyed digest (hmac-sha256)"
    ]


def test_write_atomic_writes_pieces_as_one_file(tmp_path: Path) -> None:
    """A text given in pieces is the file's whole content, written atomically (no temp
    file left), whatever the pieces' sizes."""
    target = tmp_path / "s.json"
    pieces = ["{", "é" * 300_000, "\u2603", "}\n"]
    write_atomic(target, iter(pieces))
    assert target.read_text(encoding="utf-8") == "".join(pieces)
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_failing_piece_leaves_the_old_file(tmp_path: Path) -> None:
    """A text whose pieces fail half way leaves the previous file as it was."""
    target = tmp_path / "s.json"
    write_atomic(target, "old\n")

    def pieces() -> Any:
        yield "new"
        raise ValueError("broken")

    with pytest.raises(ValueError, match="broken"):
        write_atomic(target, pieces())
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_file_write_is_the_whole_dump(tmp_path: Path) -> None:
    """A state file written in pieces holds exactly `dump_state` of what was written, and
    reads back with its checksum verified."""
    backend = LocalFileBackend(tmp_path / "s.state.json")
    doc = _large(30, 2)
    written = backend.write(doc)
    assert (tmp_path / "s.state.json").read_text(encoding="utf-8") == _reference_text(doc, 1)
    assert backend.read() == written


def test_only_a_sealed_document_is_dumped() -> None:
    """A document without a checksum (never sealed) has no file text."""
    with pytest.raises(ValueError, match="sealed document"):
        dump_state(StateDocument.new(ENDPOINT, TENANT))
