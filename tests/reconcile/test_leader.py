"""Leader election: one leader per PostgreSQL state (the others stand by, naming it), one
replica per file state, and always the leader on a backend of one process."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.errors import LockLostError
from planner.reconcile.leader import LEADER_SUFFIX, ReplicaRefusedError, election_for
from planner.state import LocalFileBackend
from planner.state.inmemory import InMemoryBackend
from planner.state.location import open_backend
from planner.state.postgres import PostgresBackend
from tests.postgres import unique_name

LEASE = 3.0


def test_postgres_replicas_elect_one_leader_and_hand_over(postgres_url: str) -> None:
    """The first replica leads; the second stands by naming it; once the leader gives
    the leadership up the second takes it at once, and the first then stands by."""
    name = unique_name()
    first = election_for(open_backend(postgres_url, name=name))
    second = election_for(open_backend(postgres_url, name=name))
    try:
        assert first.try_lead(LEASE) and first.is_leader
        assert first.try_lead(LEASE)  # still the leader: nothing taken again
        assert not second.try_lead(LEASE) and not second.is_leader
        assert second.holder is not None and "pid" in second.holder
        first.resign()
        assert second.try_lead(LEASE)
        assert not first.try_lead(LEASE) and first.holder == second.holder
    finally:
        first.close()
        second.close()


def test_the_leader_lock_is_apart_from_the_state_lock(postgres_url: str) -> None:
    """Leading takes no state lock: an apply can lock the state while a leader leads,
    and the leadership is the lock of a companion row no state is named like."""
    name = unique_name()
    backend = open_backend(postgres_url, name=name)
    assert isinstance(backend, PostgresBackend)
    leadership = election_for(backend)
    try:
        assert leadership.try_lead(LEASE)
        with backend.lock("apply"):
            assert leadership.is_leader
        companion = open_backend(postgres_url, name=name + LEADER_SUFFIX)
        info = companion.lock_info()
        companion.close()
        assert info is not None and info.operation == "reconcile"
    finally:
        leadership.close()
        backend.close()


def test_a_lost_leadership_stops_the_checks(postgres_url: str) -> None:
    """Once its lease cannot be renewed the leader's check raises (it sends nothing
    more), and it does not count itself the leader on its next try."""
    leadership = election_for(open_backend(postgres_url, name=unique_name()))
    try:
        assert leadership.try_lead(LEASE)
        handle = leadership._handle
        assert handle is not None and handle.heartbeat is not None
        handle.heartbeat.lose("its connection was terminated")
        with pytest.raises(LockLostError, match="its connection was terminated"):
            leadership.check()
        assert leadership.try_lead(LEASE)  # released, then taken again: no one else
    finally:
        leadership.close()


def test_a_file_state_allows_one_replica(tmp_path: Path) -> None:
    """A second replica on a file state is refused, naming the first; after the first
    is gone the next one leads."""
    path = tmp_path / "planner.state.json"
    first = election_for(LocalFileBackend(path))
    second = election_for(LocalFileBackend(path))
    try:
        assert first.try_lead(LEASE)
        with pytest.raises(ReplicaRefusedError) as refused:
            second.try_lead(LEASE)
        assert "held by:" in "\n".join(refused.value.details)
        assert refused.value.hint is not None and "PostgreSQL" in refused.value.hint
        first.close()
        assert second.try_lead(LEASE)
    finally:
        first.close()
        second.close()


def test_a_backend_of_one_process_always_leads() -> None:
    """An in-memory state has no other replica: always the leader, nothing to check."""
    leadership = election_for(InMemoryBackend())
    assert leadership.try_lead(LEASE) and leadership.is_leader
    leadership.check()
    leadership.close()
    assert leadership.is_leader
