"""Hypothesis strategies shared by the test suite.

`valid_configs()` draws a config file's data (the dict a TOML/JSON file parses to) that
passes every rule of `planner.config`, with the environment its `{ env = ... }` secrets
need: a `ConfigCase(data, environ)`.
"""

from __future__ import annotations

import copy
import string
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from planner.api.models import CPU_PAIRS, MEMORY_PAIRS, SCALE_PAIRS
from planner.config.checks import ignorable_paths

CLOUD_SOURCES = ("git_host", "internal_docker", "internal_source", "internal_template")

names = st.from_regex(r"\A[a-z0-9]([a-z0-9-]{0,14}[a-z0-9])?\Z")
env_names = st.from_regex(r"\A[A-Z][A-Z0-9_]{0,10}\Z")
texts = st.text(
    # No "$": "${" in a string is interpolation (tests/config/test_environments.py).
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="$"),
    min_size=1,
    max_size=12,
)
words = st.text(alphabet=string.ascii_letters + string.digits + "-_./:", min_size=1, max_size=16)
uuids = st.uuids().map(str)
counts = st.integers(min_value=0, max_value=10_000)
cpus = st.floats(min_value=0.001, max_value=64, allow_nan=False, allow_infinity=False)
free_form = st.dictionaries(
    words, st.one_of(texts, st.integers(-1000, 1000), st.booleans()), max_size=3
)


@dataclass
class ConfigCase:
    """Raw config data and the environment its env-referenced secrets read."""

    data: dict[str, Any]
    environ: dict[str, str] = field(default_factory=dict)


def _ordered_pair(values: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[Any, Any]]:
    return st.tuples(values, values).map(lambda pair: (min(pair), max(pair)))


@st.composite
def resource_specs(draw: st.DrawFn) -> dict[str, Any]:
    """A resource_spec with requests within limits and min within max scales."""
    spec: dict[str, Any] = {}
    for pairs, values in ((SCALE_PAIRS, counts), (CPU_PAIRS, cpus), (MEMORY_PAIRS, counts)):
        for low, high in draw(st.lists(st.sampled_from(pairs), max_size=2, unique=True)):
            spec[low], spec[high] = draw(_ordered_pair(values))
    extras = {
        "labels": free_form,
        "annotations": free_form,
        "service_account_name": words,
        "db_storage_gi": counts,
        "image_pull_secrets": st.lists(st.fixed_dictionaries({"name": words}), max_size=2),
        "sidecars": st.lists(containers(), max_size=2),
        "volumes": st.lists(
            st.fixed_dictionaries({"name": words}, optional={"emptyDir": free_form}), max_size=2
        ),
        "volume_mounts": st.lists(volume_mounts(), max_size=2),
    }
    for key in draw(st.lists(st.sampled_from(sorted(extras)), max_size=3, unique=True)):
        spec[key] = draw(extras[key])
    return spec


def volume_mounts() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"name": words, "mountPath": words}, optional={"readOnly": st.booleans()}
    )


def containers() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"name": words},
        optional={
            "image": words,
            "args": st.lists(texts, max_size=3),
            "env": st.lists(st.fixed_dictionaries({"name": env_names, "value": texts}), max_size=2),
            "resources": st.fixed_dictionaries({}, optional={"limits": free_form}),
            "volumeMounts": st.lists(volume_mounts(), max_size=1),
        },
    )


@st.composite
def _source_parts(draw: st.DrawFn, source: str) -> dict[str, Any]:
    """source_config / source_revision_config / secret_references valid for `source`."""
    config: dict[str, Any] = {}
    revision: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    if source == "git_host":
        config.update(integration_id=draw(uuids), repo_url=draw(words))
        tag = draw(st.booleans())
        revision["repo_ref"] = "refs/tags/" + draw(words) if tag else draw(words)
        config["build_on_push"] = False if tag else draw(st.booleans())
    if source in ("git_host", "internal_source", "internal_docker", "internal_template"):
        if source != "internal_docker" or draw(st.booleans()):
            revision["agent_config_path"] = draw(words)
        if draw(st.booleans()):
            config["deployment_type"] = draw(st.sampled_from(["dev_free", "dev", "prod"]))
    if source in ("git_host", "internal_source") and draw(st.booleans()):
        config["install_command"] = draw(texts)
    if source == "internal_source":
        revision["source_tarball_path"] = draw(words)
    if source in ("internal_docker", "external_docker"):
        revision["image_uri"] = draw(words)
    if source == "external_docker":
        config.update(draw(_external_extras()))
        if draw(st.booleans()):
            references = st.lists(_secret_reference(), max_size=2, unique_by=lambda r: r["name"])
            extra["secret_references"] = draw(references)
    if draw(st.booleans()):
        config["resource_spec"] = draw(resource_specs())
    parts = {"source_config": config, "source_revision_config": revision, **extra}
    return {key: value for key, value in parts.items() if value != {}}


def _external_extras() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "custom_url": words,
            "listener_id": uuids,
            "listener_config": st.fixed_dictionaries({"k8s_namespace": words}),
        },
    )


def _secret_reference() -> st.SearchStrategy[dict[str, str]]:
    # Lowercase names never collide with the (uppercase) secret names of `env_names`.
    ref_names = st.from_regex(r"\Aref_[a-z0-9_]{0,8}\Z")
    return st.fixed_dictionaries({"name": ref_names, "secret_name": words, "secret_key": words})


@st.composite
def deployments(draw: st.DrawFn, source: str, environ: dict[str, str]) -> dict[str, Any]:
    """One deployment table; env secrets it uses are added to `environ`."""
    table: dict[str, Any] = {"source": source, **draw(_source_parts(source))}
    secrets: dict[str, bool] = draw(st.dictionaries(env_names, st.booleans(), max_size=3))
    wants_table: bool = draw(st.booleans())
    if secrets or wants_table:
        table["secrets"] = {}
    for name, from_env in secrets.items():
        if from_env:
            variable = "PLANNER_TEST_" + name
            environ[variable] = draw(texts)
            table["secrets"][name] = {"env": variable}
        else:
            table["secrets"][name] = draw(texts)
    if draw(st.booleans()):
        table["lifecycle"] = draw(_lifecycles())
    return table


def _lifecycles() -> st.SearchStrategy[dict[str, Any]]:
    paths = st.lists(st.sampled_from(sorted(ignorable_paths())), max_size=3, unique=True)
    return st.fixed_dictionaries({}, optional={"protect": st.booleans(), "ignore_changes": paths})


@st.composite
def valid_configs(draw: st.DrawFn) -> ConfigCase:
    """A whole valid config (with optional [control_plane]) and its environment."""
    self_hosted = draw(st.booleans())
    sources = st.just("external_docker") if self_hosted else st.sampled_from(CLOUD_SOURCES)
    environ: dict[str, str] = {}
    data: dict[str, Any] = {}
    plane = draw(
        st.fixed_dictionaries(
            {},
            optional={"base_url": st.just("https://cp.example.com/api-host"), "tenant_id": uuids},
        )
    )
    if self_hosted:
        plane["mode"] = "self-hosted"
    if plane:
        data["control_plane"] = plane
    if draw(st.booleans()):
        # Tables merge under every deployment; labels are valid for any source.
        data["defaults"] = {"source_config": {"resource_spec": {"labels": draw(free_form)}}}
    chosen = draw(st.lists(names, max_size=3, unique=True))
    data["deployments"] = {name: draw(deployments(draw(sources), environ)) for name in chosen}
    return ConfigCase(data=data, environ=environ)


def _vocabulary() -> list[str]:
    from planner.api.models import Container, ResourceSpec, SourceConfig, SourceRevisionConfig

    keys = {"source", "secrets", "secret_references", "lifecycle", "env", "protect"}
    keys |= {"ignore_changes", "base_url", "tenant_id", "mode", "name", "image_uri"}
    for model in (SourceConfig, SourceRevisionConfig, ResourceSpec, Container):
        keys |= set(model.model_fields)
    return sorted(keys)


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=False),
    texts,
    st.sampled_from(["git_host", "external_docker", "internal_docker", "refs/tags/v1"]),
)
anything = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(_vocabulary()) | words, inner, max_size=4)
    ),
    max_leaves=12,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else []
    )
    for key, value in items:
        found.extend(_paths(value, (*prefix, key)))
    return found


@st.composite
def broken_configs(draw: st.DrawFn) -> dict[str, Any]:
    """A valid config with a few values replaced or keys added at random: mostly invalid."""
    data = copy.deepcopy(draw(valid_configs()).data)  # never mutate a drawn value
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(data) or [("deployments",)]))
        parent: Any = data
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and draw(st.booleans()):
            parent[draw(st.sampled_from(_vocabulary()))] = draw(anything)
        else:
            parent[path[-1]] = draw(anything)
    return data


# Any JSON value a client could send, big integers and non-finite floats included.
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=2**63 - 2, max_value=2**70),
    st.floats(),
    st.text(max_size=20),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


# --- What a server may send that no wire model knows (tests/plan/test_body.py) ----------


def _is_unknown_spec_key(key: str) -> bool:
    from planner.api.models import ResourceSpec
    from planner.api.vocabulary import seed_word

    return seed_word(key) not in ResourceSpec.model_fields


unknown_spec_keys = st.from_regex(r"\A[a-z][a-z0-9_]{0,12}\Z").filter(_is_unknown_spec_key)
# JSON values a newer server might hold under such a key (no null: a null is no setting).
unknown_values = st.recursive(
    st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def server_resource_specs(draw: st.DrawFn) -> dict[str, Any]:
    """A `resource_spec` as a server may send it: valid known keys, some in the service's
    spelling (a real service's `redis_*`), and keys no wire model knows at its top and in
    its sidecars (a newer setting, a container's `ports`)."""
    from planner.api.vocabulary import RESOURCE_SPEC_KEYS

    spec = copy.deepcopy(draw(resource_specs()))  # never mutate a drawn value
    for seed, service in RESOURCE_SPEC_KEYS:
        if seed in spec and draw(st.booleans()):
            spec[service] = spec.pop(seed)
    spec.update(draw(st.dictionaries(unknown_spec_keys, unknown_values, min_size=1, max_size=3)))
    ports = st.lists(st.fixed_dictionaries({"containerPort": st.integers(1, 65535)}), max_size=2)
    for sidecar in spec.get("sidecars", []):
        if draw(st.booleans()):
            sidecar["ports"] = draw(ports)
    return spec


# --- The machine of tests/cli/apply/test_apply_matches_plan.py ---------------------------------

# The sources whose fields cover every change class (git_host: in place and immutable too).
machine_sources = st.sampled_from(("internal_docker", "git_host"))
# The local control plane's failure triggers in an artifact ("" twice: most rollouts work).
rollout_marks = st.sampled_from(("", "", "fail-build", "fail-deploy"))
# Fields a new revision comes from, and fields edited by hand on the server (drift).
new_revision_fields = st.sampled_from(("max_scale", "artifact", "secret"))
hand_edited_fields = st.sampled_from(("build_on_push", "max_scale", "artifact", "deleted"))
# Several config edits made before one plan: (kind, deployment index, field, mark).
several_edits = st.lists(
    st.tuples(
        st.sampled_from(("in_place", "new_revision", "one_environment", "add")),
        st.integers(min_value=0, max_value=3),
        new_revision_fields,
        rollout_marks,
    ),
    min_size=2,
    max_size=4,
)
# Which deployment a step is about (modulo the number there are).
indexes = st.integers(min_value=0, max_value=3)
# The client call after whose answer an interrupted apply is killed (SIGKILL).
kill_points = st.sampled_from(("create_deployment", "patch_deployment", "delete_deployments"))


# --- The requests of tests/controlplane/test_hot_routes_match.py ------------------------

# Who a request says it is: the known key, a wrong one, or none (the known key as a bearer
# token); and the workspace it names (none, the key's, a malformed one, another one).
hot_callers = st.sampled_from(("known", "known", "known", "wrong", "bearer"))
hot_tenants = st.sampled_from((None, None, "default", "not-a-uuid", "other"))
hot_content_types = st.sampled_from(
    ("application/json", "application/json", "application/json; charset=utf-8", "text/plain")
)
# A few names, so that some are taken; one the rules refuse, one empty.
hot_names = st.sampled_from(("agent-a", "agent-b", "agent-c", "Not A Label", ""))
# What is done to a valid create body before it is sent ("" twice: most are sent as is).
hot_body_edits = st.sampled_from(
    ("", "", "no_name", "external_docker", "bad_secret", "display_name", "bad_cpu", "bad_json")
)
# limit / offset as a client may write them: canonical, out of bounds, not canonical.
hot_page_numbers = st.sampled_from(
    ("1", "2", "20", "100", "0", "101", "05", "+5", "", "abc", "9223372036854775808")
)
# deployment_ids: indexes of deployments created so far, blanks, junk, unknown uuids.
hot_id_picks = st.lists(
    st.one_of(st.integers(0, 5), st.sampled_from((" ", "nope", "")), uuids), max_size=4
)
# Seconds the clock moves before a request (statuses move on, views settle).
hot_advances = st.sampled_from((0.0, 0.05, 0.3, 1.0))
hot_creates = st.fixed_dictionaries(
    {
        "kind": st.just("create"),
        "name": hot_names,
        "edit": hot_body_edits,
        "content_type": hot_content_types,
        "caller": hot_callers,
        "tenant": hot_tenants,
        "advance": hot_advances,
    }
)
hot_pages = st.fixed_dictionaries(
    {
        "kind": st.just("page"),
        "limit": st.none() | hot_page_numbers,
        "offset": st.none() | hot_page_numbers,
        "ids": st.none() | hot_id_picks,
        "extra": st.sampled_from((None, None, "limit=5", "status=READY", "name_contains=a")),
        "caller": hot_callers,
        "tenant": hot_tenants,
        "advance": hot_advances,
    }
)
hot_requests = st.lists(st.one_of(hot_creates, hot_pages), min_size=1, max_size=8)


# --- Configs with environments to promote between (tests/config/test_promotion.py) ------

PROMOTION_ENVIRONMENTS = ("dev", "staging", "prod")
image_tags = st.from_regex(r"\A[0-9a-z][0-9a-z._-]{0,8}\Z")
_promotion_comments = st.sampled_from(("", "", "  # kept", " # why: pinned"))


@st.composite
def promotion_configs(draw: st.DrawFn) -> str:
    """A TOML config of 1-3 image deployments in dev, staging and prod, each image written
    one of the ways promotion edits (a shared `${var.tag}` inside the image, a variable of
    its own that is the whole image, a literal in each environment's overlay), variable
    values inline, in a table or left to the default, comments here and there."""
    styles = draw(st.lists(st.sampled_from(("tag", "whole", "overlay")), min_size=1, max_size=3))
    images = [image_tags.map(f"registry.example.com/app{i}:".__add__) for i in range(3)]
    variables: dict[str, Any] = {}
    if "tag" in styles:
        variables["tag"] = draw(st.none() | image_tags)
    for index, style in enumerate(styles):
        if style == "whole":
            variables[f"img{index}"] = draw(st.none() | images[index])
    lines = ["# promotion test config", ""]
    for name, default in variables.items():
        lines.append(f"[variables.{name}]")
        if default is not None:
            lines.append(f'default = "{default}"{draw(_promotion_comments)}')
        lines.append("")
    for index, style in enumerate(styles):
        lines += [
            f"[deployments.app{index}]{draw(_promotion_comments)}",
            'source = "internal_docker"',
        ]
        written = {
            "tag": f"registry.example.com/app{index}:${{var.tag}}",
            "whole": f"${{var.img{index}}}",
        }
        if style in written:
            lines.append(
                f'source_revision_config.image_uri = "{written[style]}"{draw(_promotion_comments)}'
            )
        lines.append("")
    for env in PROMOTION_ENVIRONMENTS:
        values = {}
        for name, default in variables.items():
            if default is None or draw(st.booleans()):
                values[name] = draw(image_tags if name == "tag" else images[int(name[3:])])
        inline = draw(st.booleans())
        lines.append(f"[environments.{env}]{draw(_promotion_comments)}")
        pairs = [f'{name} = "{value}"' for name, value in values.items()]
        if values and inline:
            lines.append(f"variables = {{ {', '.join(pairs)} }}{draw(_promotion_comments)}")
        lines.append("")
        if values and not inline:
            lines += [f"[environments.{env}.variables]", *pairs, ""]
        for index, style in enumerate(styles):
            if style == "overlay":
                lines.append(f"[environments.{env}.deployments.app{index}.source_revision_config]")
                lines += [f'image_uri = "{draw(images[index])}"{draw(_promotion_comments)}', ""]
    return "\n".join(lines)
