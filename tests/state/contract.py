"""The contract every state backend passes (Terraform's `statemgr.TestFull`).

Use it by subclassing `BackendContract` in a test module and providing a `harness`
fixture that returns a `Harness` for a fresh, empty store.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest

from planner.errors import LockLostError, StateError, StateLockedError
from planner.secrets import digest_key, secret_digest
from planner.state import RecordedDeployment, StateBackend, StateDocument
from planner.state.document import FORMAT_VERSION, utc_now
from planner.state.holds import held, new_hold, released
from planner.state.inmemory import InMemoryBackend
from planner.state.lease import DEFAULT_LEASE_SECONDS
from planner.state.locking import LockHandle
from planner.state.oplog import group_of
from planner.state.versions import push, rollback

ENDPOINT = "http://127.0.0.1:8123"
TENANT = "00000000-0000-4000-8000-000000000001"
SECRET_VALUE = "sk-contract-secret-value-0123456789"
HOLD = new_hold("6f1c2c1e-0000-4000-8000-0000000000cc", "ops@laptop", utc_now())


@dataclass
class Harness:
    """A backend on a fresh store, plus what the contract needs to poke at it.

    `peer()` opens a second backend on the same store (another process, for a file);
    `edit_stored(fn)` changes the stored JSON object in place without fixing the checksum;
    `stored_text()` is the raw stored text; `other_state()` a backend of another state
    in the same store (another file in the directory, another name in the database).
    `full_history`: every version is kept (not only the current one and the one before).
    """

    backend: StateBackend
    peer: Callable[[], StateBackend]
    edit_stored: Callable[[Callable[[dict[str, Any]], None]], None]
    stored_text: Callable[[], str]
    other_state: Callable[[], StateBackend]
    full_history: bool = True


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
        assert ".backup" in caught.value.hint or "state rollback" in caught.value.hint

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
        """A contender with a timeout says once, while it waits, who holds the lock (the
        holder's record, not its own), then gets the lock once the holder releases it."""
        held = harness.backend.lock("apply")
        releaser = threading.Timer(0.3, held.release)
        notices: list[list[str]] = []
        releaser.start()
        try:
            with harness.peer().lock("plan", timeout=10, on_wait=notices.append) as handle:
                assert handle.is_held
        finally:
            releaser.join()
        assert not held.is_held
        assert len(notices) == 1
        assert notices[0][0].startswith("Waiting up to 10 s for the state lock")
        said = "\n".join(notices[0])
        assert held.info.id in said and "apply" in said and handle.info.id not in said
        assert said.count("held by") == 1

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
        """A lock left by a dead holder is taken once its lease ran out, and force_unlock
        clears its info."""
        handle: LockHandle = harness.backend.lock("apply", lease=0.2)
        handle.abandon()
        with harness.peer().lock("plan") as again:
            assert again.info.operation == "plan"
        abandoned = harness.backend.lock("import", lease=0.2)
        abandoned.abandon()
        cleared = harness.peer().force_unlock(abandoned.info.id)
        assert cleared.id == abandoned.info.id
        with pytest.raises(StateError, match="not locked"):
            harness.peer().force_unlock(abandoned.info.id)

    def test_takeover_waits_out_the_vanished_holders_lease(self, harness: Harness) -> None:
        """A lock whose holder vanished without releasing it is taken only once that
        holder's lease (recorded with the lock) has run out, one generation later."""
        locked_at = utc_now()  # the lease counts from the last renewal, at or after this
        left = harness.backend.lock("apply", lease=0.4)
        left.abandon()
        with harness.peer().lock("apply") as taken:
            assert utc_now() >= locked_at + timedelta(seconds=0.4)
            assert taken.info.generation == left.info.generation + 1
            assert taken.info.lease == DEFAULT_LEASE_SECONDS

    def test_write_of_an_older_lock_generation_is_refused(self, harness: Harness) -> None:
        """Once another holder took the lock over, the old holder's writes and appends
        are refused naming both generations, and the new holder's state stands."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        old = harness.backend.lock("apply", lease=0.2)
        harness.backend.write(doc)
        old.abandon()  # it stalls; its lease runs out and another run takes over
        successor = harness.peer()
        with successor.lock("apply") as new:
            current = successor.read()
            assert current is not None
            current.record(sample_recorded())
            successor.write(current)
            doc.track_changes()
            doc.add_intent("create", "late-create")
            with pytest.raises(LockLostError, match="taken over") as caught:
                harness.backend.append(group_of(doc, doc.take_changes()))
            assert f"generation {new.info.generation} holds it" in caught.value.message
            with pytest.raises(LockLostError, match=f"generation {old.info.generation}"):
                harness.backend.write(doc)
        stored = harness.backend.read()
        assert stored is not None and list(stored.deployments) == ["support-agent"]
        assert stored.pending == []

    def test_reads_need_no_lock(self, harness: Harness) -> None:
        """While a writer holds the lock, six readers at once read the same snapshot and
        the live holder, and none of them touches the lock."""
        harness.backend.write(StateDocument.new(ENDPOINT, TENANT))
        seen: list[tuple[int, str | None]] = []
        with harness.backend.lock("apply") as held:

            def read() -> None:
                reader = harness.peer()
                try:
                    doc, info = reader.read(), reader.lock_info()
                    assert doc is not None
                    seen.append((doc.serial, info.id if info else None))
                finally:
                    reader.close()

            threads = [threading.Thread(target=read) for _ in range(6)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=30)
            assert harness.backend.lock_info() == held.info
        assert seen == [(1, held.info.id)] * 6

    def test_foreign_format_version_refused(self, harness: Harness) -> None:
        """A state of an unknown format version is refused, naming the version."""
        harness.backend.write(StateDocument.new(ENDPOINT, TENANT))

        def bump(raw: dict[str, Any]) -> None:
            raw["format_version"] = 99

        harness.edit_stored(bump)
        with pytest.raises(StateError, match="format_version 99"):
            harness.backend.read()

    def test_concurrent_writers_never_both_succeed(self, harness: Harness) -> None:
        """Of writers that read the same serial and write at once, exactly one succeeds."""
        base = harness.backend.write(StateDocument.new(ENDPOINT, TENANT))
        outcomes: list[str] = []
        barrier = threading.Barrier(4)

        def write_copy() -> None:
            peer = harness.peer()
            barrier.wait()
            try:
                peer.write(base.model_copy(deep=True))
                outcomes.append("written")
            except StateError:
                outcomes.append("refused")
            finally:
                peer.close()

        threads = [threading.Thread(target=write_copy) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert sorted(outcomes) == ["refused"] * 3 + ["written"]
        stored = harness.backend.read()
        assert stored is not None and stored.serial == base.serial + 1

    def test_two_states_locked_at_once(self, harness: Harness) -> None:
        """Locks of two states of one store never block each other."""
        other = harness.other_state()
        try:
            with harness.backend.lock("apply"), other.lock("apply") as second:
                assert second.is_held
                assert other.lock_info() == second.info
        finally:
            other.close()

    def test_history_lists_versions_newest_first(self, harness: Harness) -> None:
        """history() names each kept version: serial, checksum, deployments, time."""
        assert harness.backend.history() == []
        doc = StateDocument.new(ENDPOINT, TENANT)
        harness.backend.write(doc)
        doc.record(sample_recorded())
        last = harness.backend.write(doc)
        history = harness.backend.history()
        assert [entry.serial for entry in history] == [2, 1]
        assert (history[0].checksum, history[0].deployments) == (last.checksum, 1)
        assert history[0].created[:2] == "20"

    def test_rollback_writes_old_version_as_new(self, harness: Harness) -> None:
        """Rolling back to a version writes its content as the next serial."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        harness.backend.write(doc)
        doc.record(sample_recorded())
        harness.backend.write(doc)
        rolled = rollback(harness.backend, 1)
        assert (rolled.serial, rolled.deployments) == (3, {})
        assert [entry.serial for entry in harness.backend.history()][:2] == [3, 2]
        assert harness.backend.read_version(2).deployments  # what it replaced is kept

    def test_missing_version_names_kept_ones(self, harness: Harness) -> None:
        """Reading a version that is not kept fails, listing the kept serials."""
        harness.backend.write(StateDocument.new(ENDPOINT, TENANT))
        with pytest.raises(StateError, match=r"version 7 .* is not kept") as caught:
            harness.backend.read_version(7)
        assert caught.value.details == ["versions kept: 1"]

    def test_full_history_kept(self, harness: Harness) -> None:
        """A backend with full history keeps every version; a file the last two."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        for _ in range(4):
            harness.backend.write(doc)
        expected = [4, 3, 2, 1] if harness.full_history else [4, 3]
        assert [entry.serial for entry in harness.backend.history()] == expected

    def test_push_refuses_other_lineage_and_older_serial(self, harness: Harness) -> None:
        """push refuses another lineage or an older serial, unless forced."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        older = harness.backend.write(doc).model_copy(deep=True)
        harness.backend.write(doc)
        with pytest.raises(StateError, match="older"):
            push(harness.backend, older)
        stranger = harness.other_state()
        try:
            foreign = stranger.write(StateDocument.new(ENDPOINT, TENANT))
        finally:
            stranger.close()
        with pytest.raises(StateError, match="another lineage"):
            push(harness.backend, foreign)
        forced = push(harness.backend, foreign, force=True)
        assert forced is not None and (forced.lineage, forced.serial) == (foreign.lineage, 3)

    def test_push_pull_round_trip_between_stores(self, harness: Harness) -> None:
        """A state pulled from one store and pushed to another reads back the same."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        doc.record(sample_recorded())
        harness.backend.write(doc)
        pulled = harness.backend.read()
        assert pulled is not None
        target = InMemoryBackend()
        pushed = push(target, pulled)
        assert pushed is not None and pushed.deployments == pulled.deployments
        assert push(target, pushed) is None  # the same document again: nothing to do
        back = push(harness.backend, pushed)
        assert back is not None and back.serial == pushed.serial + 1
        assert back.lineage == pulled.lineage

    def test_plan_key_made_once(self, harness: Harness) -> None:
        """The plan key is None until made, then the same 32 bytes for every handle."""
        harness.backend.write(StateDocument.new(ENDPOINT, TENANT))
        assert harness.backend.plan_key(create=False) is None
        key = harness.backend.plan_key(create=True)
        assert key is not None and len(key) == 32
        assert harness.peer().plan_key(create=True) == key


def edit_json_text(text: str, edit: Callable[[dict[str, Any]], None]) -> str:
    """Apply EDIT to a JSON object held as text, keeping the stale checksum."""
    raw = json.loads(text)
    edit(raw)
    return json.dumps(raw, indent=2)

    # --- the operation log (planner.state.oplog) --------------------------------------

    def test_logged_operations_survive_a_crash_before_compaction(self, harness: Harness) -> None:
        """Groups appended to the log are read back by another process (the one after a
        crash) over the same version, with no new version and no serial move."""
        doc = _logging(harness)
        doc.record(sample_recorded("billing-agent"))
        intent = doc.add_intent("create", "ops-agent")
        harness.backend.append(group_of(doc, doc.take_changes()))
        stored = harness.peer().read()
        assert stored is not None and stored.serial == 1 and stored.replayed == 1
        assert set(stored.deployments) == {"support-agent", "billing-agent"}
        assert [entry.id for entry in stored.pending] == [intent.id]
        assert [version.serial for version in harness.peer().history()] == [1]

    def test_replay_is_idempotent(self, harness: Harness) -> None:
        """The same group appended twice reads back as if appended once."""
        doc = _logging(harness)
        doc.add_intent("create", "ops-agent")
        doc.forget("support-agent")
        group = group_of(doc, doc.take_changes())
        harness.backend.append(group)
        once = harness.peer().read()
        harness.backend.append(group)
        twice = harness.peer().read()
        assert once is not None and twice is not None
        assert (twice.deployments, twice.pending) == (once.deployments, once.pending)
        assert twice.checksum == once.checksum

    def test_compaction_leaves_exactly_one_new_version(self, harness: Harness) -> None:
        """Writing the replayed document folds every group into one version; the log is
        gone after it (a read replays nothing)."""
        doc = _logging(harness)
        for name in ("a-agent", "b-agent", "c-agent"):
            doc.record(sample_recorded(name))
            harness.backend.append(group_of(doc, doc.take_changes()))
        before = len(harness.backend.history())
        replayed = harness.peer().read()
        assert replayed is not None
        written = harness.backend.write(replayed)
        assert written.serial == 2 and len(harness.backend.history()) == before + 1
        stored = harness.peer().read()
        assert stored is not None and stored.replayed == 0 and stored == written
        assert set(stored.deployments) == {"support-agent", "a-agent", "b-agent", "c-agent"}

    def test_append_on_a_moved_base_is_refused(self, harness: Harness) -> None:
        """A group built on a version another writer has replaced is refused, and never
        read back (compare-and-swap, as for a write)."""
        doc = _logging(harness)
        harness.peer().write(doc.model_copy(deep=True))
        doc.record(sample_recorded("late-agent"))
        with pytest.raises(StateError, match="moved since this run read it"):
            harness.backend.append(group_of(doc, doc.take_changes()))
        stored = harness.peer().read()
        assert stored is not None and "late-agent" not in stored.deployments

    def test_logged_records_keep_secrets_out(self, harness: Harness) -> None:
        """A record appended to the log stores digests only, like a versioned write."""
        doc = _logging(harness)
        doc.record(sample_recorded("billing-agent"))
        group = group_of(doc, doc.take_changes())
        harness.backend.append(group)
        assert SECRET_VALUE not in group.line() and "hmac-sha256:" in group.line()
        stored = harness.peer().read()
        assert stored is not None
        assert stored.deployments["billing-agent"].secret_digests == (
            sample_recorded().secret_digests
        )

    # --- holds (planner.state.holds) ---------------------------------------------------

    def test_a_hold_round_trips_in_a_version(self, harness: Harness) -> None:
        """A held record written as a version reads back with its hold, in a state of the
        current format version."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        doc.record(held(sample_recorded(), HOLD))
        harness.backend.write(doc)
        stored = harness.peer().read()
        assert stored is not None and stored.deployments["support-agent"].held == HOLD
        assert json.loads(harness.stored_text())["format_version"] == FORMAT_VERSION == 2

    def test_a_hold_is_set_and_lifted_through_the_log(self, harness: Harness) -> None:
        """A hold appended to the operation log is read back by another process before
        any compaction; its release, appended too, reads back without it, and the
        version that folds both stores no `held` key."""
        doc = _logging(harness)
        doc.record(held(doc.get("support-agent"), HOLD))
        harness.backend.append(group_of(doc, doc.take_changes()))
        after_hold = harness.peer().read()
        assert after_hold is not None and after_hold.deployments["support-agent"].held == HOLD
        record, lifted = released(doc, "support-agent")
        doc.record(record)
        harness.backend.append(group_of(doc, doc.take_changes()))
        after_release = harness.peer().read()
        assert lifted == HOLD and after_release is not None
        assert after_release.deployments["support-agent"].held is None
        harness.backend.write(after_release)
        assert '"held"' not in harness.stored_text()

    def test_a_record_without_a_hold_stores_no_held_key(self, harness: Harness) -> None:
        """A record that was never held is stored without a `held` key: the bytes a
        record wrote before holds existed."""
        doc = StateDocument.new(ENDPOINT, TENANT)
        doc.record(sample_recorded())
        harness.backend.write(doc)
        stored = json.loads(harness.stored_text())["deployments"]["support-agent"]
        assert "held" not in stored
        assert stored == sample_recorded().model_dump(mode="json")


def _logging(harness: Harness) -> StateDocument:
    """A stored version 1 holding support-agent, read back with its changes tracked."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    doc.record(sample_recorded())
    harness.backend.write(doc)
    doc.track_changes()
    return doc
