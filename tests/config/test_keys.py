"""Unknown keys are errors with a suggestion at every level; nulls, dates, duplicates too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import pytest
from pydantic import Field

from planner.config.keys import check_keys, check_raw_values
from planner.config.models import Config, DeploymentSpec, EnvRef, StrictModel

ProblemsOf = Callable[..., list[str]]
Loader = Callable[..., Config]


@pytest.mark.parametrize(
    ("snippet", "line"),
    [
        (
            "[deployments.api.source_config.resource_spec]\ncpus = 1\n",
            "deployments.api.source_config.resource_spec.cpus: unknown key (did you mean 'cpu'?)",
        ),
        (
            '[[deployments.api.source_config.resource_spec.sidecars]]\nname = "s"\nimgae = "x"\n',
            "deployments.api.source_config.resource_spec.sidecars[0].imgae: "
            "unknown key (did you mean 'image'?)",
        ),
        (
            "[[deployments.api.source_config.resource_spec.volume_mounts]]\n"
            'name = "v"\nmountpath = "/v"\n',
            "deployments.api.source_config.resource_spec.volume_mounts[0].mountpath: "
            "unknown key (did you mean 'mountPath'?)",
        ),
        (
            '[[deployments.api.source_config.resource_spec.init_containers]]\nname = "i"\n'
            "[[deployments.api.source_config.resource_spec.init_containers.volumeMounts]]\n"
            'name = "v"\nreadonly = true\n',
            "deployments.api.source_config.resource_spec.init_containers[0].volumeMounts[0]"
            ".readonly: unknown key (did you mean 'readOnly'?)",
        ),
        (
            "[deployments.api.source_config]\nbuild_on_psh = false\n",
            "deployments.api.source_config.build_on_psh: unknown key "
            "(did you mean 'build_on_push'?)",
        ),
        (
            "[deployments.api.lifecycle]\nprotected = true\n",
            "deployments.api.lifecycle.protected: unknown key (did you mean 'protect'?)",
        ),
        (
            '[deployments.api.secrets]\nTOKEN = { evn = "TOKEN" }\n',
            "deployments.api.secrets.TOKEN.evn: unknown key (did you mean 'env'?)",
        ),
        (
            'secret = "x"\n',
            "deployments.api.secret: unknown key (did you mean 'secrets'?)",
        ),
    ],
)
def test_unknown_key_suggests_the_closest(
    problems_of: ProblemsOf, docker_api: str, snippet: str, line: str
) -> None:
    """An unknown key at any depth is reported at its own path with a 'did you mean'."""
    assert f"planner.toml: {line}" in problems_of(docker_api + snippet)


def test_unknown_top_level_and_defaults_keys(problems_of: ProblemsOf, docker_api: str) -> None:
    """Unknown keys at the top and in [defaults] are reported where they are written."""
    text = "[deployment.x]\n[defaults.source_config]\nrepo_urll = 'x'\n" + docker_api
    problems = problems_of(text)
    assert "planner.toml: deployment: unknown key (did you mean 'deployments'?)" in problems
    assert (
        "planner.toml: defaults.source_config.repo_urll: unknown key (did you mean 'repo_url'?)"
        in problems
    )


def test_unknown_key_without_a_close_match_has_no_suggestion(
    problems_of: ProblemsOf, docker_api: str
) -> None:
    """A key unlike any field is reported without a suggestion."""
    problems = problems_of(docker_api + "[deployments.api.source_config]\nzzzz = 1\n")
    assert problems == ["planner.toml: deployments.api.source_config.zzzz: unknown key"]


def test_api_key_in_config_points_to_the_environment(
    problems_of: ProblemsOf, docker_api: str
) -> None:
    """An API key in [control_plane] is an error telling the user to use PLANNER_API_KEY."""
    problems = problems_of('[control_plane]\napi_key = "sk-123"\n' + docker_api)
    assert len(problems) == 1
    assert problems[0].startswith("planner.toml: control_plane.api_key: ")
    assert "PLANNER_API_KEY" in problems[0]
    assert "sk-123" not in problems[0]


def test_repo_commit_sha_is_response_only(problems_of: ProblemsOf, docker_api: str) -> None:
    """repo_commit_sha (set by the service) cannot be written in a config."""
    text = docker_api.replace(
        'image_uri = "registry', 'repo_commit_sha = "abc", image_uri = "registry'
    )
    assert problems_of(text) == [
        "planner.toml: deployments.api.source_revision_config.repo_commit_sha: "
        "is set by the service (response only) and cannot be configured"
    ]


def test_name_key_is_a_remote_name_only_in_a_deployment(
    problems_of: ProblemsOf, load: Loader, docker_api: str
) -> None:
    """`name` in a deployment is its remote name; in [defaults] it explains where it goes."""
    named = docker_api.replace('source = "internal', 'name = "api"\nsource = "internal')
    assert load(named).deployments["api"].api_name == "api"
    problems = problems_of(docker_api + '[defaults]\nname = "api"\n')
    assert problems == [
        "planner.toml: defaults.name: unknown key: "
        "only a [deployments.<name>] table can give its own remote name (`name = ...`)"
    ]


def test_json_null_is_rejected(problems_of: ProblemsOf) -> None:
    """A JSON null in a model field is an error (leave the key out instead)."""
    text = (
        '{"deployments": {"api": {"source": "internal_docker", '
        '"source_revision_config": {"image_uri": "img:1", "repo_ref": null}}}}'
    )
    assert problems_of(text, name="planner.json") == [
        "planner.json: deployments.api.source_revision_config.repo_ref: "
        "null is not allowed; leave the key out to leave it unmanaged"
    ]


def test_json_duplicate_key_is_reported(problems_of: ProblemsOf) -> None:
    """A key repeated in a JSON object (here a secret name) is an error at its path."""
    text = (
        '{"deployments": {"api": {"source": "internal_docker", '
        '"source_revision_config": {"image_uri": "img:1"}, '
        '"secrets": {"TOKEN": "a", "TOKEN": "b"}}}}'
    )
    problems = problems_of(text, name="planner.json")
    assert (
        "planner.json: deployments.api.secrets.TOKEN: "
        "duplicate key 'TOKEN' (each key may appear once)" in problems
    )


def test_toml_dates_are_rejected(problems_of: ProblemsOf, docker_api: str) -> None:
    """TOML dates have no JSON form, so they are errors even in free-form tables."""
    text = docker_api + "[deployments.api.source_config.resource_spec.labels]\nsince = 2024-01-01\n"
    assert problems_of(text) == [
        "planner.toml: deployments.api.source_config.resource_spec.labels.since: "
        "dates and times are not supported; write the value as a string"
    ]


def test_non_finite_numbers_are_rejected(problems_of: ProblemsOf, docker_api: str) -> None:
    """inf and nan are not numbers the API can take."""
    text = docker_api + "[deployments.api.source_config.resource_spec]\nmemory_mb = inf\n"
    assert (
        "planner.toml: deployments.api.source_config.resource_spec.memory_mb: "
        "must be a finite number" in problems_of(text)
    )


def test_free_form_tables_are_not_walked() -> None:
    """Keys inside free-form objects (labels, volume sources) are the user's own."""
    raw = {
        "source": "internal_docker",
        "source_config": {
            "resource_spec": {
                "labels": {"anything": "goes"},
                "volumes": [{"name": "v", "emptyDir": {"sizeLimit": "1Gi"}}],
            }
        },
    }
    assert list(check_keys(DeploymentSpec, raw, ())) == []
    assert list(check_raw_values(raw)) == []


class Wrapped(StrictModel):
    """Models behind `Annotated`, in lists and in tables: each is walked."""

    one: Annotated[EnvRef, Field(description="one")] | None = None
    many: list[EnvRef] | None = None
    named: dict[str, EnvRef] | None = None
    plain: Annotated[str, Field(min_length=1)] | None = None


def test_models_behind_annotations_lists_and_tables_are_walked() -> None:
    """An unknown key is found in a model however the field wraps it; a scalar field's
    value has no keys to look at."""
    raw = {
        "one": {"env": "A", "x": 1},
        "many": [{"env": "B"}, {"y": 2}],
        "named": {"k": {"z": 3}},
        "plain": {"not": "walked"},
    }
    locs = [problem.loc for problem in check_keys(Wrapped, raw, ("t",))]
    assert locs == [("t", "one", "x"), ("t", "many", 1, "y"), ("t", "named", "k", "z")]
