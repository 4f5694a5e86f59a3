"""Settling a rollback's journalled redeploy from what the server shows
(`planner.plan.redeploys`), against scripted answers (MockTransport)."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from planner.api.client import ControlPlaneClient
from planner.plan.redeploys import redeploy_details, settle_interrupted_redeploys
from planner.plan.rollback import RevisionSummary, RollbackPlan
from planner.state.document import StateDocument
from planner.state.records import RecordedDeployment

pytestmark = pytest.mark.anyio
GOOD = {
    "source": "internal_docker",
    "source_revision_config.image_uri": "registry.example.com/app:1",
}
PLAN = RollbackPlan(
    name="api",
    deployment_id="d-1",
    active=RevisionSummary(id="r8", status="DEPLOYED", created_at="2026-11-23T00:08:00Z"),
    target=RevisionSummary(id="r1", status="DEPLOYED", created_at="2026-11-23T00:01:00Z"),
    latest_revision_id="r8",
    changes=[],
    fields=GOOD,
)


def journalled() -> StateDocument:
    """api recorded at r8 (its config manages the image, at app:2), a redeploy of r1 journalled."""
    doc = StateDocument.new("http://127.0.0.1:8123", None)
    managed = {
        "source": "internal_docker",
        "source_revision_config": {"image_uri": "registry.example.com/app:2"},
    }
    doc.record(RecordedDeployment(name="api", id="d-1", managed=managed, latest_revision_id="r8"))
    doc.add_intent(
        "redeploy", "api", deployment_id="d-1", details=redeploy_details(PLAN, "ops@laptop")
    )
    return doc


def deployment(latest: str) -> dict[str, Any]:
    return {
        "id": "d-1", "tenant_id": "t-1", "name": "api", "source": "internal_docker",
        "source_config": {}, "source_revision_config": {}, "secrets": [], "status": "READY",
        "created_at": "2026-11-23T00:00:00Z", "updated_at": "2026-11-23T00:10:00Z",
        "latest_revision_id": latest, "active_revision_id": "r8",
    }  # fmt: skip


def revision(image: str) -> dict[str, Any]:
    return {
        "id": "r9", "status": "DEPLOYING", "source": "internal_docker",
        "created_at": "2026-11-23T00:10:00Z", "updated_at": "2026-11-23T00:10:00Z",
        "source_revision_config": {"image_uri": f"registry.example.com/{image}"},
    }  # fmt: skip


async def settled(
    doc: StateDocument, answers: dict[str, httpx2.Response]
) -> tuple[list[Any], list[str]]:
    """Settle DOC's journal against ANSWERS (path -> response); what was recovered and
    the paths requested."""
    asked: list[str] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        asked.append(request.url.path)
        return answers[request.url.path]

    client = ControlPlaneClient("http://cp.test", "key", transport=httpx2.MockTransport(answer))
    async with client:
        return await settle_interrupted_redeploys(client, doc), asked


async def test_a_redeploy_that_happened_is_recorded_with_its_hold() -> None:
    """The latest revision moved and carries the target's values: the record gets the
    hold (journalled when and by whom), the server's ids, the values as applied; the
    entry is cleared and the redeploy listed as recovered."""
    doc = journalled()
    started = doc.pending[0].started_at
    answers = {
        "/v2/deployments/d-1": httpx2.Response(200, json=deployment("r9")),
        "/v2/deployments/d-1/revisions/r9": httpx2.Response(200, json=revision("app:1")),
    }
    recovered, _ = await settled(doc, answers)
    assert [(r.name, r.operation, r.deployment_id) for r in recovered] == [
        ("api", "redeploy", "d-1")
    ]
    api = doc.deployments["api"]
    assert api.held is not None and (api.held.revision_id, api.held.by) == ("r1", "ops@laptop")
    assert api.held.since == started[:19] + "Z"
    assert (api.latest_revision_id, api.active_revision_id) == ("r9", "r8")
    assert api.managed["source_revision_config"]["image_uri"] == "registry.example.com/app:1"
    assert doc.pending == []


@pytest.mark.parametrize(
    ("answers", "requests"),
    [
        ({"/v2/deployments/d-1": httpx2.Response(200, json=deployment("r8"))}, 1),
        (
            {
                "/v2/deployments/d-1": httpx2.Response(200, json=deployment("r9")),
                "/v2/deployments/d-1/revisions/r9": httpx2.Response(200, json=revision("app:7")),
            },
            2,
        ),
        ({"/v2/deployments/d-1": httpx2.Response(404, json={"detail": "gone"})}, 1),
    ],
    ids=["never-sent", "changed-by-someone-else", "deployment-gone"],
)
async def test_anything_else_drops_the_entry_and_holds_nothing(
    answers: dict[str, httpx2.Response], requests: int
) -> None:
    """The latest revision did not move, moved to other values, or the deployment is
    gone: no hold (the server does not match one), the entry dropped, nothing recovered."""
    doc = journalled()
    recovered, asked = await settled(doc, answers)
    assert recovered == [] and doc.pending == [] and doc.deployments["api"].held is None
    assert len(asked) == requests


async def test_nothing_journalled_sends_nothing() -> None:
    """A state with no redeploy entry is settled without a request; one whose record is
    gone is dropped without one too."""
    doc = journalled()
    doc.forget("api")
    recovered, asked = await settled(doc, {})
    assert (recovered, asked, doc.pending) == ([], [], [])
    assert await settled(StateDocument.new("http://127.0.0.1:8123", None), {}) == ([], [])
