"""Each validation rule reports its own path and message (through the real loader)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from planner.api.models import CPU_PAIRS, MEMORY_PAIRS, SCALE_PAIRS
from planner.api.rules import RESOURCE_MAXIMUM
from planner.api.values import MAX_JSON_DEPTH, MAX_STRING_LENGTH
from planner.config.checks import ignorable_paths

ProblemsOf = Callable[..., list[str]]
SPEC = "planner.toml: deployments.api.source_config.resource_spec"


def with_spec(base: str, body: str) -> str:
    return base + "[deployments.api.source_config.resource_spec]\n" + body


@pytest.mark.parametrize("name", ["Api", "my_api", "-api", "api-", "a.b", "äpi"])
def test_name_must_be_lowercase_letters_digits_dashes(
    problems_of: ProblemsOf, docker_api: str, name: str
) -> None:
    """A deployment name outside [a-z0-9-] (or edged with '-') is rejected."""
    text = docker_api.replace("deployments.api", f'deployments."{name}"')
    problems = problems_of(text)
    assert len(problems) == 1
    assert f"deployment name '{name}' must be lowercase letters, digits and '-'" in problems[0]


def test_name_longer_than_63_characters_is_rejected(
    problems_of: ProblemsOf, docker_api: str
) -> None:
    """Names are at most 63 characters (a DNS label)."""
    name = "a" * 64
    problems = problems_of(docker_api.replace("deployments.api", f"deployments.{name}"))
    assert problems == [
        f"planner.toml: deployments.{name}: deployment name '{name}' is longer than 63 characters"
    ]


def test_name_of_63_characters_is_accepted(load: Callable[..., object], docker_api: str) -> None:
    """63 characters is the limit, inclusive."""
    name = "a" * 63
    config = load(docker_api.replace("deployments.api", f"deployments.{name}"))
    assert list(config.deployments) == [name]  # type: ignore[attr-defined]


def test_git_host_requires_its_fields(problems_of: ProblemsOf) -> None:
    """A git_host deployment names every missing required field."""
    problems = problems_of('[deployments.api]\nsource = "git_host"\n')
    where = "planner.toml: deployments.api"
    assert problems == [
        f"{where}.source_config.integration_id: required for source 'git_host'",
        f"{where}.source_config.repo_url: required for source 'git_host'",
        f"{where}.source_revision_config.repo_ref: required for source 'git_host'",
        f"{where}.source_revision_config.agent_config_path: required for source 'git_host'",
    ]


def test_field_of_another_source_is_rejected(problems_of: ProblemsOf, docker_api: str) -> None:
    """A git_host field on an internal_docker deployment is named with its owning source."""
    text = docker_api + '[deployments.api.source_config]\nrepo_url = "https://x"\n'
    assert problems_of(text) == [
        "planner.toml: deployments.api.source_config.repo_url: "
        "not allowed for source 'internal_docker' (belongs to git_host)"
    ]


@pytest.mark.parametrize(
    ("snippet", "path"),
    [
        ('[deployments.api.source_config]\ncustom_url = "https://x"\n', "source_config.custom_url"),
        (
            "[deployments.api.source_config]\n"
            'listener_id = "1d2e3f40-0000-4000-8000-0000000000b1"\n',
            "source_config.listener_id",
        ),
        (
            '[deployments.api.source_config.listener_config]\nk8s_namespace = "ns"\n',
            "source_config.listener_config",
        ),
        (
            "[[deployments.api.secret_references]]\n"
            'name = "A"\nsecret_name = "s"\nsecret_key = "k"\n',
            "secret_references",
        ),
    ],
)
def test_external_docker_only_fields_on_other_sources(
    problems_of: ProblemsOf, docker_api: str, snippet: str, path: str
) -> None:
    """custom_url, listener_*, secret_references belong to external_docker only."""
    assert problems_of(docker_api + snippet) == [
        f"planner.toml: deployments.api.{path}: "
        "not allowed for source 'internal_docker' (belongs to external_docker)"
    ]


def test_external_docker_forbids_agent_config_path(problems_of: ProblemsOf) -> None:
    """external_docker (self-hosted) rejects agent_config_path."""
    text = (
        '[control_plane]\nmode = "self-hosted"\n[deployments.api]\nsource = "external_docker"\n'
        'source_revision_config = { image_uri = "img:1", agent_config_path = "a.json" }\n'
    )
    problems = problems_of(text)
    assert len(problems) == 1
    assert problems[0].startswith(
        "planner.toml: deployments.api.source_revision_config.agent_config_path: not allowed"
    )


def test_build_on_push_with_tag_ref_is_rejected(problems_of: ProblemsOf, git_api: str) -> None:
    """build_on_push = true cannot go with a tag ref."""
    text = git_api.replace('repo_ref = "main"', 'repo_ref = "refs/tags/v1.2.0"').replace(
        'repo_url = "https://git.example.com/acme/api"',
        'repo_url = "https://git.example.com/acme/api"\nbuild_on_push = true',
    )
    assert problems_of(text) == [
        "planner.toml: deployments.api.source_config.build_on_push: "
        "must be false when repo_ref is a tag (refs/tags/v1.2.0)"
    ]


def test_external_docker_is_unavailable_in_cloud_mode(problems_of: ProblemsOf) -> None:
    """The default mode is cloud, where external_docker does not exist."""
    text = (
        '[deployments.api]\nsource = "external_docker"\n'
        'source_revision_config = { image_uri = "i:1" }\n'
    )
    problems = problems_of(text)
    assert len(problems) == 1
    assert problems[0].startswith(
        "planner.toml: deployments.api.source: source 'external_docker' is only available in "
        "self-hosted deployments; this config targets cloud"
    )


def test_cloud_sources_are_unavailable_in_self_hosted_mode(
    problems_of: ProblemsOf, docker_api: str
) -> None:
    """A `mode` argument overrides the file and limits sources accordingly."""
    problems = problems_of(docker_api, mode="self-hosted")
    assert len(problems) == 1
    assert "source 'internal_docker' is only available in cloud deployments" in problems[0]


@pytest.mark.parametrize(("low", "high"), SCALE_PAIRS)
def test_min_scale_must_not_exceed_max_scale(
    problems_of: ProblemsOf, docker_api: str, low: str, high: str
) -> None:
    """Every (min, max) scale pair is checked."""
    problems = problems_of(with_spec(docker_api, f"{low} = 3\n{high} = 2\n"))
    assert problems == [f"{SPEC}.{low}: must not be greater than {high} (3 > 2)"]


@pytest.mark.parametrize(("low", "high"), CPU_PAIRS + MEMORY_PAIRS)
def test_request_must_not_exceed_limit(
    problems_of: ProblemsOf, docker_api: str, low: str, high: str
) -> None:
    """Every (request, limit) pair of CPU and memory is checked."""
    problems = problems_of(with_spec(docker_api, f"{low} = 4\n{high} = 2\n"))
    assert problems == [f"{SPEC}.{low}: must not be greater than {high} (4 > 2)"]


def test_equal_request_and_limit_is_fine(load: Callable[..., object], docker_api: str) -> None:
    """A request equal to its limit is valid."""
    load(with_spec(docker_api, "cpu = 1.5\ncpu_limit = 1.5\nmin_scale = 2\nmax_scale = 2\n"))


@pytest.mark.parametrize("field", ["min_scale", "memory_mb", "db_storage_gi", "db_max_connections"])
def test_numbers_must_not_be_negative(problems_of: ProblemsOf, docker_api: str, field: str) -> None:
    """Negative scales, memory, storage and connection counts are rejected."""
    assert problems_of(with_spec(docker_api, f"{field} = -1\n")) == [
        f"{SPEC}.{field}: must not be negative"
    ]


@pytest.mark.parametrize("field", ["cpu", "queue_cpu_limit", "db_cpu"])
def test_cpu_must_be_greater_than_zero(
    problems_of: ProblemsOf, docker_api: str, field: str
) -> None:
    """A CPU value, where set, must be positive (0 is rejected)."""
    assert problems_of(with_spec(docker_api, f"{field} = 0\n")) == [
        f"{SPEC}.{field}: must be greater than 0"
    ]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cpu", "1e308"),
        ("queue_cpu_limit", "3e9"),
        ("max_scale", "2147483648"),
        ("db_storage_gi", "9007199254740993"),
    ],
)
def test_numbers_past_the_api_range_are_refused(
    problems_of: ProblemsOf, docker_api: str, field: str, value: str
) -> None:
    """A resource number above RESOURCE_MAXIMUM (2**31 - 1) is refused, as the server does."""
    assert problems_of(with_spec(docker_api, f"{field} = {value}\n")) == [
        f"{SPEC}.{field}: must be at most {RESOURCE_MAXIMUM}"
    ]


def test_zero_scale_is_allowed(load: Callable[..., object], docker_api: str) -> None:
    """Scale to zero (min_scale = 0) is valid."""
    load(with_spec(docker_api, "min_scale = 0\nmax_scale = 0\n"))


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("cpu = true\n", f"{SPEC}.cpu: must be a number"),
        ("max_scale = 1.5\n", f"{SPEC}.max_scale: must be a whole number"),
        ('min_scale = "2"\n', f"{SPEC}.min_scale: must be a whole number"),
        ("labels = 3\n", f"{SPEC}.labels: must be a table (object)"),
        (
            '[[deployments.api.source_config.resource_spec.sidecars]]\nimage = "x"\n',
            f"{SPEC}.sidecars[0].name: required",
        ),
    ],
)
def test_types_are_strict(problems_of: ProblemsOf, docker_api: str, body: str, line: str) -> None:
    """Booleans are not numbers, integers are whole, strings are not coerced."""
    assert line in problems_of(with_spec(docker_api, body))


def test_unknown_source_is_rejected(problems_of: ProblemsOf) -> None:
    """`source` must be one of the five sources."""
    problems = problems_of('[deployments.api]\nsource = "docker"\n')
    assert len(problems) == 1
    assert problems[0].startswith("planner.toml: deployments.api.source: must be 'git_host'")


def test_ignore_changes_path_must_name_a_field(problems_of: ProblemsOf, docker_api: str) -> None:
    """An ignore_changes path that names no field is an error with a suggestion."""
    text = (
        docker_api
        + '[deployments.api.lifecycle]\nignore_changes = ["source_config.resource_spec.max_scal"]\n'
    )
    assert problems_of(text) == [
        "planner.toml: deployments.api.lifecycle.ignore_changes[0]: "
        "'source_config.resource_spec.max_scal' names no field of a deployment "
        "(did you mean 'source_config.resource_spec.max_scale'?)"
    ]


def test_ignore_changes_takes_secrets_whole(problems_of: ProblemsOf, docker_api: str) -> None:
    """`secrets.NAME` is refused: secrets are ignored as a whole."""
    text = (
        docker_api + '[deployments.api.lifecycle]\nignore_changes = ["secrets", "secrets.TOKEN"]\n'
    )
    assert problems_of(text) == [
        "planner.toml: deployments.api.lifecycle.ignore_changes[1]: "
        "secrets are ignored as a whole: use 'secrets'"
    ]


def test_ignorable_paths_cover_nested_fields_but_not_response_only() -> None:
    """Paths reach nested model fields; repo_commit_sha and list items are not paths."""
    paths = ignorable_paths()
    assert "source_config.resource_spec.max_scale" in paths
    assert "source_config.listener_config.k8s_namespace" in paths
    assert {"source", "secrets", "secret_references", "source_config"} <= paths
    assert "source_revision_config.repo_commit_sha" not in paths
    assert "name" not in paths


def test_tenant_id_must_be_a_uuid(problems_of: ProblemsOf, docker_api: str) -> None:
    """[control_plane] tenant_id must be a uuid."""
    assert problems_of('[control_plane]\ntenant_id = "acme"\n' + docker_api) == [
        "planner.toml: control_plane.tenant_id: must be a valid UUID"
    ]


@pytest.mark.parametrize("url", ["ftp://host", "localhost:8123", "http://", "https//x"])
def test_base_url_must_be_http_or_https(problems_of: ProblemsOf, docker_api: str, url: str) -> None:
    """[control_plane] base_url must be an http(s) URL with a host."""
    assert problems_of(f'[control_plane]\nbase_url = "{url}"\n' + docker_api) == [
        "planner.toml: control_plane.base_url: must be an http:// or https:// URL with a host"
    ]


def test_control_plane_mode_must_be_known(problems_of: ProblemsOf, docker_api: str) -> None:
    """[control_plane] mode is cloud or self-hosted."""
    problems = problems_of('[control_plane]\nmode = "onprem"\n' + docker_api)
    assert problems == ["planner.toml: control_plane.mode: must be 'cloud' or 'self-hosted'"]


SELF_HOSTED_OPS = """
[control_plane]
mode = "self-hosted"

[deployments.ops]
source = "external_docker"
source_revision_config = { image_uri = "i:1" }
"""


def _reference(name: str) -> str:
    return (
        f'[[deployments.ops.secret_references]]\nname = "{name}"\n'
        'secret_name = "s"\nsecret_key = "k"\n'
    )


def test_secret_reference_names_must_be_env_var_names(problems_of: ProblemsOf) -> None:
    """A secret reference's name becomes an env var, so it must be a valid one."""
    assert problems_of(SELF_HOSTED_OPS + _reference("bad-name")) == [
        "planner.toml: deployments.ops.secret_references[0].name: "
        "must be a valid environment variable name"
    ]


def test_secret_reference_names_are_unique(problems_of: ProblemsOf) -> None:
    """Two references may not set the same variable."""
    assert problems_of(SELF_HOSTED_OPS + _reference("DB") + _reference("DB")) == [
        "planner.toml: deployments.ops.secret_references[1].name: 'DB' is referenced more than once"
    ]


def test_secret_reference_may_not_shadow_a_secret(problems_of: ProblemsOf) -> None:
    """A name is either a secret or a secret reference, not both."""
    text = SELF_HOSTED_OPS + '[deployments.ops.secrets]\nDB = "x"\n' + _reference("DB")
    assert problems_of(text) == [
        "planner.toml: deployments.ops.secret_references[0].name: "
        "'DB' is also declared in secrets; use one or the other"
    ]


def test_values_past_the_shared_bounds_are_rejected(
    problems_of: ProblemsOf, docker_api: str
) -> None:
    """Integers past 64 bits, over-long strings (secrets too) and over-deep tables are refused,
    as the server refuses them."""
    deep = "{ a = " * (MAX_JSON_DEPTH - 3) + "1" + " }" * (MAX_JSON_DEPTH - 3)
    long = "x" * (MAX_STRING_LENGTH + 1)
    body = f'labels = {{ big = {2**63}, long = "{long}", deep = {deep} }}\n'
    text = with_spec(docker_api, body) + f'[deployments.api.secrets]\nTOKEN = "{long}"\n'
    problems = problems_of(text)
    labels = f"{SPEC}.labels"
    assert f"{labels}.big: must be a 64-bit integer (between -2**63 and 2**63 - 1)" in problems
    assert f"{labels}.long: must be at most {MAX_STRING_LENGTH} characters" in problems
    assert "planner.toml: deployments.api.secrets.TOKEN: must be at most" in "\n".join(problems)
    assert any(p.startswith(f"{labels}.deep.a.a") and "nested too deep" in p for p in problems)
