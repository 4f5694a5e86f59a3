"""The contract every state backend passes (Terraform's `statemgr.TestFull`).

Use it by subclassing `BackendContract` in a test module and providing a `harness`
fixture that returns a `Harness` for a fresh, empty store.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from planner.errors import StateError, StateLockedError
from planner.secrets import digest_key, secret_digest
from planner.state import RecordedDeployment, StateBackend, StateDocument
from planner.state.locking import LockHandle

ENDPOINT = "http://127.0.0.1:8123"
TENANT = "00000000-0000-4000-8000-000000000001"
SECRET_VALUE = "sk-contract-secret-value-0123456789"


@dataclass
class Harness:
    """A backend on a fresh store, plus what the contract needs to poke at it.

    `peer()` opens a second backend on the same store (another process, for a file);
    `edit_stored(fn)` changes the stored JSON object in place without fixing the checksum;
    `stored_text()` is the raw stored text.
    """

    backend: StateBackend
    peer: Callable[[], StateBackend]
    edit_stored: Callable[[Callable[[dict[str, Any]], None]], None]
    stored_text: Callable[[], str]


def sample_recorded(name: str = "support-agent") -> RecordedDeployment:
    key = digest_key("test-api-key", "lineage")
    return RecordedDeployment(
        name=name,
        id="6f1c2c1e-0000-4000-8000-0000000000aa",
        managed={"source": "git_host", "source_config": {"build_on_push": False}},
        secret_digests={"OPENAI_API_KEY": secret_digest(key, "OPENAI_API_KEY", SECRET_VALUE)},
        latest_revision_id="6f1c2c1e-0000-4000-8000-0000000000bb",
    )


class BackendContract:
    """Behaviour every StateBackend must have."""

    def test_read_absent_is_none(self, harness: Harness) -> None:
        """An empty store reads as None, not as an empty document."""
        assert harness.backend.read() is None

    def test_round_trip(self, harness: Harness) -> None:
        """A written document reads back equal, deployments and intents included."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        doc.record(sample_recorded())
        doc.add_intent("create", "billing-agent")
        written = harness.backend.write(doc)
        read = harness.backend.read()
        assert read == written
        assert read is not None
        assert read.deployments["support-agent"] == sample_recorded()
        assert [entry.name for entry in read.pending] == ["billing-agent"]

    def test_serial_increments_and_lineage_kept(self, harness: Harness) -> None:
        """Every write bumps the serial by one and keeps the lineage."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        written = [harness.backend.write(doc) for _ in range(3)]
        assert [entry.serial for entry in written] == [1, 2, 3]
        assert {entry.lineage for entry in written} == {doc.lineage}
        stored = harness.backend.read()
        assert stored is not None
        assert (stored.serial, stored.lineage) == (3, doc.lineage)

    def test_stale_serial_refused(self, harness: Harness) -> None:
        """Writing a document older than the stored one fails: someone wrote in between."""
        base = harness.backend.write(StateDocument.new(ENDPOINT, TENANT))
        theirs, ours = base.model_copy(deep=True), base.model_copy(deep=True)
        harness.peer().write(theirs)
        with pytest.raises(StateError, match="changed since it was read"):
            harness.backend.write(ours)

    def test_same_document_written_again(self, harness: Harness) -> None:
        """A write advances the document it was given, so it can be changed and written again."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        doc.add_intent("create", "support-agent")
        harness.backend.write(doc)
        assert doc.serial == 1
        doc.record(sample_recorded())
        doc.clear_intent(doc.pending[0])
        written = harness.backend.write(doc)
        assert (doc.serial, written.serial, written.pending) == (2, 2, [])
        assert harness.backend.read() == written

    def test_other_lineage_refused(self, harness: Harness) -> None:
        """A different state cannot be written over an existing one."""
        harness.backend.write(StateDocument.new(ENDPOINT, TENANT))
        with pytest.raises(StateError, match="different state"):
            harness.backend.write(StateDocument.new(ENDPOINT, TENANT))

    def test_checksum_detects_edits(self, harness: Harness) -> None:
        """A hand edit of the stored body is reported as a checksum mismatch."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        doc.record(sample_recorded())
        harness.backend.write(harness.backend.write(doc))

        def edit(raw: dict[str, Any]) -> None:
            raw["deployments"]["support-agent"]["id"] = "someone-else"

        harness.edit_stored(edit)
        with pytest.raises(StateError, match="checksum mismatch") as caught:
            harness.backend.read()
        assert caught.value.hint is not None
        assert ".backup" in caught.value.hint

    def test_no_secret_value_stored(self, harness: Harness) -> None:
        """The stored text holds neither the secret value nor its plain sha256."""
        import hashlib

        doc = StateDocument.new(ENDPOINT, TENANT)
        doc.record(sample_recorded())
        harness.backend.write(doc)
        text = harness.stored_text()
        assert "OPENAI_API_KEY" in text
        assert SECRET_VALUE not in text
        assert hashlib.sha256(SECRET_VALUE.encode()).hexdigest() not in text

    def test_lock_exclusive_across_handles(self, harness: Harness) -> None:
        """While one handle holds the lock, another fails at once, naming the holder."""
        with harness.backend.lock("apply") as held:
            with pytest.raises(StateLockedError) as caught:
                harness.peer().lock("plan")
            message = "\n".join(caught.value.details)
            assert held.info.id in message
            assert "apply" in message
            assert f"planner unlock {held.info.id}" in (caught.value.hint or "")
        with harness.peer().lock("plan") as again:
            assert again.info.operation == "plan"

    def test_lock_info_names_live_holder_only(self, harness: Harness) -> None:
        """lock_info is the holder while held and None once released."""
        assert harness.backend.lock_info() is None
        with harness.backend.lock("destroy") as held:
            info = harness.peer().lock_info()
            assert info is not None
            assert (info.id, info.operation) == (held.info.id, "destroy")
        assert harness.backend.lock_info() is None

    def test_lock_timeout_waits_for_release(self, harness: Harness) -> None:
        """A contender with a timeout gets the lock once the holder releases it."""
        held = harness.backend.lock("apply")
        releaser = threading.Timer(0.2, held.release)
        releaser.start()
        try:
            with harness.peer().lock("plan", timeout=10) as handle:
                assert handle.is_held
        finally:
            releaser.join()
        assert not held.is_held

    def test_lock_timeout_expires(self, harness: Harness) -> None:
        """A contender whose timeout passes gets StateLockedError saying it waited."""
        with harness.backend.lock("apply"), pytest.raises(StateLockedError) as caught:
            harness.peer().lock("plan", timeout=0.15)
        assert any("waited" in line for line in caught.value.details)

    def test_force_unlock_refuses_live_holder(self, harness: Harness) -> None:
        """force_unlock of a lock a live holder has is refused, and the lock stays."""
        with harness.backend.lock("apply") as held:
            with pytest.raises(StateLockedError, match="running process"):
                harness.peer().force_unlock(held.info.id)
            assert harness.peer().lock_info() == held.info

    def test_force_unlock_wrong_id_refused(self, harness: Harness) -> None:
        """force_unlock with an id that is not the recorded lock's is refused."""
        handle = harness.backend.lock("apply")
        handle.abandon()
        with pytest.raises(StateError, match="does not match") as caught:
            harness.peer().force_unlock("not-the-id")
        assert handle.info.id in (caught.value.hint or "")

    def test_force_unlock_clears_abandoned_lock(self, harness: Harness) -> None:
        """A lock left by a dead holder does not block, and force_unlock clears its info."""
        handle: LockHandle = harness.backend.lock("apply")
        handle.abandon()
        with harness.peer().lock("plan") as again:
            assert again.info.operation == "plan"
        abandoned = harness.backend.lock("import")
        abandoned.abandon()
        cleared = harness.peer().force_unlock(abandoned.info.id)
        assert cleared.id == abandoned.info.id
        with pytest.raises(StateError, match="not locked"):
            harness.peer().force_unlock(abandoned.info.id)

    def test_foreign_format_version_refused(self, harness: Harness) -> None:
        """A state of an unknown format version is refused, naming the version."""
        harness.backend.write(StateDocument.new(ENDPOINT, TENANT))

        def bump(raw: dict[str, Any]) -> None:
            raw["format_version"] = 99

        harness.edit_stored(bump)
        with pytest.raises(StateError, match="format_version 99"):
            harness.backend.read()


def edit_json_text(text: str, edit: Callable[[dict[str, Any]], None]) -> str:
    """Apply EDIT to a JSON object held as text, keeping the stale checksum."""
    raw = json.loads(text)
    edit(raw)
    return json.dumps(raw, indent=2)
