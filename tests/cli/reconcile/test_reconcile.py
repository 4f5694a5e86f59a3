"""`planner reconcile --once` through the CLI entry point, on the embedded control plane:
heal, detect, prune, --max-changes, plans with errors, notifications, one replica on a
file state. Every stdout line of `--format json` is checked against
schemas/reconcile-events.schema.json. (The loop itself, against `planner serve` and
PostgreSQL: tests/cli/reconcile/test_reconcile_loopback.py.)"""

from __future__ import annotations

import json
import os
import shlex
import signal
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from planner.api.models import is_being_deleted
from planner.cli.commands.reconcile import ReconcileOptions
from planner.cli.main import build_parser
from planner.reconcile.leader import election_for
from planner.state import LocalFileBackend
from tests.cli.conftest import SECRET_VALUE, Scenario
from tests.event_lines import RECONCILE_SCHEMA, event_lines

ROOT = Path(__file__).resolve().parents[3]
HAND_IMAGE = "registry.example.com/acme/worker:by-hand"


def reconcile(scenario: Scenario, *argv: str) -> tuple[int, list[dict[str, Any]], str]:
    """`planner reconcile --once --format json ARGV`: exit code, events, stderr."""
    result = scenario.cli("reconcile", "--once", "--format", "json", *argv)
    return result.code, event_lines(result.out, RECONCILE_SCHEMA), result.err


def cycle_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    (cycle,) = [e for e in events if e["type"] == "cycle"]
    return cycle


def applied(scenario: Scenario) -> dict[str, str]:
    """Apply the config; the deployment ids by address."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    state = scenario.state()
    assert state is not None
    return {name: d.id for name, d in state.deployments.items()}


def image_of(scenario: Scenario, deployment_id: str) -> str | None:
    return scenario.get(deployment_id).source_revision_config.image_uri


def test_once_heals_a_hand_edit(scenario: Scenario) -> None:
    """A value changed by hand on the server is reverted by one heal cycle (exit 0): the
    cycle says healed, names the drift, and the next plan is empty."""
    ids = applied(scenario)
    scenario.patch(ids["worker"], {"source_revision_config": {"image_uri": HAND_IMAGE}})
    code, events, err = reconcile(scenario)
    assert code == 0, err
    cycle = cycle_of(events)
    assert cycle["status"] == "healed" and cycle["mode"] == "heal"
    assert cycle["drifted"] == ["worker"] and cycle["changed"] == ["worker"]
    assert [e["type"] for e in events][:2] == ["leader", "start"]
    assert events[-1]["type"] == "stopped" and events[-1]["exit_code"] == 0
    assert any(e["type"] == "summary" for e in events)
    scenario.wait_until_deployed(ids["worker"])
    assert image_of(scenario, ids["worker"]) == "registry.example.com/acme/worker:1.0.0"
    assert scenario.plan("--detailed-exitcode").code == 0


def test_once_in_sync_is_exit_0_and_takes_no_lock(scenario: Scenario) -> None:
    """Nothing to change: exit 0, result ok, the state not written again."""
    applied(scenario)
    before = scenario.state_path.read_bytes()
    code, events, _ = reconcile(scenario)
    assert code == 0 and cycle_of(events)["status"] == "ok"
    assert scenario.state_path.read_bytes() == before


def test_detect_sends_no_write(scenario: Scenario) -> None:
    """detect reports the drift (exit 2) and changes nothing: the server keeps the hand
    value, the state file is byte for byte the same."""
    ids = applied(scenario)
    scenario.patch(ids["worker"], {"source_revision_config": {"image_uri": HAND_IMAGE}})
    before = scenario.state_path.read_bytes()
    code, events, _ = reconcile(scenario, "--mode", "detect")
    assert code == 2
    cycle = cycle_of(events)
    assert cycle["status"] == "drift" and cycle["pending"] == ["worker"]
    assert cycle["changed"] == [] and not [e for e in events if e["type"] == "start"]
    assert image_of(scenario, ids["worker"]) == HAND_IMAGE
    assert scenario.state_path.read_bytes() == before


def test_deletions_are_held_back_without_prune(scenario: Scenario) -> None:
    """A deployment removed from the config is not deleted without --prune (exit 2, held
    back, still live and recorded); with --prune it is deleted and forgotten."""
    ids = applied(scenario)
    text = scenario.config_path.read_text(encoding="utf-8")
    scenario.write_config(text[: text.index("[deployments.worker]")])
    code, events, _ = reconcile(scenario)
    cycle = cycle_of(events)
    assert code == 2 and cycle["status"] == "drift" and cycle["held"] == ["worker"]
    assert cycle["pending"] == []
    assert not is_being_deleted(scenario.get(ids["worker"]).status)
    state = scenario.state()
    assert state is not None and "worker" in state.deployments
    code, events, _ = reconcile(scenario, "--prune")
    cycle = cycle_of(events)
    assert code == 0 and cycle["status"] == "healed" and cycle["changed"] == ["worker"]
    state = scenario.state()
    assert state is not None and "worker" not in state.deployments


def test_max_changes_refuses_the_cycle(scenario: Scenario) -> None:
    """Two deployments to change with --max-changes 1: refused (exit 2), nothing sent."""
    ids = applied(scenario)
    scenario.edit_config("worker:1.0.0", "worker:2.0.0")
    scenario.edit_config("max_scale = 2", "max_scale = 3")
    code, events, _ = reconcile(scenario, "--max-changes", "1")
    cycle = cycle_of(events)
    assert code == 2 and cycle["status"] == "refused"
    assert cycle["pending"] == ["api", "worker"] and "--max-changes 1" in cycle["message"]
    assert image_of(scenario, ids["worker"]) == "registry.example.com/acme/worker:1.0.0"
    code, events, _ = reconcile(scenario, "--max-changes", "2")
    assert code == 0 and cycle_of(events)["changed"] == ["api", "worker"]


def test_a_plan_with_errors_is_reported_never_applied(scenario: Scenario) -> None:
    """An immutable change makes a plan error: the cycle fails (exit 1) naming it, and
    nothing is applied, not even the other deployment's change."""
    ids = applied(scenario)
    scenario.edit_config("acme/api", "acme/api-moved")  # repo_url: immutable
    scenario.edit_config("worker:1.0.0", "worker:2.0.0")
    code, events, _ = reconcile(scenario)
    cycle = cycle_of(events)
    assert code == 1 and cycle["status"] == "error"
    assert cycle["error"]["code"] == "plan-invalid" and "api" in cycle["message"]
    assert image_of(scenario, ids["worker"]) == "registry.example.com/acme/worker:1.0.0"


def test_text_output_says_each_cycle(scenario: Scenario) -> None:
    """Text mode: a line per cycle with its result, timestamped in ISO 8601 UTC."""
    ids = applied(scenario)
    scenario.patch(ids["worker"], {"source_revision_config": {"image_uri": HAND_IMAGE}})
    result = scenario.cli("reconcile", "--once", "--mode", "detect")
    assert result.code == 2
    (line,) = [line for line in result.out.splitlines() if "cycle 1" in line]
    assert "cycle 1 (detect): drift: 1 to change (worker)" in line
    assert line[:4].isdigit() and "Z " in line


def test_a_second_replica_on_a_file_state_is_refused(scenario: Scenario) -> None:
    """A file state allows one replica: while one leads, another is refused (exit 1),
    naming the holder and the way to run several."""
    applied(scenario)
    leadership = election_for(LocalFileBackend(scenario.state_path))
    try:
        assert leadership.try_lead(5.0)
        result = scenario.cli("reconcile", "--once")
    finally:
        leadership.close()
    assert result.code == 1
    assert "another `planner reconcile` already runs on this state" in result.err
    assert "PostgreSQL" in result.err and "held by:" in result.err
    assert scenario.cli("reconcile", "--once").code == 0  # once it is gone


def test_a_second_replica_is_refused_before_it_serves_anything(scenario: Scenario) -> None:
    """A second replica on a file state with --listen is refused without announcing (or
    opening) the status page: the refusal is all it says."""
    applied(scenario)
    leadership = election_for(LocalFileBackend(scenario.state_path))
    try:
        assert leadership.try_lead(5.0)
        result = scenario.cli("reconcile", "--listen", "127.0.0.1:0")
    finally:
        leadership.close()
    assert result.code == 1
    assert result.err.startswith("Error: another `planner reconcile` already runs"), result.err
    assert "Serving" not in result.err + result.out


class Receiver:
    """A loopback HTTP endpoint that keeps the JSON bodies POSTed to it."""

    def __init__(self, status: int = 200) -> None:
        self.bodies: list[dict[str, Any]] = []
        received = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                received.append(json.loads(self.rfile.read(length)))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook/T0K3N"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()


def test_notify_on_drift_and_on_heal_without_secrets(
    scenario: Scenario, receiver: Receiver
) -> None:
    """Drift found (detect) and healed (heal) each POST a Slack-compatible `text` plus
    structured fields naming the deployment; no secret value is in either."""
    ids = applied(scenario)
    scenario.patch(ids["api"], {"source_config": {"resource_spec": {"max_scale": 7}}})
    assert reconcile(scenario, "--mode", "detect", "--notify-url", receiver.url)[0] == 2
    assert reconcile(scenario, "--notify-url", receiver.url)[0] == 0
    drift, heal = receiver.bodies
    assert drift["event"] == "drift" and drift["deployments"] == ["api"]
    assert drift["text"].startswith("planner reconcile found drift in ") and "api" in drift["text"]
    assert heal["event"] == "healed" and heal["changed"] == ["api"]
    assert SECRET_VALUE not in json.dumps(receiver.bodies)


def test_a_failed_cycle_notifies(scenario: Scenario, receiver: Receiver) -> None:
    """A cycle that fails POSTs a `failed` notification with its message."""
    applied(scenario)
    scenario.edit_config("acme/api", "acme/api-moved")
    assert reconcile(scenario, "--notify-url", receiver.url)[0] == 1
    (body,) = receiver.bodies
    assert body["event"] == "failed" and body["result"] == "error"
    assert "the plan has errors" in body["message"]


def test_a_failing_notification_never_fails_the_cycle(scenario: Scenario) -> None:
    """A notify URL that refuses the connection: the cycle's result and exit code stand;
    a warning names the host, never the URL's path (a webhook's token)."""
    ids = applied(scenario)
    scenario.patch(ids["worker"], {"source_revision_config": {"image_uri": HAND_IMAGE}})
    closed = Receiver()
    url = closed.url
    closed.close()
    code, events, err = reconcile(scenario, "--notify-url", url)
    assert code == 0 and cycle_of(events)["status"] == "healed"
    assert "notification to 127.0.0.1 failed" in err and "T0K3N" not in err


def test_a_notification_answered_with_an_error_is_a_warning(scenario: Scenario) -> None:
    """A receiver answering 500: a warning with the status; the cycle stands."""
    ids = applied(scenario)
    scenario.patch(ids["worker"], {"source_revision_config": {"image_uri": HAND_IMAGE}})
    failing = Receiver(status=500)
    try:
        code, _, err = reconcile(scenario, "--mode", "detect", "--notify-url", failing.url)
    finally:
        failing.close()
    assert code == 2 and "failed: HTTP 500" in err and len(failing.bodies) == 1


@pytest.mark.parametrize("output", ["text", "json"])
def test_sigterm_ends_the_loop_with_exit_0(scenario: Scenario, output: str) -> None:
    """The loop runs until a SIGTERM: then it gives the leadership up, says so, and
    exits 0 (the status page was served meanwhile)."""
    applied(scenario)
    leader_record = scenario.state_path.with_name("planner.state.json.reconcile.lock.json")

    def terminate_once_leading() -> None:
        deadline = time.monotonic() + 60
        while not leader_record.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGTERM)

    killer = threading.Thread(target=terminate_once_leading, daemon=True)
    killer.start()
    result = scenario.cli(
        "reconcile", "--interval", "0.05", "--listen", "127.0.0.1:0", "--format", output
    )
    killer.join()
    assert result.code == 0, result.err
    assert "Serving the status page, /metrics, /healthz and /readyz at http://127.0.0.1:" in (
        result.err
    )
    assert not leader_record.exists()
    if output == "text":
        lines = result.out.splitlines()
        assert "gave the leadership up" in lines[-2] and "(SIGTERM)" in lines[-1]
        return
    events = event_lines(result.out, RECONCILE_SCHEMA)
    assert [e["signal"] for e in events if e["type"] == "interrupt"] == ["SIGTERM"]
    assert events[-2]["status"] == "resigned"
    assert events[-1]["type"] == "stopped" and events[-1]["exit_code"] == 0
    assert "Terminated (SIGTERM)" in result.err


def test_a_deployment_that_fails_to_converge_fails_the_cycle(scenario: Scenario) -> None:
    """A heal whose revision fails to build: the cycle is an error naming it (exit 1);
    the next cycle submits it again (the plan shows the failed revision)."""
    applied(scenario)
    scenario.edit_config("worker:1.0.0", "worker-fail-build:1.0.0")
    code, events, _ = reconcile(scenario)
    cycle = cycle_of(events)
    assert code == 1 and cycle["status"] == "error" and cycle["changed"] == []
    assert "worker" in cycle["message"] and "BUILD_FAILED" in cycle["message"]
    code, events, _ = reconcile(scenario, "--mode", "detect")
    assert code == 2 and cycle_of(events)["pending"] == ["worker"]


def test_the_examples_command_lines_parse() -> None:
    """The `planner reconcile` command lines of examples/reconcile (Kubernetes, Compose,
    systemd) are valid for the command's parser, with the values they mean."""
    from tests.test_reconcile_examples import compose_file, kubernetes_documents

    (deployment,) = [d for d in kubernetes_documents() if d["kind"] == "Deployment"]
    kubernetes = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    service = compose_file()["services"]["reconcile"]
    unit = (ROOT / "examples" / "reconcile" / "planner-reconcile.service").read_text()
    (exec_start,) = [line for line in unit.splitlines() if line.startswith("ExecStart=")]
    systemd = shlex.split(exec_start)[1:]
    for argv in (kubernetes, service["command"], systemd):
        args = build_parser(argv).parse_args(argv)
        options = ReconcileOptions.of(vars(args))
        assert options.interval == 300.0 and options.mode == "heal", argv
        assert options.listen_address is not None and options.listen_address.endswith(":9108")


def test_a_notify_url_that_is_not_http_is_refused_at_start(scenario: Scenario) -> None:
    """`--notify-url` must be http(s) with a host: refused before any cycle (exit 1),
    without echoing the URL (its path may be a token)."""
    result = scenario.cli("reconcile", "--once", "--notify-url", "ftp://hooks/T0K3N")
    assert result.code == 1 and "--notify-url must be an http:// or https:// URL" in result.err
    assert "T0K3N" not in result.err + result.out and "cycle 1" not in result.out


def test_a_heal_waits_for_no_one_while_a_person_applies(scenario: Scenario) -> None:
    """The state locked by someone else's apply: the heal cycle fails naming the holder
    (exit 1) and sends nothing; detect still reports (plans take no lock)."""
    ids = applied(scenario)
    scenario.patch(ids["worker"], {"source_revision_config": {"image_uri": HAND_IMAGE}})
    with LocalFileBackend(scenario.state_path).lock("apply"):
        code, events, _ = reconcile(scenario)
        assert reconcile(scenario, "--mode", "detect")[0] == 2
    cycle = cycle_of(events)
    assert code == 1 and cycle["status"] == "error" and cycle["error"]["code"] == "state-locked"
    assert any(line.startswith("held by:") for line in cycle["error"]["details"])
    assert image_of(scenario, ids["worker"]) == HAND_IMAGE


def test_a_policy_denial_is_reported_never_applied(scenario: Scenario) -> None:
    """A deny policy the change breaks is a plan error: the cycle fails naming the
    policy (exit 1) and nothing is sent."""
    ids = applied(scenario)
    scenario.edit_config("worker:1.0.0", "worker:2.0.0")
    text = scenario.config_path.read_text(encoding="utf-8")
    scenario.write_config(
        text + '\n[policies.pinned-worker]\nexpression = "!deployment.source_revision_config'
        '.image_uri.endsWith(\':2.0.0\')"\nmessage = "2.0.0 is banned"\n'
    )
    code, events, _ = reconcile(scenario)
    cycle = cycle_of(events)
    assert code == 1 and cycle["status"] == "error"
    assert "2.0.0 is banned" in cycle["message"]
    assert image_of(scenario, ids["worker"]) == "registry.example.com/acme/worker:1.0.0"


def test_a_heal_with_a_deletion_held_back_leaves_changes(
    scenario: Scenario, caplog: pytest.LogCaptureFixture
) -> None:
    """A hand edit healed while a deletion is held back (no --prune): the cycle is
    `drift` (not every deployment converged), exit 2; and the heal leaves no asyncio
    task pending behind it (asyncio logs "Task was destroyed but it is pending!" when the
    garbage collector finds one: every heal of a controller did)."""
    ids = applied(scenario)
    scenario.patch(ids["api"], {"source_config": {"resource_spec": {"max_scale": 7}}})
    text = scenario.config_path.read_text(encoding="utf-8")
    scenario.write_config(text[: text.index("[deployments.worker]")])
    code, events, err = reconcile(scenario)
    cycle = cycle_of(events)
    assert code == 2, err
    assert cycle["status"] == "drift" and cycle["held"] == ["worker"]
    assert cycle["changed"] == ["api"] and "held back" in cycle["message"]
    assert "Task was destroyed" not in caplog.text + err
