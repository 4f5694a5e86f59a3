"""`--lock-lease` on every command that takes the state lock: apply, destroy, import and
state rm/mv/push/rollback; the lease given is the one the lock records."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.commands.importing import import_options
from planner.cli.commands.state import StateAction
from planner.cli.main import build_parser
from planner.cli.options import WorkspaceOptions
from planner.cli.run.state import run_rm
from planner.cli.run.state_mv import run_mv
from planner.cli.run.state_versions import run_push, run_rollback
from planner.state import LocalFileBackend
from planner.state.lease import DEFAULT_LEASE_SECONDS
from planner.state.locking import LockHandle, WaitNotice
from tests.cli.conftest import Scenario

LOCKING = [
    ["apply"],
    ["destroy"],
    ["import", "api", "6f1c2c1e-0000-4000-8000-000000000001"],
    ["import", "--all", "--generate-config", "adopted.toml"],
    ["state", "rm", "api"],
    ["state", "mv", "api", "front"],
    ["state", "push", "saved.json"],
    ["state", "rollback", "2"],
]


@pytest.mark.parametrize("argv", LOCKING, ids=[" ".join(a[:2]) for a in LOCKING])
def test_every_locking_command_takes_a_lease(argv: list[str]) -> None:
    """Each command that locks parses --lock-lease (default 15 s) and refuses 0."""
    parser = build_parser([*argv, "--lock-lease", "7.5"])
    assert parser.parse_args([*argv, "--lock-lease", "7.5"]).lock_lease == 7.5
    assert parser.parse_args(argv).lock_lease == DEFAULT_LEASE_SECONDS
    with pytest.raises(SystemExit):
        parser.parse_args([*argv, "--lock-lease", "0"])


def test_import_carries_the_lease_to_its_lock() -> None:
    """`import` (one or --all) takes the lock with the lease given."""
    argv = ["import", "api", "6f1c2c1e-0000-4000-8000-000000000001", "--lock-lease", "4"]
    options = import_options(vars(build_parser(argv).parse_args(argv)))
    assert (options.lock_lease, options.lock_timeout) == (4.0, 0.0)


class RecordingBackend(LocalFileBackend):
    """A file backend that notes the lock record (operation, lease) each lock writes."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.locks: list[tuple[str, float]] = []

    def lock(
        self,
        operation: str,
        timeout: float = 0.0,
        on_wait: WaitNotice | None = None,
        *,
        lease: float = DEFAULT_LEASE_SECONDS,
    ) -> LockHandle:
        handle = super().lock(operation, timeout, on_wait, lease=lease)
        info = self.lock_info()
        assert info is not None
        self.locks.append((info.operation, info.lease))
        return handle


def test_state_actions_record_their_lease_in_the_lock(scenario: Scenario, tmp_path: Path) -> None:
    """state mv, rm, push and rollback hold a lock whose record carries --lock-lease."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    saved = tmp_path / "saved.json"
    saved.write_bytes(scenario.state_path.read_bytes())
    backend = RecordingBackend(scenario.state_path)
    workspace = WorkspaceOptions()
    try:
        run_mv(backend, StateAction(old="api", new="front", lock_lease=2.5), workspace)
        run_rm(backend, StateAction(name="worker", lock_lease=3.5), workspace)
        current = backend.read()
        assert current is not None  # a file state keeps the version before it too
        run_rollback(backend, StateAction(serial=current.serial - 1, lock_lease=4.5), workspace)
        run_push(backend, StateAction(file=str(saved), force=True, lock_lease=5.5), workspace)
    finally:
        backend.close()
    assert backend.locks == [
        ("state mv", 2.5),
        ("state rm", 3.5),
        ("state rollback", 4.5),
        ("state push", 5.5),
    ]
