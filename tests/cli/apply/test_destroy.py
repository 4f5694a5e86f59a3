"""`planner destroy` through the CLI entry point, on the embedded control plane."""

from __future__ import annotations

from planner.api.client import ControlPlaneClient
from planner.api.models import is_being_deleted
from tests.cli.conftest import Scenario


def statuses_on_server(scenario: Scenario) -> dict[str, str]:
    async def statuses(client: ControlPlaneClient) -> dict[str, str]:
        return {d.name: str(d.status) async for d in client.iter_deployments()}

    return scenario.remote(statuses)


def test_destroy_deletes_every_managed_deployment_and_nothing_else(scenario: Scenario) -> None:
    """destroy --auto-approve bulk-deletes what the state manages, empties the state and
    leaves a deployment the planner never managed alone."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.write_config(
        scenario.config_path.read_text(encoding="utf-8")
        + '\n[deployments.outsider]\nsource = "internal_docker"\n'
        '[deployments.outsider.source_revision_config]\nimage_uri = "x.example/o:1"\n'
    )
    scenario.create_remote("outsider")
    result = scenario.cli("destroy", "--auto-approve")
    assert result.code == 0, result.out + result.err
    assert "- api will be deleted" in result.out
    assert "Destroy complete: 2 deleted, 0 failed (" in result.out
    assert scenario.state().deployments == {}  # type: ignore[union-attr]
    live = statuses_on_server(scenario)
    assert not is_being_deleted(live.pop("outsider"))
    assert all(map(is_being_deleted, live.values()))  # deleted, or on the way out


def test_destroy_without_a_terminal_needs_auto_approve(scenario: Scenario) -> None:
    """Without a TTY and without --auto-approve, destroy deletes nothing."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    result = scenario.cli("destroy")
    assert result.code == 1
    assert "--auto-approve" in result.err
    assert sorted(scenario.state().deployments) == ["api", "worker"]  # type: ignore[union-attr]


def test_destroy_with_an_empty_state_does_nothing(scenario: Scenario) -> None:
    """With nothing managed, destroy says there is nothing to do and exits 0."""
    result = scenario.cli("destroy", "--auto-approve")
    assert result.code == 0, result.out + result.err
    assert "Destroy complete: 0 deleted, 0 failed (" in result.out


def test_destroy_refuses_a_protected_deployment(scenario: Scenario) -> None:
    """A deployment with lifecycle.protect makes the destroy plan fail: nothing deleted."""
    assert scenario.cli("apply", "--auto-approve").code == 0
    scenario.write_config(
        scenario.config_path.read_text(encoding="utf-8")
        + "\n[deployments.worker.lifecycle]\nprotect = true\n"
    )
    result = scenario.cli("destroy", "--auto-approve")
    assert result.code == 1
    assert "worker is protected" in result.out
    assert sorted(scenario.state().deployments) == ["api", "worker"]  # type: ignore[union-attr]
