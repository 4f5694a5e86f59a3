"""The reconcile loop in-process on the embedded control plane: cycles publish to the
status board, a failed cycle is retried sooner (backing off up to the interval), a
standby does nothing, and notifications are sent once per finding."""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from planner.cli.commands.reconcile import ReconcileOptions
from planner.cli.options import WorkspaceOptions
from planner.cli.run.reconcile import workspace_opener
from planner.cli.target import resolve_target
from planner.plan.health import RevisionHealth
from planner.reconcile.cycle import CycleWorkspace, Outcome, Settings, health_of
from planner.reconcile.events import Mode
from planner.reconcile.leader import Leadership, election_for
from planner.reconcile.loop import Reconciler, once_exit_code, retry_delay
from planner.reconcile.notify import Notifier
from planner.reconcile.status import StatusBoard
from planner.reconcile.view import TextView
from planner.state.inmemory import InMemoryBackend
from planner.state.location import open_backend
from tests.cli.conftest import Scenario, scenario
from tests.postgres import unique_name

__all__ = ["scenario"]  # the CLI scenario fixture, used here too

INTERVAL = 0.2


@dataclass
class Watching(TextView):
    """The text view, keeping each cycle's outcome; ON_CYCLE runs after each."""

    on_cycle: Callable[[int, Outcome], None] = lambda number, outcome: None
    seen: list[tuple[str, float | None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__()

    def cycle(
        self, number: int, mode: Mode, seconds: float, outcome: Outcome, next_seconds: float | None
    ) -> None:
        super().cycle(number, mode, seconds, outcome, next_seconds)
        self.seen.append((outcome.result, next_seconds))
        self.on_cycle(number, outcome)


def loop_of(view: Watching, leadership: Leadership, stop: asyncio.Event) -> Reconciler:
    target = resolve_target(WorkspaceOptions(), os.environ)
    settings = Settings(interval=INTERVAL)
    opener = workspace_opener(target)
    return Reconciler(settings, opener, leadership, StatusBoard(), view, stop)


def test_retry_delay_backs_off_up_to_the_interval() -> None:
    """1 s after the first failure, doubling, never more than the interval."""
    assert [retry_delay(n, 300.0) for n in range(5)] == [300.0, 1.0, 2.0, 4.0, 8.0]
    assert retry_delay(20, 300.0) == 300.0 and retry_delay(3, 0.5) == 0.5


def test_once_exit_codes_are_plan_like() -> None:
    """0 in sync, 2 changes left, 1 an error (a standby under --once is an error)."""
    codes = {r: once_exit_code(r) for r in ("ok", "healed", "drift", "refused", "error")}
    assert codes == {"ok": 0, "healed": 0, "drift": 2, "refused": 2, "error": 1}


def test_the_loop_heals_backs_off_and_publishes(scenario: Scenario) -> None:
    """Cycle 1 heals a hand edit, cycle 2 fails on a broken config (retried after the
    back-off), cycle 3 is in sync once it is fixed; the board holds all of it."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    state = scenario.state()
    assert state is not None
    worker = state.deployments["worker"].id
    scenario.patch(worker, {"source_revision_config": {"image_uri": "x.example.com/w:hand"}})
    good = scenario.config_path.read_text(encoding="utf-8")
    stop = asyncio.Event()

    def on_cycle(number: int, outcome: Outcome) -> None:
        if number == 1:
            scenario.config_path.write_text(good + "\n[deployments.broken\n", encoding="utf-8")
        elif number == 2:
            scenario.config_path.write_text(good, encoding="utf-8")
        else:
            stop.set()

    view = Watching(on_cycle=on_cycle)
    leadership = election_for(open_backend(str(scenario.state_path), name="planner"))
    reconciler = loop_of(view, leadership, stop)
    assert asyncio.run(reconciler.run()) == 0
    backoff = retry_delay(1, INTERVAL)
    assert view.seen == [("healed", INTERVAL), ("error", backoff), ("ok", INTERVAL)]
    snapshot = reconciler.board.snapshot()
    assert [c.result for c in snapshot.cycles] == ["ok", "error", "healed"]
    assert snapshot.ready and not snapshot.is_leader  # it gave the leadership up
    rows = {row.address: row for row in snapshot.deployments}
    assert rows["worker"].last_change == "new_revision" and rows["api"].last_change is None
    assert rows["worker"].health == "healthy" and not rows["worker"].drifted
    assert snapshot.last_plan is not None and "planner.toml" in snapshot.last_plan
    out = scenario.capsys.readouterr().out
    assert "leading the reconcile of" in out and "gave the leadership up" in out


def test_a_standby_does_nothing_and_once_it_is_an_error(
    scenario: Scenario, postgres_url: str
) -> None:
    """While another replica leads, a cycle is `standby` (no workspace opened) and the
    leader is named; under --once that is an error (exit 1)."""
    name = unique_name()
    leader = election_for(open_backend(postgres_url, name=name))
    assert leader.try_lead(5.0)
    try:
        stop = asyncio.Event()
        view = Watching(on_cycle=lambda number, outcome: stop.set())
        reconciler = loop_of(view, election_for(open_backend(postgres_url, name=name)), stop)
        assert asyncio.run(reconciler.run()) == 0
        assert view.seen == [("standby", INTERVAL)]
        assert reconciler.board.snapshot().leader_holder == leader.holder
        assert f"standing by: {leader.holder} leads" in scenario.capsys.readouterr().out
        once = Settings(once=True)
        follower = election_for(open_backend(postgres_url, name=name))
        reconciler = Reconciler(
            once, workspace_opener(resolve_target(WorkspaceOptions(), os.environ)),
            follower, StatusBoard(), Watching(), asyncio.Event(),
        )  # fmt: skip
        assert asyncio.run(reconciler.run()) == 1
    finally:
        leader.close()


def test_notifications_are_sent_once_per_finding() -> None:
    """The same drift or the same failure is not sent again; a heal always is; a cycle
    in sync forgets what was sent."""
    leadership = election_for(InMemoryBackend())
    loop = Reconciler(Settings(), None, leadership, StatusBoard(), Watching(), asyncio.Event())  # type: ignore[arg-type]
    drift = Outcome("drift", "1 to change", pending=["api"])
    failed = Outcome("error", "the plan has errors", pending=["api"])
    kinds = [
        loop.notification_of(outcome)[0]
        for outcome in (drift, drift, failed, failed, drift, Outcome("ok", "in sync"), drift)
    ]
    assert kinds == ["drift", None, "failed", None, None, None, "drift"]
    assert loop.notification_of(Outcome("healed", "1 healed", changed=["api"])) == (
        "healed",
        ["api"],
    )
    refused = Outcome("refused", "too many", pending=["a", "b"], held_back=["c"])
    assert loop.notification_of(refused) == ("drift", ["a", "b", "c"])


@pytest.mark.parametrize("text", ["off", None])
def test_listen_is_off_under_once_unless_given(text: str | None) -> None:
    """HTTP on 127.0.0.1:9108 by default, none with --once unless --listen is given,
    and none with `--listen off`."""
    assert ReconcileOptions(listen=text).listen_address == (
        None if text == "off" else "127.0.0.1:9108"
    )
    assert ReconcileOptions(listen=text, once=True).listen_address is None
    assert ReconcileOptions(listen="127.0.0.1:0", once=True).listen_address == "127.0.0.1:0"


def test_health_as_the_status_page_shows_it() -> None:
    """Converged, missing, rolling out or failed, with the latest revision's status."""
    rolling = RevisionHealth("id", "rev", "BUILDING")
    failed = RevisionHealth("id", "rev", "DEPLOY_FAILED")
    health = {"a": rolling, "b": failed}
    live = {"a": object(), "b": object(), "c": object(), "d": None}
    shown = {name: health_of(name, health, live) for name in "abcd"}
    assert shown == {
        "a": "rolling out (BUILDING)",
        "b": "failed (DEPLOY_FAILED)",
        "c": "healthy",
        "d": "missing",
    }


def test_failed_cycles_in_a_row_back_off(scenario: Scenario) -> None:
    """Two failed cycles in a row: retried after 1 s, then 2 s (the interval is 10 s)."""
    stop = asyncio.Event()

    def on_cycle(number: int, outcome: Outcome) -> None:
        if number == 2:
            stop.set()

    view = Watching(on_cycle=on_cycle)
    leadership = election_for(InMemoryBackend())
    target = resolve_target(WorkspaceOptions(), os.environ)
    reconciler = Reconciler(
        Settings(interval=10.0), workspace_opener(target), leadership, StatusBoard(), view, stop
    )
    scenario.config_path.write_text("[deployments.broken\n", encoding="utf-8")
    assert asyncio.run(reconciler.run()) == 0
    assert view.seen == [("error", 1.0), ("error", 2.0)]


def test_an_election_that_cannot_reach_the_database_fails_the_cycle(scenario: Scenario) -> None:
    """The state database refusing connections: the cycle fails (exit 1 under --once)
    naming the election, without the password; the loop itself does not crash."""
    url = "postgresql://planner:s3cret-pw@127.0.0.1:1/planner"
    view = Watching()
    target = resolve_target(WorkspaceOptions(), os.environ)
    leadership = election_for(open_backend(url, name="unreachable"))
    reconciler = Reconciler(
        Settings(once=True), workspace_opener(target), leadership, StatusBoard(), view,
        asyncio.Event(),
    )  # fmt: skip
    assert asyncio.run(reconciler.run()) == 1
    assert [result for result, _ in view.seen] == ["error"]
    out = scenario.capsys.readouterr().out
    assert "the leader election failed" in out and "s3cret-pw" not in out


def test_a_cycle_leaves_no_garbage_behind(scenario: Scenario) -> None:
    """The workspace of a cycle (its client, and the embedded control plane behind it)
    is gone once the next cycle runs: the reconcile command's opener collects it."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    opener = workspace_opener(resolve_target(WorkspaceOptions(), os.environ))
    apps: list[weakref.ref[object]] = []

    def tracked() -> AbstractAsyncContextManager[CycleWorkspace]:
        workspace = opener()
        transport: Any = workspace.client._http._transport
        apps.append(weakref.ref(transport.app))
        return workspace

    stop = asyncio.Event()
    alive: list[int] = []

    def on_cycle(number: int, outcome: Outcome) -> None:
        if number == 4:
            alive.extend(i for i, ref in enumerate(apps[:3]) if ref() is not None)
            stop.set()

    leadership = election_for(InMemoryBackend())
    reconciler = Reconciler(
        Settings(interval=0.01), tracked, leadership, StatusBoard(), Watching(on_cycle), stop
    )
    assert asyncio.run(reconciler.run()) == 0
    assert len(apps) == 4 and alive == []


def test_a_recurring_failure_notifies_once_and_shows_its_last_change(
    scenario: Scenario,
) -> None:
    """A deployment whose revision fails to deploy is submitted again every cycle (a new
    revision, a new message each time): the failure is notified once, not on every retry,
    and the page's Last change names the re-submission."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.edit_config("worker:1.0.0", "worker:fail-deploy")
    stop = asyncio.Event()
    messages: list[str] = []

    def on_cycle(number: int, outcome: Outcome) -> None:
        messages.append(outcome.message)
        if number == 3:
            stop.set()

    sent: list[dict[str, Any]] = []

    class Collecting(Notifier):
        async def send(self, body: dict[str, Any]) -> bool:
            sent.append(body)
            return True

    view = Watching(on_cycle=on_cycle)
    reconciler = loop_of(view, election_for(InMemoryBackend()), stop)
    reconciler.notifier = Collecting("http://127.0.0.1:9/hook", view.warning)
    assert asyncio.run(reconciler.run()) == 0
    assert [result for result, _ in view.seen] == ["error"] * 3
    assert len(set(messages)) == 3  # each retry names its own new revision
    assert [(body["event"], body["deployments"]) for body in sent] == [("failed", ["worker"])]
    rows = {row.address: row for row in reconciler.board.snapshot().deployments}
    assert rows["worker"].last_change == "new_revision"
    assert rows["worker"].last_change_at is not None and rows["api"].last_change is None


def test_a_heal_with_deletions_held_back_counts_them_as_left() -> None:
    """A heal with a deletion held back: `drift` (exit 2 under --once), the heal is
    notified, the deletion counted as a change left (the pending gauge), and the next
    cycle finding only that deletion sends nothing new."""
    leadership = election_for(InMemoryBackend())
    loop = Reconciler(Settings(), None, leadership, StatusBoard(), Watching(), asyncio.Event())  # type: ignore[arg-type]
    healed = Outcome("drift", "1 healed", pending=["api"], changed=["api"], held_back=["worker"])
    assert healed.left == ["worker"] and once_exit_code(healed.result) == 2
    assert loop.notification_of(healed) == ("healed", ["api"])
    assert loop.notification_of(Outcome("drift", "held", held_back=["worker"])) == (None, [])
    loop.publish(datetime.now(UTC), 0.1, healed)
    assert loop.board.snapshot().cycles[0].pending == 1
