"""Hypothesis strategies for the three inputs of make_plan.

A *world* is: what was applied last (prior configs), what the config says now, and what
the server holds (the prior configs as created, possibly edited outside the planner).
Immutable fields stay fixed per name so plans are free of immutable-change errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.state.records import RecordedDeployment

from .builders import INTEGRATION, apply_patch_body, observed_from, recorded_from

NAMES = ["api", "batch", "chat", "docs", "edge"]
IGNORABLE = [
    "source_config.resource_spec.max_scale",
    "source_config.resource_spec",
    "source_config.build_on_push",
    "source_revision_config.repo_ref",
    "secrets",
]

small_text = st.text(alphabet="abcxyz019-", min_size=1, max_size=6)
containers = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["log", "proxy", "metrics"]), "image": small_text}
    ),
    max_size=3,
    unique_by=lambda c: c["name"],
)


def optional_fields(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts holding any subset of the given fields (unset fields are unmanaged)."""
    return st.fixed_dictionaries({}, optional=fields)


resource_specs = optional_fields(
    min_scale=st.integers(0, 3),
    max_scale=st.integers(3, 9),
    cpu=st.sampled_from([0.25, 0.5, 1, 2.0]),
    memory_mb=st.sampled_from([512, 1024, 2048]),
    labels=st.dictionaries(st.sampled_from(["team", "tier"]), small_text, max_size=2),
    sidecars=containers,
)
secrets = st.dictionaries(st.sampled_from(["A", "B", "C"]), small_text, max_size=3)


@st.composite
def desired_deployments(draw: st.DrawFn, name: str) -> DesiredDeployment:
    source_config: dict[str, Any] = {
        "integration_id": INTEGRATION,
        "repo_url": f"https://git.example.com/acme/{name}",
    }
    source_config |= draw(
        optional_fields(
            build_on_push=st.booleans(),
            custom_url=small_text,
            install_command=small_text,
            resource_spec=resource_specs,
        )
    )
    revision = draw(optional_fields(repo_ref=small_text, agent_config_path=small_text))
    ignore = draw(st.lists(st.sampled_from(IGNORABLE), max_size=2, unique=True))
    return DesiredDeployment.model_validate(
        {
            "name": name,
            "source": "git_host",
            "source_config": source_config,
            "source_revision_config": revision,
            "secrets": draw(secrets),
            "lifecycle": {"ignore_changes": ignore},
        }
    )


outside_edits = optional_fields(
    source_config=optional_fields(
        build_on_push=st.booleans(), custom_url=small_text, resource_spec=resource_specs
    ),
    source_revision_config=optional_fields(repo_ref=small_text),
    secrets=st.lists(
        st.fixed_dictionaries({"name": st.sampled_from(["A", "B"]), "value": small_text}),
        min_size=1,
        max_size=2,
        unique_by=lambda s: s["name"],
    ),
)


@dataclass(frozen=True)
class World:
    desired: dict[str, DesiredDeployment]
    recorded: dict[str, RecordedDeployment]
    observed: dict[str, Deployment | None]


@st.composite
def worlds(draw: st.DrawFn) -> World:
    """Names in the state (some edited or deleted outside) and names in the config."""
    in_state = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=4))
    in_config = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=4))
    prior = {name: draw(desired_deployments(name)) for name in in_state}
    recorded = {name: recorded_from(deployment) for name, deployment in prior.items()}
    observed: dict[str, Deployment | None] = {}
    for name, deployment in prior.items():
        live: Deployment | None = observed_from(deployment)
        if draw(st.integers(0, 9)) == 0:
            live = None
        elif draw(st.booleans()):
            live = apply_patch_body(observed_from(deployment), draw(outside_edits))
        observed[name] = live
    desired = {name: draw(desired_deployments(name)) for name in in_config}
    return World(desired, recorded, observed)
