"""`planner rollback` and `planner release` against `planner serve` over loopback HTTP, in
both dialects: a git deployment (whose words differ between them) rolled back with
exactly the requests expected, released, and planned again."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.api.models import Revision
from planner.api.vocabulary import Dialect
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from tests.cli.conftest import Scenario
from tests.cli.rollback.releases import recorded
from tests.loopback import served

ROUTES = "/v2/deployments/{deployment_id}"
CONFIG = """
[control_plane]
base_url = "{url}"

[deployments.api]
source = "git_host"

[deployments.api.source_config]
integration_id = "9a0e7c55-0000-4000-8000-00000000a001"
repo_url = "https://git.example.com/acme/api"

[deployments.api.source_revision_config]
repo_ref = "{ref}"
agent_config_path = "agent.json"
"""


@contextmanager
def server(root: Path, dialect: Dialect) -> Iterator[str]:
    """`planner serve --dialect DIALECT`'s app over loopback (fast revisions)."""
    settings = ServerSettings(
        db_path=root / f"{dialect}.db", build_seconds=0.05, deploy_seconds=0.05, dialect=dialect
    )
    with served(settings) as url:
        yield url


def revisions(url: str, deployment_id: str) -> list[Revision]:
    """The deployment's revisions, newest first, as the served plane lists them."""

    async def listed() -> list[Revision]:
        client = ControlPlaneClient(url, EMBEDDED_API_KEY, DEFAULT_TENANT_ID, dialect=None)
        async with client:
            return await client.list_revisions(deployment_id)

    return asyncio.run(listed())


def requests_to(url: str, method: str, route: str) -> int:
    """How many METHOD requests ROUTE (a route template) answered, from /metrics."""
    text = httpx2.get(f"{url}/metrics").text
    labels = rf'[^}}]*method="{method}",route="{re.escape(route)}"[^}}]*'
    pattern = rf"controlplane_requests_total\{{{labels}\}} (\S+)"
    return int(sum(float(found) for found in re.findall(pattern, text)))


@pytest.mark.parametrize("dialect", list(Dialect))
def test_rollback_and_release_over_loopback(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch, dialect: Dialect
) -> None:
    """Against a served plane of either dialect (the client left to `auto`), a rollback
    sends one redeploy of the release before, holds it, and the release plans the
    config's ref again as a change, not as drift."""
    monkeypatch.setenv("PLANNER_API_KEY", EMBEDDED_API_KEY)
    with server(scenario.root, dialect) as url:
        for ref in ("v1", "v2"):
            scenario.write_config(CONFIG.format(url=url, ref=ref))
            applied = scenario.cli("apply", "--auto-approve")
            assert applied.code == 0, applied.out + applied.err
        api = recorded(scenario, "api")
        rolled = scenario.cli("rollback", "api", "--auto-approve", "--format", "json")
        assert rolled.code == 0, rolled.out + rolled.err
        redeploys = requests_to(url, "POST", f"{ROUTES}/revisions/{{revision_id}}/redeploy")
        newest = revisions(url, api.id)[0]
        assert redeploys == 1
        assert newest.source_revision_config.repo_ref == "v1"
        assert json.loads(rolled.out)["new_revision_id"] == newest.id
        held = recorded(scenario, "api").held
        assert held is not None
        assert scenario.cli("release", "api").code == 0
        plan = json.loads(scenario.plan("--format", "json").out)
    assert plan["drift"] == []
    [change] = plan["changes"]
    assert [(f["path"], f["before"], f["after"]) for f in change["fields"]] == [
        ("source_revision_config.repo_ref", "v1", "v2")
    ]
