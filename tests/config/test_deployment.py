"""One deployment becomes desired state whose managed() is exactly what the config sets."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings

from planner.api.rules import Mode
from planner.config.checks import (
    check_ignore_changes,
    check_resource_spec,
    check_secret_references,
    check_value_bounds,
    check_wire_rules,
)
from planner.config.deployment import (
    Defaults,
    _check_desired,
    _desired,
    _managed_body,
    load_deployment,
    validate_model,
)
from planner.config.desired import DesiredDeployment
from planner.config.diagnostics import Problem
from planner.config.merge import deep_merge
from planner.config.models import DeploymentSpec
from planner.config.secret_values import resolve_secrets
from tests.strategies import ConfigCase, free_form, valid_configs

Load = Callable[..., object]
ProblemsOf = Callable[..., list[str]]


def test_managed_holds_only_what_the_config_sets(load: Load, git_api: str) -> None:
    """Unset fields stay out of managed(), at every depth; secrets and lifecycle are apart."""
    text = git_api + "[deployments.api.source_config.resource_spec]\nmax_scale = 3\n"
    text += '[deployments.api.secrets]\nLEVEL = "info"\n'
    desired = load(text).deployments["api"]  # type: ignore[attr-defined]
    assert desired.managed() == {
        "source": "git_host",
        "source_config": {
            "integration_id": "9a0e7c55-0000-4000-8000-00000000a001",
            "repo_url": "https://git.example.com/acme/api",
            "resource_spec": {"max_scale": 3},
        },
        "source_revision_config": {"repo_ref": "main", "agent_config_path": "agent.json"},
    }


def test_secrets_are_managed_only_when_written(load: Load, docker_api: str) -> None:
    """A deployment without a secrets table leaves secrets unmanaged (not set)."""
    desired = load(docker_api).deployments["api"]  # type: ignore[attr-defined]
    assert "secrets" not in desired.model_fields_set
    with_table = load(docker_api + "[deployments.api.secrets]\n").deployments["api"]  # type: ignore[attr-defined]
    assert "secrets" in with_table.model_fields_set


def test_secret_references_empty_list_is_managed(load: Load) -> None:
    """`secret_references = []` is kept (it clears them on the server)."""
    text = (
        '[control_plane]\nmode = "self-hosted"\n[deployments.ops]\nsource = "external_docker"\n'
        'secret_references = []\nsource_revision_config = { image_uri = "i:1" }\n'
    )
    assert load(text).deployments["ops"].managed()["secret_references"] == []  # type: ignore[attr-defined]


def test_invalid_parts_do_not_hide_other_problems() -> None:
    """A type problem sets the value aside; rules on the rest are still checked."""
    own = {
        "source": "git_host",
        "source_config": {"resource_spec": {"cpu": "x", "min_scale": 3, "max_scale": 1}},
    }
    loaded = load_deployment("api", own, Defaults(), mode=Mode.CLOUD, environ={})
    messages = {".".join(map(str, p.loc)): p.message for p in loaded.problems}
    assert messages["source_config.resource_spec.cpu"] == "must be a number"
    assert messages["source_config.resource_spec.min_scale"].startswith("must not be greater")
    assert messages["source_config.repo_url"] == "required for source 'git_host'"
    assert loaded.desired is None


def test_unknown_keys_do_not_hide_other_problems() -> None:
    """An unknown key (in the table, its lifecycle or [defaults]) leaves the rules checked."""
    spec = {"cpu": 2, "cpu_limit": 1}
    own = {
        "source": "internal_docker",
        "typo": 1,
        "lifecycle": {"protekt": True},
        "source_config": {"resource_spec": spec},
    }
    defaults = Defaults(raw={"bogus": 1}, problem_locs=(("bogus",),))
    loaded = load_deployment("api", own, defaults, mode=Mode.CLOUD, environ={})
    messages = {".".join(map(str, p.loc)): p.message for p in loaded.problems}
    assert messages["source_config.resource_spec.cpu"].startswith("must not be greater")
    assert messages["source_revision_config.image_uri"] == "required for source 'internal_docker'"


def test_valid_deployment_has_no_problems() -> None:
    """A complete internal_docker deployment loads into desired state."""
    own = {"source": "internal_docker", "source_revision_config": {"image_uri": "i:1"}}
    loaded = load_deployment("api", own, Defaults(), mode=Mode.CLOUD, environ={})
    assert loaded.problems == []
    assert loaded.desired is not None and loaded.desired.name == "api"


def test_wrongly_typed_or_null_section_is_a_problem_not_a_crash() -> None:
    """A section of the wrong type or null is reported and left out of desired state."""
    own = {"source": "internal_docker", "source_config": 5, "source_revision_config": None}
    loaded = load_deployment("api", own, Defaults(), mode=Mode.CLOUD, environ={})
    assert loaded.desired is None
    assert [(p.loc, p.message) for p in loaded.problems] == [
        (("source_config",), "must be a table (object)"),
        (("source_revision_config", "image_uri"), "required for source 'internal_docker'"),
    ]


def test_display_name_is_managed_and_must_not_be_empty() -> None:
    """`display_name` is managed when written; an empty one is refused (the API's min 1)."""
    own = {
        "source": "internal_docker",
        "display_name": "Hello agent",
        "source_revision_config": {"image_uri": "i:1"},
    }
    loaded = load_deployment("api", own, Defaults(), mode=Mode.CLOUD, environ={})
    assert loaded.desired is not None
    assert loaded.desired.managed()["display_name"] == "Hello agent"
    empty = load_deployment(
        "api", {**own, "display_name": ""}, Defaults(), mode=Mode.CLOUD, environ={}
    )
    assert [(p.loc, p.message) for p in empty.problems] == [
        (("display_name",), "must not be empty")
    ]


def test_tables_inherited_whole_from_defaults_are_one_model(load: Load) -> None:
    """Deployments that inherit a [defaults] table whole share its one validated model
    (a fleet holds it once); one that adds to the table has its own; each deployment's
    managed() is what it would be alone."""
    text = "[defaults.source_config.resource_spec]\ncpu = 0.5\n"
    text += "[defaults.lifecycle]\nprotect = true\n" + "".join(
        f'[deployments.{name}]\nsource = "internal_docker"\n'
        f'source_revision_config = {{ image_uri = "r/{name}:1" }}\n'
        for name in ("a", "b", "c")
    )
    text += "[deployments.c.source_config.resource_spec]\nmemory_mb = 512\n"
    a, b, c = load(text).deployments.values()  # type: ignore[attr-defined]
    assert a.source_config is b.source_config
    assert a.lifecycle is b.lifecycle is c.lifecycle
    assert c.source_config is not a.source_config
    assert a.source_revision_config is not b.source_revision_config
    assert b.managed()["source_config"] == {"resource_spec": {"cpu": 0.5}}
    assert c.managed()["source_config"] == {"resource_spec": {"cpu": 0.5, "memory_mb": 512}}
    assert a.lifecycle.protect and "protect" in a.lifecycle.model_fields_set


def test_problems_do_not_depend_on_a_table_shared_before(problems_of: ProblemsOf) -> None:
    """A deployment's problems are those it has alone, when an earlier deployment
    shares an inherited table with it (JSON positions in a message included)."""
    defaults = {"lifecycle": {"protect": True}}
    clean = {"source": "internal_docker", "source_revision_config": {"image_uri": "r:1"}}
    broken = {**clean, "source_config": {"resource_spec": {"labels": {"k": "\ud800"}}}}

    def lines(deployments: dict[str, object]) -> list[str]:
        text = json.dumps({"defaults": defaults, "deployments": deployments})
        return problems_of(text, name="planner.json")

    alone = lines({"b": broken})
    assert "Invalid JSON" in alone[0]
    assert lines({"a": clean, "b": broken}) == alone


def _nested(depth: int) -> object:
    return {"x": _nested(depth - 1)} if depth else 1


def _reference_checks(desired: DesiredDeployment, mode: Mode) -> list[Problem]:
    """The checks of one deployment as written before `_managed_body`: its whole
    `managed()` dump, every check run on it."""
    body = desired.managed()
    problems = check_wire_rules(body, str(desired.source), mode)
    problems += check_resource_spec(desired.source_config.resource_spec)
    reported = {problem.loc for problem in problems}
    bounds = check_value_bounds(body, desired.secret_values())
    problems += [problem for problem in bounds if problem.loc not in reported]
    problems += check_secret_references(desired)
    problems += check_ignore_changes(
        desired.lifecycle.ignore_changes, ("lifecycle", "ignore_changes")
    )
    return problems


def _in_order(value: object) -> object:
    """VALUE with each table's key order made part of its equality."""
    if isinstance(value, dict):
        return [(key, _in_order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_in_order(item) for item in value]
    return (type(value), value)


def _assert_checked_alike(data: dict[str, Any], environ: dict[str, str], mode: Mode) -> Defaults:
    defaults = Defaults(raw=data.get("defaults", {}))
    for name, own in data["deployments"].items():
        for _ in range(2):  # the second time, the shared tables' dumps are reused
            merged = deep_merge(defaults.raw, own)
            spec, _problems = validate_model(DeploymentSpec, merged)
            if spec is None:
                continue
            secrets = resolve_secrets(
                merged.get("secrets", {}), deployment=name, loc=("secrets",), environ=environ
            )
            desired = _desired(name, spec, merged, secrets, defaults)
            if isinstance(own.get("name"), str):
                desired = desired.model_copy(update={"remote_name": own["name"]})
            body, plain = _managed_body(desired, defaults)
            assert _in_order(body) == _in_order(desired.managed())
            if plain:
                assert check_value_bounds(body, {}) == []
            assert _check_desired(desired, mode, defaults) == _reference_checks(desired, mode)
    return defaults


@settings(max_examples=60, deadline=None)
@given(case=valid_configs(), shared_labels=free_form)
def test_shared_tables_are_checked_as_each_deployment_would_be(
    case: ConfigCase, shared_labels: dict[str, Any]
) -> None:
    """The wire body a deployment's checks read is its `managed()`, key for key, and the
    checks find what they find on that dump, whether its tables are shared with other
    deployments (from [defaults]) or its own."""
    shared = {"source_config": {"resource_spec": {"labels": shared_labels}}}
    data = {**case.data, "defaults": shared}
    mode = Mode.SELF_HOSTED if "mode" in data.get("control_plane", {}) else Mode.CLOUD
    _assert_checked_alike(data, case.environ, mode)


@pytest.mark.parametrize(
    "shared",
    [
        {"resource_spec": {"labels": {"big": 2**70}, "max_scale": 3}},
        {"resource_spec": {"labels": {"text": "x" * 20_000, "é": "ü"}}},
        {"resource_spec": {"min_scale": 5, "max_scale": 2, "cpu": -1.0}},
        {"resource_spec": {"labels": {"deep": _nested(40)}}},
        {"build_command": "make", "resource_spec": {"cpu": 2**64}},
    ],
)
def test_shared_tables_out_of_bounds_are_reported_alike(shared: dict[str, Any]) -> None:
    """A shared table past a value bound or a resource rule: every deployment inheriting
    it gets the problems the whole dump of its own would give."""
    data = {
        "defaults": {"source_config": shared},
        "deployments": {
            "a": {"source": "internal_docker", "source_revision_config": {"image_uri": "i:1"}},
            "b": {
                "source": "internal_docker",
                "name": "b-ü",
                "display_name": "B" * 20_000,
                "source_revision_config": {"image_uri": "i:2"},
                "secrets": {"K": "v\udcff", "L": "plain"},
            },
            "c": {"source": "git_host", "source_config": {"repo_url": "https://x.example/c"}},
        },
    }
    defaults = _assert_checked_alike(data, {}, Mode.CLOUD)
    assert {"source_config", "resource_spec"} <= defaults.derived.keys()  # shared, not redone
