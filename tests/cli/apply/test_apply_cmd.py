"""`planner apply` through the CLI entry point, on the embedded control plane in-process."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable

import pytest

from planner.api.client import ControlPlaneClient
from planner.cli.exits import Interrupted
from planner.cli.prompt import confirm
from planner.errors import PlannerError
from planner.state import LocalFileBackend
from tests.cli.conftest import SECRET_VALUE, Scenario


def names_on_server(scenario: Scenario) -> list[str]:
    async def names(client: ControlPlaneClient) -> list[str]:
        return sorted([d.name async for d in client.iter_deployments()])

    return scenario.remote(names)


def test_auto_approve_creates_everything_and_the_next_plan_is_empty(scenario: Scenario) -> None:
    """apply --auto-approve shows the plan, creates and deploys every deployment, prints
    the result table and summary; then `plan --detailed-exitcode` exits 0."""
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 0, result.out + result.err
    assert "+ api will be created" in result.out
    assert "Apply complete: 2 created, 0 updated, 0 new revisions, 0 deleted, 0 failed (" in (
        result.out
    )
    assert "DEPLOYED" in result.out
    assert SECRET_VALUE not in result.out + result.err
    assert SECRET_VALUE not in scenario.state_path.read_text(encoding="utf-8")
    assert names_on_server(scenario) == ["api", "worker"]
    assert scenario.plan("--detailed-exitcode").code == 0


def test_without_a_terminal_apply_asks_for_auto_approve(scenario: Scenario) -> None:
    """With no TTY to ask on and no --auto-approve, apply refuses and changes nothing."""
    result = scenario.cli("apply")
    assert result.code == 1
    assert "--auto-approve" in result.err
    assert names_on_server(scenario) == []


def test_a_failed_revision_exits_1_and_leaves_the_others_deployed(scenario: Scenario) -> None:
    """A build that fails (`fail-build`) fails its deployment only: exit 1, the error
    names the deployment and status, the other one is DEPLOYED."""
    scenario.edit_config("worker:1.0.0", "worker-fail-build:1.0.0")
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 1
    assert "✗ worker: revision" in result.out and "BUILD_FAILED" in result.out
    assert "1 created" in result.out and "1 failed" in result.out
    api = scenario.state().deployments["api"]  # type: ignore[union-attr]
    assert scenario.get(api.id).active_revision_id == api.active_revision_id is not None


def test_saved_plan_is_applied_without_asking(scenario: Scenario) -> None:
    """`apply PLANFILE` executes exactly the saved plan with no confirmation, even
    without a terminal."""
    assert scenario.plan("--out", "tfplan.json").code == 0
    result = scenario.cli("apply", "tfplan.json")
    assert result.code == 0, result.out + result.err
    assert names_on_server(scenario) == ["api", "worker"]
    assert scenario.plan("--detailed-exitcode").code == 0


def test_a_stale_saved_plan_is_refused(scenario: Scenario) -> None:
    """A saved plan made before another apply moved the state is refused as stale."""
    assert scenario.plan("--out", "tfplan.json").code == 0
    assert scenario.cli("apply", "--auto-approve", "--only", "worker").code == 0
    result = scenario.cli("apply", "tfplan.json")
    assert result.code == 1
    assert "stale" in result.err
    assert names_on_server(scenario) == ["worker"]


def test_a_saved_plan_is_stale_once_the_config_changes(scenario: Scenario) -> None:
    """Editing a planned deployment's config after `plan --out` makes `apply PLANFILE`
    refuse the plan (apply records the config, so it must still be what was planned)."""
    assert scenario.plan("--out", "tfplan.json").code == 0
    scenario.edit_config("max_scale = 2", "max_scale = 3")
    result = scenario.cli("apply", "tfplan.json")
    assert result.code == 1
    assert "the config of deployment" in result.err and "changed since the plan" in result.err
    assert names_on_server(scenario) == []


WORKER_TABLE = """[deployments.worker]
source = "internal_docker"

[deployments.worker.source_revision_config]
image_uri = "registry.example.com/acme/worker:1.0.0"
"""
WORKER_HEADER = "[deployments.worker]\n"


def worker_table(protect: bool) -> str:
    flag = "true" if protect else "false"
    lifecycle = f"lifecycle = {{ protect = {flag} }}\n"
    return WORKER_HEADER + lifecycle + WORKER_TABLE.removeprefix(WORKER_HEADER)


def test_a_protected_deployment_removed_from_the_config_stays_protected(
    scenario: Scenario,
) -> None:
    """Protection applied is recorded: removing the table of a protected deployment is a
    plan error, not a delete; after applying protect = false, removing it deletes it."""
    scenario.edit_config(
        "[deployments.worker]\n", "[deployments.worker]\nlifecycle = { protect = true }\n"
    )
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.edit_config(worker_table(protect=True), "")
    result = scenario.plan()
    assert result.code == 1
    assert "worker is protected (lifecycle.protect) and would be deleted" in result.out
    assert names_on_server(scenario) == ["api", "worker"]

    scenario.write_config(scenario.config_path.read_text() + "\n" + WORKER_TABLE)
    scenario.edit_config(
        "[deployments.worker]\n", "[deployments.worker]\nlifecycle = { protect = false }\n"
    )
    assert scenario.cli("apply", "--auto-approve").code == 0  # records protect = false
    scenario.edit_config(worker_table(protect=False), "")
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 0, result.out + result.err
    assert "1 deleted" in result.out
    assert sorted(scenario.state().deployments) == ["api"]  # type: ignore[union-attr]


def test_a_plan_with_errors_is_never_applied(scenario: Scenario) -> None:
    """An immutable change is a plan error: apply prints it and exits 1, sending nothing."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    before = scenario.state().serial  # type: ignore[union-attr]
    scenario.edit_config("acme/api", "acme/api-v2")
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 1
    assert "nothing was applied" in result.err
    assert "source_config.repo_url cannot change" in result.out
    assert scenario.state().serial == before  # type: ignore[union-attr]


def test_only_and_replace_select_what_is_applied(scenario: Scenario) -> None:
    """--only applies one deployment; --replace gives it a new id under the same name."""
    assert scenario.cli("apply", "--auto-approve", "--only", "api").code == 0
    assert names_on_server(scenario) == ["api"]
    old = scenario.state().deployments["api"].id  # type: ignore[union-attr]
    result = scenario.cli("apply", "--auto-approve", "--only", "api", "--replace", "api")
    assert result.code == 0, result.out + result.err
    assert "1 replaced" in result.out
    assert scenario.state().deployments["api"].id != old  # type: ignore[union-attr]


def test_a_locked_state_fails_naming_the_holder(scenario: Scenario) -> None:
    """While another process holds the state lock, apply fails at once naming the holder,
    the operation and the unlock command."""
    assert scenario.cli("apply", "--auto-approve", "--only", "worker").code == 0
    with LocalFileBackend(scenario.state_path).lock("apply"):
        result = scenario.cli("apply", "--auto-approve")
    assert result.code == 1
    assert "state is locked" in result.err
    assert "held by:" in result.err and "operation: apply" in result.err
    assert "planner unlock" in result.err
    assert names_on_server(scenario) == ["worker"]


def test_a_create_journalled_but_never_recorded_is_adopted(scenario: Scenario) -> None:
    """After a crash between sending a create and recording it (a pending intent, the
    deployment exists), the next apply adopts it: no duplicate, none forgotten, and its
    plan lists it as recovered (no line of its own)."""
    assert scenario.cli("apply", "--auto-approve", "--only", "worker").code == 0
    backend = LocalFileBackend(scenario.state_path)
    doc = backend.read()
    assert doc is not None
    doc.add_intent("create", "api")
    backend.write(doc)
    created = scenario.create_remote("api")
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 0, result.out + result.err
    assert "Recovered from an interrupted apply" in result.out and created.id in result.out
    assert "Adopted" not in result.err
    state = scenario.state()
    assert state is not None and state.pending == []
    assert state.deployments["api"].id == created.id
    assert names_on_server(scenario) == ["api", "worker"]
    assert scenario.plan("--detailed-exitcode").code == 0


def test_no_wait_returns_once_submitted(scenario: Scenario) -> None:
    """--no-wait records the deployments and reports them as submitted."""
    result = scenario.cli("apply", "--auto-approve", "--no-wait")
    assert result.code == 0, result.out + result.err
    assert "submitted" in result.out
    assert sorted(scenario.state().deployments) == ["api", "worker"]  # type: ignore[union-attr]


def test_an_apply_with_nothing_to_do_leaves_the_state_alone(scenario: Scenario) -> None:
    """A second apply has no changes: it asks nothing, exits 0 and does not rewrite the
    state (so a plan saved meanwhile stays fresh)."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    serial = scenario.state().serial  # type: ignore[union-attr]
    result = scenario.cli("apply")
    assert result.code == 0, result.out + result.err
    assert "No changes." in result.out and "0 created" in result.out
    assert scenario.state().serial == serial  # type: ignore[union-attr]


class _Terminal:
    """A stdin that says it is a terminal; `press` runs when the prompt reads a line."""

    def __init__(self, press: Callable[[], str]) -> None:
        self.press = press
        self.answered = False

    def isatty(self) -> bool:
        return True

    def readline(self) -> str:
        line = self.press()
        self.answered = True
        return line


def _ctrl_c() -> str:
    signal.raise_signal(signal.SIGINT)
    return "yes\n"


def test_ctrl_c_at_the_prompt_interrupts_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while apply asks for `yes` raises KeyboardInterrupt there (exit 130), even
    under asyncio.run, instead of waiting for an answer."""
    terminal = _Terminal(_ctrl_c)
    monkeypatch.setattr(sys, "stdin", terminal)

    async def ask_in_the_loop() -> None:
        confirm(False, "apply")

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(ask_in_the_loop())
    assert not terminal.answered


def _sigterm() -> str:
    signal.raise_signal(signal.SIGTERM)
    return "yes\n"


def test_sigterm_at_the_prompt_stops_at_once_with_143(monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM while apply asks for `yes` stops there (Interrupted, exit 143) instead of
    waiting for an answer; afterwards SIGTERM has its previous handler again."""
    terminal = _Terminal(_sigterm)
    monkeypatch.setattr(sys, "stdin", terminal)
    with pytest.raises(Interrupted) as stopped:
        confirm(False, "apply")
    assert stopped.value.exit_code == 143
    assert not terminal.answered
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_json_output_never_asks() -> None:
    """With --format json there is no question (stdout is for events): an error naming
    --auto-approve, even on a terminal."""
    with pytest.raises(PlannerError, match="--format json") as refused:
        confirm(False, "destroy", output_format="json")
    assert "--auto-approve to destroy" in (refused.value.hint or "")


def test_end_of_input_at_the_prompt_cancels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-D (end of input) at the prompt cancels like any answer but `yes`."""
    monkeypatch.setattr(sys, "stdin", _Terminal(lambda: ""))
    with pytest.raises(PlannerError, match="Destroy cancelled"):
        confirm(False, "destroy")


def test_apply_with_an_unknown_only_name_is_an_error(scenario: Scenario) -> None:
    """`apply --only typo` exits 1 naming the name, and sends nothing (it was a
    warning and a successful "No changes")."""
    result = scenario.cli("apply", "--auto-approve", "--only", "wroker")
    assert result.code == 1
    assert "--only wroker: no deployment of that name in the config or the state" in result.err
    assert "No changes" not in result.out
    assert names_on_server(scenario) == []
