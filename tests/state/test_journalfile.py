"""The operation log beside a state file: torn tails of every kind, and appends that the
disk does not take whole."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from planner.state import LocalFileBackend, StateDocument
from planner.state.oplog import group_of
from tests.state.contract import sample_recorded
from tests.state.test_localfile import _logged

TAILS = {
    "torn-utf8": '{"lineage":"x","base":1,"deltas":[{"forget":"é'.encode()[:-1],
    "nul": b"\x00" * 512,
    "garbage": b"\xff\xfe\x00 garbage\n\x00\x00",
}


def logged(state_path: Path, *names: str) -> StateDocument:
    """A state file at version 1 and one journal line per name recorded after it."""
    return _logged(state_path, *names)[1]


@pytest.mark.parametrize("tail", TAILS.values(), ids=TAILS.keys())
def test_a_torn_tail_is_read_past_with_a_warning_then_cut_off(
    tmp_path: Path, tail: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    """A journal ending inside a UTF-8 character, in NULs or in garbage lines is read up
    to its last complete record with a warning naming it; the next append cuts the tail
    off and keeps every record."""
    state_path = tmp_path / "planner.state.json"
    doc = logged(state_path, "a-agent")
    journal = state_path.with_name(state_path.name + ".journal")
    with journal.open("ab") as handle:
        handle.write(tail)
    stored = LocalFileBackend(state_path).read()
    assert stored is not None and set(stored.deployments) == {"a-agent"}
    assert f"{journal}: ignored {len(tail)} byte(s)" in caplog.text
    doc.record(sample_recorded("b-agent"))
    LocalFileBackend(state_path).append(group_of(doc, doc.take_changes()))
    stored = LocalFileBackend(state_path).read()
    assert stored is not None and set(stored.deployments) == {"a-agent", "b-agent"}
    assert journal.read_bytes().count(b"\n") == 2 and b"\x00" not in journal.read_bytes()


SHORT_APPEND = """
import resource, signal, sys
from planner.errors import StateError
from planner.state import LocalFileBackend
from planner.state.oplog import group_of
from tests.state.contract import sample_recorded
backend = LocalFileBackend(sys.argv[1])
doc = backend.read()
doc.track_changes()
doc.record(sample_recorded("b-agent"))
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]),) * 2)
try:
    backend.append(group_of(doc, doc.take_changes()))
except StateError as error:
    print(error.message)
"""


@pytest.mark.slow
def test_a_short_append_is_an_error_naming_the_journal_and_is_cut_back(tmp_path: Path) -> None:
    """An append the file size limit cuts short raises, naming the journal and the short
    write, and leaves the journal as it was (no torn line)."""
    state_path = tmp_path / "planner.state.json"
    logged(state_path, "a-agent")
    journal = state_path.with_name(state_path.name + ".journal")
    before = journal.read_bytes()
    done = subprocess.run(
        [sys.executable, "-c", SHORT_APPEND, str(state_path), str(len(before) + 10)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.startswith(f"{journal}: cannot append to the operation log: short write")
    assert journal.read_bytes() == before
