"""A state database's password, given in `--state postgresql://user:PASSWORD@host/db`, is
in no output, file or page: not in the commands the planner suggests (they repeat the URL
without it), not in a saved plan, a step summary or the reconcile status page."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
import traceback

import httpx2
import pytest

from planner.api.models import DeploymentCreate
from planner.cli.main import main
from planner.errors import StateError
from planner.secrets import url_without_password
from tests.cli.conftest import BASE_CONFIG, Result, Scenario
from tests.postgres import unique_name, with_a_password


@pytest.fixture
def team(scenario: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Scenario:
    """The scenario with a PostgreSQL state of its own (given by --state), a step summary
    file, `worker` already running (declared, not recorded) and `by-hand` (declared by no
    config)."""
    scenario.write_config(BASE_CONFIG + f'\n[state]\nname = "{unique_name()}"\n')
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(scenario.root / "summary.md"))
    create = DeploymentCreate.model_validate(
        {
            "name": "by-hand",
            "source": "internal_docker",
            "source_revision_config": {"image_uri": "r/h:1"},
        }
    )
    scenario.remote(lambda client: client.create_deployment(create))
    scenario.create_remote("worker")
    return scenario


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def reconcile_page(scene: Scenario, state_url: str) -> tuple[Result, str]:
    """`planner reconcile --mode detect --listen` run until its status page shows the last
    plan with a suggested command (fetched over loopback), then stopped with SIGTERM: its
    result and that page."""
    port = free_port()
    page: list[str] = []

    def fetch_then_stop() -> None:
        deadline = time.monotonic() + 60
        with httpx2.Client() as http:
            while time.monotonic() < deadline:
                try:
                    text = http.get(f"http://127.0.0.1:{port}/").text
                except httpx2.TransportError:
                    text = ""
                if "planner import" in text:
                    page.append(text)
                    break
                time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    stopper = threading.Thread(target=fetch_then_stop, daemon=True)
    stopper.start()
    result = scene.cli(
        "reconcile", "--mode", "detect", "--interval", "0.05",
        "--listen", f"127.0.0.1:{port}", "--state", state_url,
    )  # fmt: skip
    stopper.join()
    assert page, f"the status page never showed the plan: {result.err}"
    return result, page[0]


def test_no_output_file_or_page_carries_the_state_password(
    team: Scenario, postgres_url: str
) -> None:
    """plan (every format, --out), show, import, apply, state rm/pull, reconcile's page and
    import --all (its generated config) with `--state URL-WITH-PASSWORD`: the password
    appears nowhere, and the import hints repeat `--state` with the URL without it."""
    state_url, password = with_a_password(postgres_url)
    state = ("--state", state_url)
    spoken = url_without_password(state_url)
    results = [team.plan(*state), team.plan("--format", "markdown", *state)]
    as_json = team.plan("--format", "json", *state)
    results.append(as_json)
    (problem,) = json.loads(as_json.out)["errors"]
    worker = problem["message"].split("(id ")[1].split(")")[0]
    assert f"`planner import --state {spoken} worker {worker}`" in problem["hint"]
    results.append(team.cli("import", "worker", worker, *state))
    assert f"planner plan --state {spoken}" in results[-1].out
    saved = team.plan("--out", "plan.json", *state)
    results.append(saved)
    recorded = json.loads((team.root / "plan.json").read_text())
    (unmanaged,) = recorded["unmanaged"]
    hand = unmanaged["id"]
    assert unmanaged["import_command"] == f"planner import --state {spoken} by-hand {hand}"
    shown = [
        team.cli("show", "plan.json", "--format", f, *state) for f in ("text", "markdown", "json")
    ]
    results += shown
    assert all(f"by-hand {hand}" in result.out for result in shown)
    results.append(team.cli("apply", "--auto-approve", *state))
    results.append(team.cli("state", "rm", "worker", *state))
    assert f"planner import --state {spoken} worker {worker}" in results[-1].out
    results.append(team.cli("state", "pull", *state))
    reconciled, page = reconcile_page(team, state_url)
    results.append(reconciled)
    adopted = f"{unique_name('adopted')}.toml"
    argv = ("import", "--all", "--auto-approve", "--generate-config", adopted, *state)
    results.append(team.cli(*argv))
    assert f"by-hand (id {hand}" in results[-1].out
    assert f"planner import --state {spoken} worker {worker}" in page
    assert all(r.code == 0 for r in results[3:]), [r.err for r in results[3:] if r.code]
    for result in results:
        assert password not in result.out + result.err
    assert password not in page
    files = [p for p in team.root.rglob("*") if p.is_file()]
    assert {team.root / "summary.md", team.root / "plan.json", team.root / adopted} <= set(files)
    for path in files:
        assert password.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("url", [
    "postgresql://u:SECR@ETPW4@127.0.0.1:5432/db",  # an unencoded "@" in the password
    "postgresql://u:SECRETPW4@[::1/db",  # an IPv6 host without its "]"
])  # fmt: skip
def test_a_malformed_state_url_is_refused_without_a_piece_of_its_password(
    scenario: Scenario, url: str
) -> None:
    """A state URL libpq would misread is refused before any connection, naming --state
    and PLANNER_STATE, with no piece of the password (not an internal error)."""
    result = scenario.plan("--state", url)
    assert result.code == 1
    assert "internal error" not in result.err
    assert "PLANNER_STATE" in result.err
    assert "ETPW4" not in result.err
    with pytest.raises(StateError) as caught:
        main(["--debug", "plan", "--state", url])
    shown = "".join(traceback.format_exception(caught.value))
    assert "ETPW4" not in shown
