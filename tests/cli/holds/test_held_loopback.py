"""A held deployment against `planner serve` over loopback HTTP, in both dialects, with
the hold written into a file state and into a PostgreSQL state: the plan lists it, and
an apply sends exactly the requests of the other deployment's change (counted by the
server's own metrics), none for the held one."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from planner.api.vocabulary import Dialect
from planner.controlplane.settings import EMBEDDED_API_KEY, ServerSettings
from planner.state import LocalFileBackend
from planner.state.backend import StateBackend
from planner.state.postgres import PostgresBackend
from tests.cli.conftest import Scenario
from tests.cli.holds.rollbacks import hold_in_state
from tests.loopback import served
from tests.postgres import unique_name

GOOD, BAD = "registry.example.com/acme/worker:1", "registry.example.com/acme/worker:2"
_COUNTED = re.compile(
    r'^controlplane_requests_total\{method="(\w+)",route="([^"]+)",status="\d+"\} (\S+)$', re.M
)


def config(url: str, worker: str, web_scale: int, state_name: str | None) -> str:
    state = f'\n[state]\nname = "{state_name}"\n' if state_name else ""
    return (
        f'[control_plane]\nbase_url = "{url}"\n{state}\n'
        '[deployments.worker]\nsource = "internal_docker"\n'
        f'[deployments.worker.source_revision_config]\nimage_uri = "{worker}"\n\n'
        '[deployments.web]\nsource = "internal_docker"\n'
        f"[deployments.web.source_config.resource_spec]\nmax_scale = {web_scale}\n"
        '[deployments.web.source_revision_config]\nimage_uri = "registry.example.com/web:1"\n'
    )


@pytest.fixture(params=list(Dialect), ids=lambda d: f"serve-{d}")
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """`planner serve --dialect …` on loopback (fast revisions); its base URL."""
    settings = ServerSettings(
        db_path=tmp_path / "served.db",
        build_seconds=0.05,
        deploy_seconds=0.05,
        delete_seconds=0.05,
        dialect=request.param,
    )
    with served(settings) as url:
        yield url


def requests_by_route(url: str) -> Counter[tuple[str, str]]:
    """The requests the server answered, by method and route template (its metrics)."""
    with httpx2.Client(base_url=url, headers={"X-Api-Key": EMBEDDED_API_KEY}) as client:
        text = client.get("/metrics").text
    found: Counter[tuple[str, str]] = Counter()
    for method, route, value in _COUNTED.findall(text):
        if route.startswith("/v"):
            found[method, route] += int(float(value))
    return found


def live(url: str, deployment_id: str) -> dict[str, object]:
    with httpx2.Client(base_url=url, headers={"X-Api-Key": EMBEDDED_API_KEY}) as client:
        found: dict[str, object] = client.get(f"/v2/deployments/{deployment_id}").json()
        return found


def redeployed(url: str, deployment_id: str, revision_id: str) -> dict[str, object]:
    """POST the redeploy of REVISION_ID; the deployment once its new revision is active."""
    with httpx2.Client(base_url=url, headers={"X-Api-Key": EMBEDDED_API_KEY}) as client:
        path = f"/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy"
        client.post(path).raise_for_status()
    for _ in range(500):
        now = live(url, deployment_id)
        if now["latest_revision_id"] == now["active_revision_id"]:
            return now
        time.sleep(0.02)
    raise AssertionError("the redeploy did not finish")


@pytest.mark.parametrize("store", ["file", "postgres"])
def test_a_held_deployment_is_listed_and_never_sent_to(
    scenario: Scenario,
    server: str,
    store: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rolled back to 1 and held while the config says 2: the plan lists it held (JSON
    `held[]`, exit 0 with nothing else to do); an apply of a change to `web` sends one
    PATCH (web's) and nothing else that writes; the worker stays on the redeploy."""
    monkeypatch.setenv("PLANNER_API_KEY", EMBEDDED_API_KEY)
    backend: StateBackend
    name = None
    if store == "postgres":
        url = request.getfixturevalue("postgres_url")
        name = unique_name()
        monkeypatch.setenv("PLANNER_STATE", url)
        backend = PostgresBackend(url, name=name)
    else:
        backend = LocalFileBackend(scenario.state_path)
    scenario.write_config(config(server, GOOD, 2, name))
    assert scenario.cli("apply", "--auto-approve").code == 0
    state = backend.read()
    assert state is not None
    worker_id = state.deployments["worker"].id
    good = str(live(server, worker_id)["active_revision_id"])
    scenario.write_config(config(server, BAD, 2, name))
    assert scenario.cli("apply", "--auto-approve").code == 0
    after_redeploy = redeployed(server, worker_id, good)
    hold_in_state(backend, "worker", good)
    planned = scenario.plan("--format", "json", "--detailed-exitcode")
    assert planned.code == 0, planned.err
    plan = json.loads(planned.out)
    assert [h["address"] for h in plan["held"]] == ["worker"]
    assert all(c["action"] == "no_op" for c in plan["changes"])
    assert plan["held"][0]["changes"][0]["after"] == BAD
    scenario.write_config(config(server, BAD, 3, name))
    before = requests_by_route(server)
    result = scenario.cli("apply", "--auto-approve")
    assert result.code == 0, result.err
    sent = requests_by_route(server) - before
    writes = {key: n for key, n in sent.items() if key[0] in ("POST", "PATCH", "DELETE")}
    assert writes == {("PATCH", "/v2/deployments/{deployment_id}"): 1}, sent
    now = live(server, worker_id)
    assert now["latest_revision_id"] == after_redeploy["latest_revision_id"]
    final = backend.read()
    assert final is not None and final.deployments["worker"].held is not None
    if isinstance(backend, PostgresBackend):
        backend.close()
