"""[defaults] deep-merge under each deployment: tables merge, lists and scalars are replaced."""

from __future__ import annotations

from collections.abc import Callable

from planner.config.merge import deep_merge

Load = Callable[..., object]


def test_nested_tables_merge_and_override_wins() -> None:
    """Keys merge at every depth; the override's value wins where both set one."""
    base = {"a": {"b": 1, "c": {"d": 2, "e": 3}}, "f": 4}
    override = {"a": {"c": {"e": 30, "g": 5}}, "h": 6}
    assert deep_merge(base, override) == {
        "a": {"b": 1, "c": {"d": 2, "e": 30, "g": 5}},
        "f": 4,
        "h": 6,
    }


def test_lists_are_replaced_not_concatenated() -> None:
    """A list in the override replaces the base list whole."""
    assert deep_merge({"x": [1, 2], "y": [3]}, {"x": [9]}) == {"x": [9], "y": [3]}


def test_merge_does_not_mutate_inputs() -> None:
    """Both inputs are left as they were."""
    base = {"a": {"b": 1}}
    override = {"a": {"c": 2}}
    deep_merge(base, override)
    assert base == {"a": {"b": 1}} and override == {"a": {"c": 2}}


def test_defaults_fill_in_and_deployment_wins(load: Load, docker_api: str) -> None:
    """Defaults apply to every deployment; a deployment's own value takes precedence."""
    text = (
        "[defaults.source_config.resource_spec]\ncpu = 1\nmemory_mb = 1024\n"
        "labels = { team = 'core', tier = 'gold' }\n"
        + docker_api
        + "[deployments.api.source_config.resource_spec]\nmemory_mb = 2048\n"
        "labels = { tier = 'silver' }\n" + docker_api.replace("deployments.api", "deployments.web")
    )
    config = load(text)
    api = config.deployments["api"].managed()["source_config"]["resource_spec"]  # type: ignore[attr-defined]
    web = config.deployments["web"].managed()["source_config"]["resource_spec"]  # type: ignore[attr-defined]
    assert api == {"cpu": 1.0, "memory_mb": 2048, "labels": {"team": "core", "tier": "silver"}}
    assert web == {"cpu": 1.0, "memory_mb": 1024, "labels": {"team": "core", "tier": "gold"}}


def test_deployment_list_replaces_default_list(load: Load, docker_api: str) -> None:
    """A deployment's sidecars replace the default sidecars entirely."""
    text = (
        "[[defaults.source_config.resource_spec.sidecars]]\nname = 'log'\nimage = 'log:1'\n"
        + docker_api
        + "[[deployments.api.source_config.resource_spec.sidecars]]\nname = 'otel'\n"
    )
    config = load(text)
    spec = config.deployments["api"].managed()["source_config"]["resource_spec"]  # type: ignore[attr-defined]
    assert spec["sidecars"] == [{"name": "otel"}]


def test_defaults_may_set_source_and_lifecycle(load: Load) -> None:
    """Any deployment key may be defaulted, including source and lifecycle."""
    text = (
        '[defaults]\nsource = "internal_docker"\nlifecycle = { protect = true }\n'
        '[deployments.api]\nsource_revision_config = { image_uri = "img:1" }\n'
    )
    desired = load(text).deployments["api"]  # type: ignore[attr-defined]
    assert desired.source == "internal_docker"
    assert desired.lifecycle.protect is True


def test_problem_from_defaults_says_so(
    problems_of: Callable[..., list[str]], docker_api: str
) -> None:
    """A merged value that breaks a rule is reported on the deployment, marked as inherited."""
    text = "[defaults.source_config.resource_spec]\ncpu = 4\n" + docker_api
    text += "[deployments.api.source_config.resource_spec]\ncpu_limit = 2\n"
    assert problems_of(text) == [
        "planner.toml: deployments.api.source_config.resource_spec.cpu: "
        "must not be greater than cpu_limit (4 > 2) (set in [defaults])"
    ]


def test_bad_default_is_reported_once(
    problems_of: Callable[..., list[str]], docker_api: str
) -> None:
    """A type problem in [defaults] is reported there, not again for each deployment."""
    text = "[defaults.source_config.resource_spec]\ncpu = 'x'\n" + docker_api
    text += docker_api.replace("deployments.api", "deployments.web")
    assert problems_of(text) == [
        "planner.toml: defaults.source_config.resource_spec.cpu: must be a number"
    ]
