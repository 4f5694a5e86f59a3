"""Small builders for the three inputs of `make_plan`, and a simulated apply.

`apply_patch_body` follows PRODUCT.md's PATCH semantics: nulls are ignored (merged), a
non-null `resource_spec` replaces the stored spec wholesale, an empty or missing
`secrets` keeps the previous ones (a non-empty list replaces them), and
`secret_references` replaces (so `[]` clears).
"""

from __future__ import annotations

import copy
from typing import Any

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment, Lifecycle
from planner.plan import body as plan_body
from planner.plan.diff import PlanOptions, make_plan
from planner.plan.health import RevisionHealth
from planner.plan.model import Action, Change, Plan
from planner.secrets import secret_digest
from planner.state.records import Hold, RecordedDeployment

KEY = b"k" * 32
TENANT = "6f1c2c1e-0000-4000-8000-000000000001"
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
STAMP = "2026-01-01T00:00:00Z"
# The literal secret values of `rich_inputs`: none may appear in any rendering.
SECRET_VALUES = ["sk-old", "sk-new", "t0k3n"]


def git_desired(name: str = "api", **overrides: Any) -> DesiredDeployment:
    """A git_host deployment as the config would hand it over (only set fields)."""
    data: dict[str, Any] = {
        "name": name,
        "source": "git_host",
        "source_config": {
            "integration_id": INTEGRATION,
            "repo_url": f"https://git.example.com/acme/{name}",
            "build_on_push": False,
            "resource_spec": {"min_scale": 1, "max_scale": 3},
        },
        "source_revision_config": {"repo_ref": "main", "agent_config_path": "agent.json"},
    }
    data.update(overrides)
    return DesiredDeployment.model_validate(data)


def with_lifecycle(desired: DesiredDeployment, **lifecycle: Any) -> DesiredDeployment:
    return desired.model_copy(update={"lifecycle": Lifecycle(**lifecycle)})


def deployment_id(name: str) -> str:
    """A stable uuid-looking id per name."""
    digits = "".join(f"{ord(c):02x}" for c in name)[:12].ljust(12, "0")
    return f"00000000-0000-4000-8000-{digits}"


def observed_from(desired: DesiredDeployment, **server_extras: Any) -> Deployment:
    """The deployment the server would hold after creating `desired` (plus extras)."""
    data = desired.managed()
    data["source_config"] = {**data.get("source_config", {}), **server_extras}
    return Deployment.model_validate(
        {
            **data,
            "id": deployment_id(desired.name),
            "tenant_id": TENANT,
            "name": desired.name,
            "secrets": [{"name": n, "value": v} for n, v in desired.secret_values().items()],
            "created_at": STAMP,
            "updated_at": STAMP,
            "status": "READY",
        }
    )


def recorded_from(desired: DesiredDeployment, key: bytes = KEY) -> RecordedDeployment:
    """What the state records after applying `desired`."""
    return RecordedDeployment(
        name=desired.name,
        id=deployment_id(desired.name),
        managed=desired.managed(),
        secret_digests={n: secret_digest(key, n, v) for n, v in desired.secret_values().items()},
    )


def edit(deployment: Deployment, patch: dict[str, Any]) -> Deployment:
    """A change made outside the planner: `patch` applied with PATCH semantics."""
    return apply_patch_body(deployment, patch)


def apply_patch_body(observed: Deployment, body: dict[str, Any]) -> Deployment:
    doc = observed.model_dump(mode="json")
    for group in ("source_config", "source_revision_config"):
        for key, value in (body.get(group) or {}).items():
            if value is not None:
                doc[group][key] = copy.deepcopy(value)
    if body.get("display_name") is not None:
        doc["display_name"] = body["display_name"]
    if body.get("secrets"):
        doc["secrets"] = copy.deepcopy(body["secrets"])
    if body.get("secret_references") is not None:
        doc["secret_references"] = copy.deepcopy(body["secret_references"])
    return Deployment.model_validate(doc)


def apply_plan(
    plan: Plan,
    desired: dict[str, DesiredDeployment],
    observed: dict[str, Deployment | None],
    key: bytes = KEY,
) -> tuple[dict[str, RecordedDeployment], dict[str, Deployment | None]]:
    """Simulate applying a plan: the new state and the new live deployments."""
    recorded: dict[str, RecordedDeployment] = {}
    live = dict(observed)
    for change in plan.changes:
        live[change.name] = _apply_change(change, desired, live.get(change.name))
        if change.name in desired and live[change.name] is not None:
            recorded[change.name] = recorded_from(desired[change.name], key)
        else:
            live.pop(change.name, None)
    return recorded, live


def _apply_change(
    change: Change, desired: dict[str, DesiredDeployment], current: Deployment | None
) -> Deployment | None:
    if change.action in (Action.CREATE, Action.REPLACE):
        post = plan_body.planned_create_body(change, desired[change.name].secret_values())
        return observed_from(
            DesiredDeployment.model_validate(
                post | {"secrets": {s["name"]: s["value"] for s in post["secrets"]}}
            )
        )
    if change.action is Action.DELETE:
        return None
    if change.action in (Action.UPDATE, Action.NEW_REVISION):
        assert current is not None
        values = desired[change.name].secret_values()
        return apply_patch_body(current, plan_body.planned_patch_body(change, values))
    return current


def rich_inputs() -> dict[str, Any]:
    """One plan with every action, drift, errors, a released field and a sidecar change."""
    support = git_desired(
        "support-agent", secrets={"OPENAI_API_KEY": "sk-old", "LOG_LEVEL": "info"}
    )
    worker = git_desired(
        "worker",
        source_config={
            "integration_id": INTEGRATION,
            "repo_url": "https://git.example.com/acme/worker",
            "resource_spec": {
                "max_scale": 2,
                "sidecars": [
                    {"name": "log-shipper", "image": "shipper:1.0"},
                    {"name": "metrics", "image": "metrics:2.1"},
                ],
            },
            "custom_url": "https://worker.example.com",
        },
    )
    gateway = git_desired("gateway")
    legacy = git_desired("legacy-bot")
    tools = git_desired("tools")
    live = {d.name: observed_from(d) for d in (support, worker, gateway, legacy, tools)}
    recorded = {d.name: recorded_from(d) for d in (support, worker, gateway, legacy, tools)}
    live["support-agent"] = edit(live["support-agent"], {"source_config": {"build_on_push": True}})
    desired = {
        "support-agent": git_desired(
            "support-agent", secrets={"OPENAI_API_KEY": "sk-new", "LOG_LEVEL": "info"}
        ),
        "worker": git_desired(
            "worker",
            source_config={
                "integration_id": INTEGRATION,
                "repo_url": "https://git.example.com/acme/worker",
                "resource_spec": {
                    "max_scale": 4,
                    "sidecars": [
                        {"name": "log-shipper", "image": "shipper:1.1"},
                        {"name": "tracer", "image": "tracer:0.3"},
                    ],
                },
            },
        ),
        "gateway": git_desired(
            "gateway",
            source_config={
                "integration_id": INTEGRATION,
                "repo_url": "https://git.example.com/acme/gateway-v2",
                "build_on_push": True,
                "resource_spec": {"min_scale": 1, "max_scale": 3},
            },
        ),
        "tools": tools,
        "new-agent": git_desired("new-agent", secrets={"TOKEN": "t0k3n"}),
        "imported-agent": git_desired("imported-agent"),
    }
    return {
        "desired": desired,
        "recorded": recorded,
        "observed": live,
        "unmanaged_existing": {"imported-agent": deployment_id("imported-agent")},
        "replace": frozenset({"tools"}),
    }


def health_inputs() -> dict[str, Any]:
    """A deployment whose latest revision failed, one rolling out, one made by hand."""
    failed, rolling = git_desired("ops-bot"), git_desired("batch")
    by_hand = observed_from(git_desired("hand-made"))
    return {
        "desired": {d.name: d for d in (failed, rolling)},
        "recorded": {d.name: recorded_from(d) for d in (failed, rolling)},
        "observed": {d.name: observed_from(d) for d in (failed, rolling)},
        "health": {
            "ops-bot": RevisionHealth(
                deployment_id("ops-bot"), REVISION_FAILED, "DEPLOY_FAILED", REVISION_ACTIVE
            ),
            "batch": RevisionHealth(deployment_id("batch"), REVISION_NEW, "BUILDING", None),
        },
        "unmanaged": [by_hand],
    }


REVISION_FAILED = "11111111-0000-4000-8000-000000000001"
REVISION_ACTIVE = "11111111-0000-4000-8000-000000000002"
REVISION_NEW = "11111111-0000-4000-8000-000000000003"


def rich_plan() -> Plan:
    """The plan of `rich_inputs` and `health_inputs` (the one the goldens and the docs
    show)."""
    inputs, health = rich_inputs(), health_inputs()
    return make_plan(
        inputs["desired"] | health["desired"],
        inputs["recorded"] | health["recorded"],
        inputs["observed"] | health["observed"],
        options=PlanOptions(replace=inputs["replace"]),
        digest_key=KEY,
        unmanaged_existing=inputs["unmanaged_existing"],
        health=health["health"],
        unmanaged=health["unmanaged"],
    )


HELD_REVISION = "11111111-0000-4000-8000-0000000000a1"
HOLD = Hold(revision_id=HELD_REVISION, since="2026-11-23T09:53:00Z", by="ana@laptop")


def held(recorded: RecordedDeployment, hold: Hold = HOLD) -> RecordedDeployment:
    """RECORDED as `planner rollback` leaves it: held on HOLD's revision."""
    return recorded.model_copy(update={"held": hold})


def held_inputs() -> dict[str, Any]:
    """`support-agent` rolled back and held while the config moved on (a new repo_ref and
    more replicas), `batch` held with a config that changes nothing of it, `worker`
    updated in place beside them."""
    support, batch, worker = (
        git_desired("support-agent"),
        git_desired("batch"),
        git_desired("worker"),
    )
    live = {d.name: observed_from(d) for d in (support, batch, worker)}
    recorded = {d.name: recorded_from(d) for d in (support, batch, worker)}
    recorded["support-agent"] = held(recorded["support-agent"])
    recorded["batch"] = held(recorded["batch"])
    desired = {
        "support-agent": git_desired(
            "support-agent",
            source_config={
                "integration_id": INTEGRATION,
                "repo_url": "https://git.example.com/acme/support-agent",
                "build_on_push": False,
                "resource_spec": {"min_scale": 1, "max_scale": 6},
            },
            source_revision_config={"repo_ref": "v2", "agent_config_path": "agent.json"},
        ),
        "batch": batch,
        "worker": git_desired(
            "worker",
            source_config={
                "integration_id": INTEGRATION,
                "repo_url": "https://git.example.com/acme/worker",
                "build_on_push": True,
                "resource_spec": {"min_scale": 1, "max_scale": 3},
            },
        ),
    }
    return {"desired": desired, "recorded": recorded, "observed": live}


def held_plan(command_args: tuple[str, ...] = ()) -> Plan:
    """The plan of `held_inputs` (the held goldens show it)."""
    inputs = held_inputs()
    return make_plan(
        inputs["desired"],
        inputs["recorded"],
        inputs["observed"],
        options=PlanOptions(command_args=command_args),
        digest_key=KEY,
    )
