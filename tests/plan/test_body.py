"""Request bodies of planned changes follow PRODUCT.md's PATCH semantics."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment
from planner.api.unknown import READ_EXTRA
from planner.api.vocabulary import Dialect, seed_word, word_in
from planner.config.desired import DesiredDeployment
from planner.plan.body import (
    create_request_body,
    planned_create_body,
    planned_patch,
    planned_patch_body,
)
from planner.plan.diff import make_plan
from planner.plan.model import Change
from planner.plan.paths import RESOURCE_SPEC, get_path, normalize
from planner.plan.stale import secret_moves
from tests.api.api_fakes import deployment_json
from tests.strategies import resource_specs, server_resource_specs

from .builders import INTEGRATION, KEY, edit, git_desired, observed_from, recorded_from


def plan_update(
    before: DesiredDeployment, after: DesiredDeployment, live: Deployment | None = None
) -> Change:
    live = live or observed_from(before)
    plan = make_plan({"api": after}, {"api": recorded_from(before)}, {"api": live}, digest_key=KEY)
    return plan.changes[0]


def config(**extra: Any) -> dict[str, Any]:
    return {
        "integration_id": INTEGRATION,
        "repo_url": "https://git.example.com/acme/api",
        "build_on_push": False,
        **extra,
    }


def test_a_resource_spec_change_sends_the_whole_merged_spec() -> None:
    """The spec is replaced wholesale, so unmanaged observed sub-fields are sent back."""
    before = git_desired()
    after = git_desired(source_config=config(resource_spec={"min_scale": 1, "max_scale": 5}))
    spec = {"min_scale": 1, "max_scale": 3, "cpu": 2.0, "labels": {"team": "a"}}
    live = edit(observed_from(before), {"source_config": {"resource_spec": spec}})
    body = planned_patch_body(plan_update(before, after, live))
    assert body == {
        "source_config": {
            "resource_spec": {"min_scale": 1, "max_scale": 5, "cpu": 2.0, "labels": {"team": "a"}}
        }
    }


def test_secrets_are_sent_whole_only_when_one_changed() -> None:
    """An unchanged secret list is omitted; a change sends every desired secret."""
    before = git_desired(secrets={"A": "1", "B": "2"})
    same = plan_update(
        before, git_desired(secrets={"A": "1", "B": "2"}, source_config=config(build_on_push=True))
    )
    assert "secrets" not in planned_patch_body(same, {"A": "1", "B": "2"})
    changed = plan_update(before, git_desired(secrets={"A": "1", "B": "3"}))
    assert planned_patch_body(changed, {"A": "1", "B": "3"})["secrets"] == [
        {"name": "A", "value": "1"},
        {"name": "B", "value": "3"},
    ]


def test_clearing_secret_references_sends_an_empty_list() -> None:
    """`secret_references = []` in the config clears them with `[]`, not null."""
    refs = [{"name": "db", "secret_name": "db-secret", "secret_key": "url"}]
    before = git_desired(secret_references=refs)
    after = git_desired(secret_references=[])
    assert planned_patch_body(plan_update(before, after)) == {"secret_references": []}


def test_the_create_body_carries_the_config_and_its_secrets() -> None:
    """A create POSTs the name, every set field and the secret values given at apply."""
    desired = git_desired(secrets={"TOKEN": "t"})
    change = make_plan({"api": desired}, {}, {}, digest_key=KEY).changes[0]
    body = planned_create_body(change, {"TOKEN": "t"})
    assert body["name"] == "api"
    assert body["secrets"] == [{"name": "TOKEN", "value": "t"}]
    assert body["source_config"]["resource_spec"] == {"min_scale": 1, "max_scale": 3}
    assert "secrets" not in change.request_body  # the plan's body is left as planned
    assert change.request_body == create_request_body(desired)  # one dump, the same body
    with pytest.raises(ValueError, match="sends no PATCH"):
        planned_patch_body(change)
    with pytest.raises(ValueError, match="no value for secrets TOKEN"):
        planned_create_body(change, {})


def test_secret_values_that_moved_since_the_plan_are_named() -> None:
    """The secrets whose value differs from the plan's digest are named, never shown."""
    desired = git_desired(secrets={"TOKEN": "t"})
    plan = make_plan({"api": desired}, {}, {}, digest_key=KEY)
    assert secret_moves(plan, {"api": desired}, KEY) == []
    moved = git_desired(secrets={"TOKEN": "other"})
    assert secret_moves(plan, {"api": moved}, KEY) == [
        "the secret TOKEN of api changed since the plan"
    ]


def read_as_the_client_does(deployment: Deployment, spec: dict[str, Any]) -> Deployment:
    """DEPLOYMENT as a server holding SPEC as its resource_spec sends it, read the way the
    client reads it (the keys no model knows kept)."""
    doc = deployment.model_dump(mode="json", exclude_none=True)
    doc["source_config"]["resource_spec"] = spec
    return Deployment.model_validate_json(json.dumps(doc), extra=READ_EXTRA)


async def sent_patch(change: Change, dialect: Dialect) -> dict[str, Any]:
    """The body the client sends for CHANGE's PATCH to a server of DIALECT (as apply sends
    it: `planned_patch`, then `patch_deployment`)."""
    bodies: list[dict[str, Any]] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        return httpx2.Response(200, json=deployment_json("d1"))

    transport = httpx2.MockTransport(answer)
    async with ControlPlaneClient("https://cp.example", "k", transport=transport) as client:
        client.dialect = dialect
        await client.patch_deployment("d1", planned_patch(change))
    return bodies[0]


@settings(max_examples=150, deadline=None)
@given(server=server_resource_specs(), wanted=resource_specs(), dialect=st.sampled_from(Dialect))
def test_a_spec_patch_carries_every_key_the_config_does_not_manage(
    server: dict[str, Any], wanted: dict[str, Any], dialect: Dialect
) -> None:
    """For any resource_spec a server holds (keys no model knows at any depth, the service's
    spellings) and any change of the config's spec, the PATCH that replaces the spec sends
    back every key the config does not manage, as the server had it, in the server's
    words; the keys the config manages carry its values."""
    before = git_desired()
    after = git_desired(source_config=config(resource_spec=wanted))
    change = plan_update(before, after, read_as_the_client_does(observed_from(before), server))
    assume(get_path(change.request_body, RESOURCE_SPEC) is not None)
    sent = asyncio.run(sent_patch(change, dialect))["source_config"]["resource_spec"]
    expected = {word_in(dialect, seed_word(k)): v for k, v in server.items()}
    expected = {k: v for k, v in expected.items() if seed_word(k) not in wanted}
    for key, value in wanted.items():  # an empty value: the config wants none there
        if normalize(value) is None:
            assert normalize(sent.pop(word_in(dialect, key), None)) is None
        else:
            expected[word_in(dialect, key)] = value
    assert sent == expected
