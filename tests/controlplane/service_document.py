"""Facts of the real service's published OpenAPI document, written down by hand.

The document: "LangSmith Deployment Control Plane API" 0.1.0 (OpenAPI 3.1), kept in the
repository `api-evangelist/langgraph` at `openapi/_original/langgraph-openapi.json`
(commit cc984d23). What is below was derived from it and written here in this module's
own form: its operations with the statuses each lists, its enums, the fields of the
schemas `planner serve --dialect service` answers with (their JSON types, which are
required). No text of the document is copied (no descriptions, no schema documents).
`test_service_conformance.py` checks the service dialect against these facts.

A type is one of the `T` values, `Nullable(t)`, `ListOf(t)`, `OneOf(values)` (an enum,
a const being an enum of one), `AnyOf(types)`, `Ref(name)` (a schema of `SCHEMAS`), or
`Mapping(t)` (an object whose values are all t). An object may carry properties its
schema does not name (the document forbids none).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class T(Enum):
    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    UUID = "uuid"  # a string of format uuid
    DATE_TIME = "date-time"  # a string of format date-time
    OBJECT = "object"  # any object


@dataclass(frozen=True)
class Nullable:
    of: Any


@dataclass(frozen=True)
class ListOf:
    of: Any


@dataclass(frozen=True)
class OneOf:
    values: tuple[str, ...]


@dataclass(frozen=True)
class AnyOf:
    kinds: tuple[Any, ...]


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Mapping:
    of: Any


@dataclass(frozen=True)
class Schema:
    fields: dict[str, Any]
    required: frozenset[str] = field(default_factory=frozenset)


# --- Enums ------------------------------------------------------------------------

SOURCES = ("github", "external_docker", "internal_docker", "internal_source")
REVISION_SOURCES = ("github", "internal_docker", "internal_source")
DEPLOYMENT_TYPES = ("dev_free", "dev", "prod")
DEPLOYMENT_STATUSES = ("AWAITING_DATABASE", "READY", "UNUSED", "AWAITING_DELETE", "UNKNOWN")
REVISION_STATUSES = (
    "CREATING",
    "QUEUED",
    "AWAITING_BUILD",
    "BUILDING",
    "AWAITING_DEPLOY",
    "DEPLOYING",
    "CREATE_FAILED",
    "BUILD_FAILED",
    "DEPLOY_FAILED",
    "DEPLOYED",
    "SKIPPED",
    "INTERRUPTED",
    "UNKNOWN",
)
COMPUTE_TYPES = ("k8s",)

# --- Schemas (the response ones, and the request ones whose keys the twin must take) --

_TEXT = Nullable(T.STRING)
RESOURCE_NUMBERS = {
    # name: integer or number; the CPU ones bounded (minimum, maximum)
    "min_scale": T.INTEGER,
    "max_scale": T.INTEGER,
    "cpu": T.NUMBER,
    "cpu_limit": T.NUMBER,
    "memory_mb": T.INTEGER,
    "memory_limit_mb": T.INTEGER,
    "queue_min_scale": T.INTEGER,
    "queue_max_scale": T.INTEGER,
    "queue_cpu": T.NUMBER,
    "queue_cpu_limit": T.NUMBER,
    "queue_memory_mb": T.INTEGER,
    "queue_memory_limit_mb": T.INTEGER,
    "orchestrator_cpu": T.NUMBER,
    "orchestrator_cpu_limit": T.NUMBER,
    "orchestrator_memory_mb": T.INTEGER,
    "orchestrator_memory_limit_mb": T.INTEGER,
    "orchestrator_min_scale": T.INTEGER,
    "orchestrator_max_scale": T.INTEGER,
    "executor_cpu": T.NUMBER,
    "executor_cpu_limit": T.NUMBER,
    "executor_memory_mb": T.INTEGER,
    "executor_memory_limit_mb": T.INTEGER,
    "redis_cpu": T.NUMBER,
    "redis_cpu_limit": T.NUMBER,
    "redis_memory_mb": T.INTEGER,
    "redis_memory_limit_mb": T.INTEGER,
    "db_cpu": T.NUMBER,
    "db_cpu_limit": T.NUMBER,
    "db_memory_mb": T.INTEGER,
    "db_memory_limit_mb": T.INTEGER,
    "db_storage_gi": T.INTEGER,
    "db_max_connections": T.INTEGER,
}
CPU_BOUNDS = {
    "cpu": (0.1, 8),
    "queue_cpu": (0.1, 8),
    "redis_cpu": (0.1, 8),
    "cpu_limit": (0.1, 16),
    "queue_cpu_limit": (0.1, 16),
    "redis_cpu_limit": (0.1, 16),
}

SCHEMAS: dict[str, Schema] = {
    "Deployment": Schema(
        fields={
            "name": T.STRING,
            "source": OneOf(SOURCES),
            "source_config": Ref("SourceConfig"),
            "source_revision_config": Ref("SourceRevisionConfig"),
            "secrets": ListOf(Ref("Secret")),
            "secret_references": Nullable(ListOf(Ref("SecretReference"))),
            "id": T.UUID,
            "tenant_id": T.UUID,
            "created_at": T.DATE_TIME,
            "updated_at": T.DATE_TIME,
            "status": OneOf(DEPLOYMENT_STATUSES),
            "latest_revision_id": Nullable(T.UUID),
            "active_revision_id": Nullable(T.UUID),
            "image_version": _TEXT,
        },
        required=frozenset(
            {
                "name",
                "source",
                "source_config",
                "source_revision_config",
                "secrets",
                "id",
                "tenant_id",
                "created_at",
                "updated_at",
                "status",
                "latest_revision_id",
                "active_revision_id",
            }
        ),
    ),
    "SourceConfig": Schema(
        fields={
            "integration_id": Nullable(T.UUID),
            "repo_url": _TEXT,
            "deployment_type": Nullable(OneOf(DEPLOYMENT_TYPES)),
            "build_on_push": Nullable(T.BOOLEAN),
            "custom_url": _TEXT,
            "resource_spec": Nullable(Ref("ResourceSpec")),
            "listener_id": Nullable(T.UUID),
            "listener_config": Nullable(Ref("ListenerConfig")),
            "install_command": _TEXT,
            "build_command": _TEXT,
        }
    ),
    "SourceRevisionConfig": Schema(
        fields={
            "repo_ref": _TEXT,
            "langgraph_config_path": _TEXT,
            "image_uri": _TEXT,
            "source_tarball_path": _TEXT,
            "repo_commit_sha": _TEXT,
        }
    ),
    "ResourceSpec": Schema(
        fields={
            **{name: Nullable(kind) for name, kind in RESOURCE_NUMBERS.items()},
            "labels": Nullable(Mapping(T.STRING)),
            "annotations": Nullable(Mapping(T.STRING)),
            "service_account_name": _TEXT,
            "image_pull_secrets": Nullable(ListOf(Ref("LocalObjectReference"))),
            "volumes": Nullable(ListOf(Ref("Volume"))),
            "volume_mounts": Nullable(ListOf(Ref("VolumeMount"))),
            "init_containers": Nullable(ListOf(Ref("Container"))),
            "sidecars": Nullable(ListOf(Ref("Container"))),
        }
    ),
    "LocalObjectReference": Schema(fields={"name": T.STRING}, required=frozenset({"name"})),
    "Volume": Schema(
        fields={
            "name": T.STRING,
            **{
                kind: Nullable(T.OBJECT)
                for kind in (
                    "configMap",
                    "secret",
                    "emptyDir",
                    "persistentVolumeClaim",
                    "nfs",
                    "projected",
                    "downwardAPI",
                    "csi",
                )
            },
        }
    ),
    "VolumeMount": Schema(
        fields={
            "name": T.STRING,
            "mountPath": T.STRING,
            "subPath": _TEXT,
            "mountPropagation": _TEXT,
            "readOnly": Nullable(T.BOOLEAN),
            "subPathExpr": _TEXT,
        }
    ),
    "Container": Schema(
        fields={
            "name": T.STRING,
            "image": T.STRING,
            "imagePullPolicy": _TEXT,
            "command": Nullable(ListOf(T.STRING)),
            "args": Nullable(ListOf(T.STRING)),
            "workingDir": _TEXT,
            "env": Nullable(ListOf(Ref("EnvVar"))),
            "envFrom": Nullable(ListOf(T.OBJECT)),
            "resources": Nullable(Ref("ResourceRequirements")),
            "volumeMounts": Nullable(ListOf(Ref("VolumeMount"))),
            "securityContext": Nullable(T.OBJECT),
            "restartPolicy": _TEXT,
        },
        required=frozenset({"name", "image"}),
    ),
    "EnvVar": Schema(
        fields={"name": T.STRING, "value": _TEXT, "valueFrom": Nullable(T.OBJECT)},
        required=frozenset({"name"}),
    ),
    "ResourceRequirements": Schema(
        fields={"limits": Nullable(Mapping(T.STRING)), "requests": Nullable(Mapping(T.STRING))}
    ),
    "ListenerConfig": Schema(fields={"k8s_namespace": _TEXT}),
    "Secret": Schema(
        fields={"name": T.STRING, "value": T.STRING}, required=frozenset({"name", "value"})
    ),
    "SecretReference": Schema(
        fields={"name": T.STRING, "secret_name": T.STRING, "secret_key": T.STRING},
        required=frozenset({"name", "secret_name", "secret_key"}),
    ),
    "Revision": Schema(
        fields={
            "id": T.UUID,
            "created_at": T.DATE_TIME,
            "updated_at": T.DATE_TIME,
            "status": OneOf(REVISION_STATUSES),
            "source": OneOf(SOURCES),
            "source_revision_config": Ref("SourceRevisionConfig"),
        },
        required=frozenset(
            {"id", "created_at", "updated_at", "status", "source", "source_revision_config"}
        ),
    ),
    "DeploymentsList": Schema(
        fields={"resources": ListOf(Ref("Deployment")), "offset": T.INTEGER},
        required=frozenset({"resources", "offset"}),
    ),
    "RevisionsList": Schema(
        fields={"resources": ListOf(Ref("Revision")), "offset": T.INTEGER},
        required=frozenset({"resources", "offset"}),
    ),
    "Listener": Schema(
        fields={
            "version": _TEXT,
            "compute_type": OneOf(COMPUTE_TYPES),
            "compute_id": T.STRING,
            "compute_config": Ref("ListenerComputeConfig"),
            "id": T.UUID,
            "created_at": T.DATE_TIME,
            "updated_at": T.DATE_TIME,
        },
        required=frozenset(
            {"compute_type", "compute_id", "compute_config", "id", "created_at", "updated_at"}
        ),
    ),
    "ListenerComputeConfig": Schema(fields={"k8s_namespaces": Nullable(ListOf(T.STRING))}),
    "ListenersList": Schema(
        fields={"resources": ListOf(Ref("Listener")), "offset": T.INTEGER},
        required=frozenset({"resources", "offset"}),
    ),
    "GithubIntegration": Schema(
        fields={"id": T.UUID, "installation_id": T.INTEGER, "name": T.STRING},
        required=frozenset({"id", "installation_id", "name"}),
    ),
    "GithubRepository": Schema(
        fields={
            "host_integration_id": T.UUID,
            "id": T.INTEGER,
            "name": T.STRING,
            "owner": T.STRING,
            "url": T.STRING,
            "default_branch": T.STRING,
        },
        required=frozenset({"host_integration_id", "id", "name", "owner", "url", "default_branch"}),
    ),
    "OAuthProvider": Schema(
        fields={
            "id": T.STRING,
            "organization_id": T.STRING,
            "provider_id": T.STRING,
            "name": T.STRING,
            "client_id": T.STRING,
            "auth_url": T.STRING,
            "token_url": T.STRING,
            "uses_pkce": T.BOOLEAN,
            "code_challenge_method": _TEXT,
            "provider_type": _TEXT,
            "mcp_server_url": _TEXT,
            "token_endpoint_auth_method": T.STRING,
            "is_dynamic_client": T.BOOLEAN,
            "created_at": T.DATE_TIME,
            "updated_at": T.DATE_TIME,
        },
        required=frozenset(
            {
                "id",
                "organization_id",
                "provider_id",
                "name",
                "client_id",
                "auth_url",
                "token_url",
                "uses_pkce",
                "code_challenge_method",
                "created_at",
                "updated_at",
            }
        ),
    ),
    "ValidationError": Schema(
        fields={"loc": ListOf(AnyOf((T.STRING, T.INTEGER))), "msg": T.STRING, "type": T.STRING},
        required=frozenset({"loc", "msg", "type"}),
    ),
    "HTTPValidationError": Schema(fields={"detail": ListOf(Ref("ValidationError"))}),
}

# The create body's required keys, and its keys' names by object (requests).
CREATE_REQUIRED = frozenset(
    {"name", "source", "source_config", "source_revision_config", "secrets"}
)
REVISION_CONFIG_REQUEST_KEYS = frozenset(
    {"repo_ref", "langgraph_config_path", "image_uri", "source_tarball_path"}
)
PATCH_KEYS = frozenset(
    {"revision_source", "source_config", "source_revision_config", "secrets", "secret_references"}
)
LISTENER_CREATE_REQUIRED = frozenset({"compute_type", "compute_id", "compute_config"})
LISTENER_PATCH_KEYS = frozenset({"version", "compute_config"})


# --- Operations: (method, path) -> (the statuses it lists, the success's schema) ------

DEPLOYMENT = "/v2/deployments/{deployment_id}"
REVISION = f"{DEPLOYMENT}/revisions/{{revision_id}}"
LISTENER = "/v2/listeners/{listener_id}"

OPERATIONS: dict[tuple[str, str], tuple[frozenset[int], Any]] = {
    ("GET", "/v1/integrations/github/install"): (
        frozenset({200}),
        ListOf(Ref("GithubIntegration")),
    ),
    ("GET", "/v1/integrations/github/{integration_id}/repos"): (
        frozenset({200, 422}),
        ListOf(Ref("GithubRepository")),
    ),
    ("GET", "/v1/integrations/forge/github/install"): (
        frozenset({200}),
        ListOf(Ref("GithubIntegration")),
    ),
    ("GET", "/v1/integrations/forge/github/{integration_id}/repos"): (
        frozenset({200, 422}),
        ListOf(Ref("GithubRepository")),
    ),
    ("GET", "/v2/deployments"): (frozenset({200, 422}), Ref("DeploymentsList")),
    ("POST", "/v2/deployments"): (frozenset({201, 400, 422}), Ref("Deployment")),
    # Its 200 has no schema (any JSON); a 207 is named by its prose, not among its statuses.
    ("DELETE", "/v2/deployments"): (frozenset({200, 404, 422}), None),
    ("GET", DEPLOYMENT): (frozenset({200, 404, 422}), Ref("Deployment")),
    ("PATCH", DEPLOYMENT): (frozenset({200, 400, 404, 422}), Ref("Deployment")),
    ("DELETE", DEPLOYMENT): (frozenset({204, 404, 422}), None),
    ("GET", f"{DEPLOYMENT}/revisions"): (frozenset({200, 404, 422}), Ref("RevisionsList")),
    ("GET", REVISION): (frozenset({200, 404, 422}), Ref("Revision")),
    ("POST", f"{REVISION}/redeploy"): (frozenset({200, 400, 404, 422}), Ref("Deployment")),
    ("GET", "/v2/listeners"): (frozenset({200, 422}), Ref("ListenersList")),
    ("POST", "/v2/listeners"): (frozenset({201, 403, 409, 422}), Ref("Listener")),
    ("GET", LISTENER): (frozenset({200, 403, 404, 422}), Ref("Listener")),
    ("PATCH", LISTENER): (frozenset({200, 403, 404, 422}), Ref("Listener")),
    ("DELETE", LISTENER): (frozenset({204, 403, 404, 422}), None),
    ("GET", "/v2/auth/providers"): (frozenset({200}), ListOf(Ref("OAuthProvider"))),
}
# The document's other operations, all under /v2/auth/: out of the twin's scope.
AUTH_OPERATIONS: tuple[tuple[str, str], ...] = (
    ("POST", "/v2/auth/providers"),
    ("GET", "/v2/auth/setup/{provider_id}"),
    ("GET", "/v2/auth/callback/{provider_id}"),
    ("POST", "/v2/auth/callback/{provider_id}"),
    ("POST", "/v2/auth/authenticate"),
    ("GET", "/v2/auth/wait/{auth_id}"),
    ("POST", "/v2/auth/providers/mcp-discover"),
    ("GET", "/v2/auth/providers/{provider_id}"),
    ("PATCH", "/v2/auth/providers/{provider_id}"),
    ("DELETE", "/v2/auth/providers/{provider_id}"),
    ("GET", "/v2/auth/tokens"),
    ("DELETE", "/v2/auth/tokens"),
    ("PATCH", "/v2/auth/tokens/{token_id}/metadata"),
    ("DELETE", "/v2/auth/tokens/{token_id}"),
    ("GET", "/v2/auth/tokens/exists"),
    ("GET", "/v2/auth/tokens/workspace/slack/exists"),
    ("DELETE", "/v2/auth/tokens/workspace/slack"),
    ("GET", "/v2/auth/agents/{agent_id}/connections"),
    ("POST", "/v2/auth/agents/{agent_id}/connections"),
    ("DELETE", "/v2/auth/agents/{agent_id}/connections/{connection_id}"),
)
# Query parameters whose type the document gives (typed booleans and bounded integers).
BOOLEAN_QUERIES = (
    ("GET", "/v2/deployments", "remote_reconciled"),
    ("GET", f"{DEPLOYMENT}/revisions", "remote_reconciled"),
    ("DELETE", DEPLOYMENT, "delete_tracing_project"),
)
