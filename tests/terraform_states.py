"""Terraform states as the langsmith provider writes them, for the tests of
`planner import --from-terraform`.

The attributes are those of the provider's `langsmith_deployment` schema (its public
source, `internal/provider/deployment_resource.go`): every attribute is written, null
when unset; nested objects (`source_config`, its `listener_config` and `resource_spec`,
`source_revision_config`) are written whole or null; the write-only `secrets` is always
null, `environment_variables` holds its values in clear. An import adopts what the API
returns of `source_config` and, for the source, of `source_revision_config`.

`state_file` wraps instances as a state file of format version 4, `show_json` as the
output of `terraform show -json`: a module's resources in `child_modules`, nested.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner.api.models import Deployment
from planner.api.vocabulary import Dialect, translate_body
from planner.config.terraform_state import index_text

PROVIDER = "registry.terraform.io/langchain-ai/langsmith"
TOP_KEYS = (
    "active_revision_id",
    "created_at",
    "display_name",
    "environment_variables",
    "id",
    "latest_revision_id",
    "latest_revision_status",
    "name",
    "secret_references",
    "secrets",
    "secrets_hash",
    "secrets_version",
    "source",
    "source_config",
    "source_revision_config",
    "status",
    "tenant_id",
    "updated_at",
)
SOURCE_CONFIG_KEYS = (
    "build_command",
    "build_on_push",
    "custom_url",
    "deployment_type",
    "install_command",
    "integration_id",
    "listener_config",
    "listener_id",
    "repo_url",
    "resource_spec",
    "template_id",
)
RESOURCE_SPEC_KEYS = (
    "annotations",
    "cpu",
    "cpu_limit",
    "labels",
    "max_scale",
    "memory_limit_mb",
    "memory_mb",
    "min_scale",
    "service_account_name",
)
REVISION_KEYS = ("image_uri", "langgraph_config_path", "repo_ref", "source_tarball_path")
# Which keys of source_revision_config the provider adopts on import, by source.
REVISION_KEYS_OF = {
    "github": ("repo_ref", "langgraph_config_path"),
    "external_docker": ("image_uri",),
    "internal_docker": ("image_uri",),
    "internal_source": ("langgraph_config_path", "source_tarball_path"),
    "internal_template": (),
}


def attributes(
    live: Deployment,
    *,
    environment_variables: Mapping[str, str] | None = None,
    **overrides: Any,
) -> dict[str, Any]:
    """The attributes the provider writes for LIVE (read back after a create or an
    import), the service's words; ENVIRONMENT_VARIABLES is the public map as configured,
    OVERRIDES replace attributes (a key of `source_config` or `source_revision_config`
    given as that object)."""
    wire = translate_body(live.model_dump(mode="json"), Dialect.SERVICE)
    config = wire.get("source_config") or {}
    spec = config.get("resource_spec")
    source_config = {key: config.get(key) for key in SOURCE_CONFIG_KEYS}
    if spec is not None:
        source_config["resource_spec"] = {key: spec.get(key) for key in RESOURCE_SPEC_KEYS}
    listener = config.get("listener_config")
    if listener is not None:
        source_config["listener_config"] = {"k8s_namespace": listener.get("k8s_namespace")}
    revision = wire.get("source_revision_config") or {}
    adopted = REVISION_KEYS_OF[wire["source"]]
    out: dict[str, Any] = {key: None for key in TOP_KEYS}
    out |= {key: wire.get(key) for key in ("id", "name", "source", "display_name", "status")}
    out |= {
        key: wire.get(key)
        for key in ("tenant_id", "created_at", "updated_at", "latest_revision_id")
    }
    out["active_revision_id"] = wire.get("active_revision_id")
    out["latest_revision_status"] = "DEPLOYED"
    out["source_config"] = source_config
    out["source_revision_config"] = {
        key: revision.get(key) if key in adopted else None for key in REVISION_KEYS
    }
    out["environment_variables"] = (
        dict(environment_variables) if environment_variables is not None else None
    )
    out["secrets_hash"] = environment_digest(live)
    if wire.get("secret_references"):
        out["secret_references"] = wire["secret_references"]
    return out | overrides


def environment_digest(live: Deployment) -> str:
    """`secrets_hash` as the provider computes it: sha256 of the environment as JSON."""
    values = {secret.name: secret.value for secret in live.secrets}
    encoded = json.dumps(values, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(encoded).hexdigest()


@dataclass(frozen=True)
class Instance:
    """One resource instance: its resource's name, module path and mode, its index key."""

    name: str
    attributes: Mapping[str, Any]
    module: str = ""
    index_key: int | str | None = None
    mode: str = "managed"
    type: str = "langsmith_deployment"

    @property
    def address(self) -> str:
        data = "data." if self.mode == "data" else ""
        prefix = f"{self.module}." if self.module else ""
        return f"{prefix}{data}{self.type}.{self.name}{index_text(self.index_key)}"


def state_file(instances: Sequence[Instance]) -> dict[str, Any]:
    """A state file of format version 4 holding INSTANCES (one resource per name)."""
    resources: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for instance in instances:
        key = (instance.module, instance.mode, instance.type, instance.name)
        resource = resources.get(key)
        if resource is None:
            resource = {
                "mode": instance.mode,
                "type": instance.type,
                "name": instance.name,
                "provider": f'provider["{PROVIDER}"]',
                "instances": [],
            }
            if instance.module:
                resource = {"module": instance.module, **resource}
            resources[key] = resource
        written: dict[str, Any] = {"schema_version": 0}
        if instance.index_key is not None:
            written["index_key"] = instance.index_key
        written["attributes"] = dict(instance.attributes)
        written["sensitive_attributes"] = [[{"type": "get_attr", "value": "secrets"}]]
        resource["instances"].append(written)
    return {
        "version": 4,
        "terraform_version": "1.15.5",
        "serial": 3,
        "lineage": "6355ecec-c2c9-b42c-da2c-555f61251d3c",
        "outputs": {},
        "resources": list(resources.values()),
        "check_results": None,
    }


def show_json(instances: Sequence[Instance]) -> dict[str, Any]:
    """`terraform show -json` of a state holding INSTANCES."""
    root: dict[str, Any] = {"resources": []}
    modules: dict[str, dict[str, Any]] = {"": root}
    for instance in instances:
        module = _module(modules, instance.module)
        resource: dict[str, Any] = {
            "address": instance.address,
            "mode": instance.mode,
            "type": instance.type,
            "name": instance.name,
        }
        if instance.index_key is not None:
            resource["index"] = instance.index_key
        resource |= {
            "provider_name": PROVIDER,
            "schema_version": 0,
            "values": dict(instance.attributes),
            "sensitive_values": {"secrets": True, "secrets_hash": True},
        }
        module.setdefault("resources", []).append(resource)
    return {"format_version": "1.0", "terraform_version": "1.15.5", "values": {"root_module": root}}


def _module(modules: dict[str, dict[str, Any]], path: str) -> dict[str, Any]:
    """The object of module PATH (`module.a["x"].module.b`), made with its parents."""
    if path in modules:
        return modules[path]
    cut = path.rfind(".module.")
    parent = _module(modules, path[:cut] if cut >= 0 else "")
    module: dict[str, Any] = {"address": path}
    parent.setdefault("child_modules", []).append(module)
    modules[path] = module
    return module
