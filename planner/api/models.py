"""Wire models of the control-plane API, shared by the client and the local control plane.

Every field of `control-plane-api.md` is here. Unknown keys are ignored (the real
clients send extras such as `revision_source`); the config layer forbids them itself.
Ids are kept as strings on the wire; uuid-typed inputs are checked with `UuidStr`.

Both dialects' words read (`planner.api.vocabulary`): a `source_revision_config` or
`resource_spec` key in the service's spelling fills the field of the seed's name, and a
deployment or revision read with the service's `source` holds the seed's. Fields keep
the seed's names, so a dump is in the seed's words.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import datetime
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, cast

from pydantic import (
    AfterValidator,
    AliasChoices,
    AliasGenerator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)

from planner.api.statuses import DELETING_STATUSES as DELETING_STATUSES
from planner.api.statuses import FAILURE_STATUSES as FAILURE_STATUSES
from planner.api.statuses import SUCCESS_STATUSES as SUCCESS_STATUSES
from planner.api.statuses import DeploymentStatus as DeploymentStatus
from planner.api.statuses import DeploymentType as DeploymentType
from planner.api.statuses import RevisionStatus as RevisionStatus
from planner.api.statuses import is_being_deleted as is_being_deleted
from planner.api.statuses import is_final_revision_status as is_final_revision_status
from planner.api.vocabulary import GIT_SOURCE, other_spelling, seed_source

# The canonical spelling (lower-case, hyphenated), which `str(uuid.UUID(value))` gives back
# unchanged: every id a server sends, checked without parsing it (40,000 per 10,000 read).
_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _check_uuid(value: str) -> str:
    if isinstance(value, str) and _CANONICAL_UUID.fullmatch(value):
        return value
    try:
        return str(uuid.UUID(value))
    except (ValueError, AttributeError, TypeError) as exc:
        raise ValueError("Input should be a valid UUID") from exc


UuidStr = Annotated[
    str, AfterValidator(_check_uuid), WithJsonSchema({"type": "string", "format": "uuid"})
]
FreeForm = dict[str, Any]


# The JSON kind a scalar field takes, and the message when a value is of another kind.
_SCALAR_KINDS: dict[Any, str] = {
    bool: "must be true or false",
    bool | None: "must be true or false",
    int: "must be a whole number",
    int | None: "must be a whole number",
    float: "must be a number",
    float | None: "must be a number",
}


@cache
def _scalar_kind(model: type[BaseModel], field_name: str) -> str | None:
    """The message for a wrong JSON kind in a scalar field (None: not a scalar field);
    asked for every field of every deployment read, so remembered per class and field."""
    return _SCALAR_KINDS.get(model.model_fields[field_name].annotation)


# Every wire field of a scalar kind, by name (tests/api/test_models.py checks it against the
# models): only these run the JSON kind check, not each field of each model read (a
# 10,000-deployment read: 240,000 calls of a Python validator -> the scalar fields' only).
_SCALAR_FIELDS = (
    "build_on_push",
    "cache_cpu",
    "cache_cpu_limit",
    "cache_memory_limit_mb",
    "cache_memory_mb",
    "cpu",
    "cpu_limit",
    "db_cpu",
    "db_cpu_limit",
    "db_max_connections",
    "db_memory_limit_mb",
    "db_memory_mb",
    "db_storage_gi",
    "executor_cpu",
    "executor_cpu_limit",
    "executor_memory_limit_mb",
    "executor_memory_mb",
    "is_dynamic_client",
    "limit",
    "max_scale",
    "memory_limit_mb",
    "memory_mb",
    "min_scale",
    "offset",
    "orchestrator_cpu",
    "orchestrator_cpu_limit",
    "orchestrator_max_scale",
    "orchestrator_memory_limit_mb",
    "orchestrator_memory_mb",
    "orchestrator_min_scale",
    "queue_cpu",
    "queue_cpu_limit",
    "queue_max_scale",
    "queue_memory_limit_mb",
    "queue_memory_mb",
    "queue_min_scale",
    "readOnly",
    "size",
    "supports_registry_username",
    "supports_upload_headers",
    "uses_pkce",
)


class WireModel(BaseModel):
    """Base of every wire model: extra keys ignored, enums kept as their values, and
    JSON kinds kept: `true` or "2" is not a number and "true" or 1 not a boolean (lax
    pydantic would convert them; the server refuses what the config refuses)."""

    model_config = ConfigDict(extra="ignore", use_enum_values=True, populate_by_name=True)

    @field_validator(*_SCALAR_FIELDS, mode="before", check_fields=False)
    @classmethod
    def _json_kinds_are_kept(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None:
            return value
        message = _scalar_kind(cls, str(info.field_name))
        if message is None:
            return value
        is_bool = isinstance(value, bool)
        wants_bool = message == _SCALAR_KINDS[bool]
        if is_bool != wants_bool or isinstance(value, str):
            raise ValueError(message)
        return value  # 2.0 for a whole number passes: JSON Schema calls it an integer


def _either_spelling(name: str) -> AliasChoices | None:
    """What a field the dialects spell differently reads from: its name and its other
    spelling (None for any other field: its name alone, looked up as without an alias,
    which a 10,000-deployment read of ~45-field specs pays for otherwise)."""
    other = other_spelling(name)
    return None if other is None else AliasChoices(name, other)


# The config of the models whose keys the dialects spell differently: read either way.
# (pydantic's generator type names no None, though it takes one: "no alias".)
EITHER_SPELLING = ConfigDict(
    alias_generator=AliasGenerator(
        validation_alias=cast(Callable[[str], str | AliasChoices], _either_spelling)
    )
)


class Source(StrEnum):
    GIT_HOST = GIT_SOURCE
    EXTERNAL_DOCKER = "external_docker"
    INTERNAL_DOCKER = "internal_docker"
    INTERNAL_SOURCE = "internal_source"
    INTERNAL_TEMPLATE = "internal_template"


# A `source` a server sent, in either dialect's word (held in the seed's). Request bodies
# keep `Source`: a server of the seed's words refuses the service's.
SourceRead = Annotated[Source, BeforeValidator(seed_source)]


# --- ResourceSpec and its parts -------------------------------------------------------


class VolumeMount(WireModel):
    name: str | None = None
    mountPath: str | None = None
    subPath: str | None = None
    mountPropagation: str | None = None
    readOnly: bool | None = None
    subPathExpr: str | None = None


class EnvVar(WireModel):
    name: str
    value: str | None = None
    valueFrom: FreeForm | None = None


class ContainerResources(WireModel):
    limits: FreeForm | None = None
    requests: FreeForm | None = None


class Container(WireModel):
    name: str
    image: str | None = None
    imagePullPolicy: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    workingDir: str | None = None
    env: list[EnvVar] | None = None
    envFrom: list[FreeForm] | None = None
    resources: ContainerResources | None = None
    volumeMounts: list[VolumeMount] | None = None
    securityContext: FreeForm | None = None
    restartPolicy: str | None = None


class Volume(WireModel):
    name: str
    configMap: FreeForm | None = None
    secret: FreeForm | None = None
    emptyDir: FreeForm | None = None
    persistentVolumeClaim: FreeForm | None = None
    nfs: FreeForm | None = None
    projected: FreeForm | None = None
    downwardAPI: FreeForm | None = None
    csi: FreeForm | None = None


class ImagePullSecret(WireModel):
    name: str


class ResourceSpec(WireModel):
    """Sizes, scaling and pod settings."""

    model_config = EITHER_SPELLING

    # Main
    min_scale: int | None = None
    max_scale: int | None = None
    cpu: float | None = None
    cpu_limit: float | None = None
    memory_mb: int | None = None
    memory_limit_mb: int | None = None
    # Queue
    queue_min_scale: int | None = None
    queue_max_scale: int | None = None
    queue_cpu: float | None = None
    queue_cpu_limit: float | None = None
    queue_memory_mb: int | None = None
    queue_memory_limit_mb: int | None = None
    # Orchestrator
    orchestrator_cpu: float | None = None
    orchestrator_cpu_limit: float | None = None
    orchestrator_memory_mb: int | None = None
    orchestrator_memory_limit_mb: int | None = None
    orchestrator_min_scale: int | None = None
    orchestrator_max_scale: int | None = None
    # Executor
    executor_cpu: float | None = None
    executor_cpu_limit: float | None = None
    executor_memory_mb: int | None = None
    executor_memory_limit_mb: int | None = None
    # Cache
    cache_cpu: float | None = None
    cache_cpu_limit: float | None = None
    cache_memory_mb: int | None = None
    cache_memory_limit_mb: int | None = None
    # Database
    db_cpu: float | None = None
    db_cpu_limit: float | None = None
    db_memory_mb: int | None = None
    db_memory_limit_mb: int | None = None
    db_storage_gi: int | None = None
    db_max_connections: int | None = None
    # Pod metadata
    labels: FreeForm | None = None
    annotations: FreeForm | None = None
    service_account_name: str | None = None
    image_pull_secrets: list[ImagePullSecret] | None = None
    volumes: list[Volume] | None = None
    volume_mounts: list[VolumeMount] | None = None
    init_containers: list[Container] | None = None
    sidecars: list[Container] | None = None


# Groups of numeric (request, limit) pairs and (min, max) scales, used by validation.
CPU_PAIRS = [
    ("cpu", "cpu_limit"),
    ("queue_cpu", "queue_cpu_limit"),
    ("orchestrator_cpu", "orchestrator_cpu_limit"),
    ("executor_cpu", "executor_cpu_limit"),
    ("cache_cpu", "cache_cpu_limit"),
    ("db_cpu", "db_cpu_limit"),
]
MEMORY_PAIRS = [
    ("memory_mb", "memory_limit_mb"),
    ("queue_memory_mb", "queue_memory_limit_mb"),
    ("orchestrator_memory_mb", "orchestrator_memory_limit_mb"),
    ("executor_memory_mb", "executor_memory_limit_mb"),
    ("cache_memory_mb", "cache_memory_limit_mb"),
    ("db_memory_mb", "db_memory_limit_mb"),
]
SCALE_PAIRS = [
    ("min_scale", "max_scale"),
    ("queue_min_scale", "queue_max_scale"),
    ("orchestrator_min_scale", "orchestrator_max_scale"),
]


# --- Source configs -------------------------------------------------------------------


class ListenerConfig(WireModel):
    k8s_namespace: str | None = None


class SourceConfig(WireModel):
    integration_id: UuidStr | None = None
    repo_url: str | None = None
    deployment_type: DeploymentType | None = None
    build_on_push: bool | None = None
    custom_url: str | None = None
    resource_spec: ResourceSpec | None = None
    listener_id: UuidStr | None = None
    listener_config: ListenerConfig | None = None
    install_command: str | None = None
    build_command: str | None = None
    template_id: str | None = None  # internal_template: the template it deploys


class RevisionSourceConfig(WireModel):
    """The part of `source_config` a new revision may carry."""

    install_command: str | None = None
    build_command: str | None = None
    resource_spec: ResourceSpec | None = None


class SourceRevisionConfig(WireModel):
    model_config = EITHER_SPELLING

    repo_ref: str | None = None
    agent_config_path: str | None = None
    image_uri: str | None = None
    source_tarball_path: str | None = None
    repo_commit_sha: str | None = None  # response only


class Secret(WireModel):
    name: str
    value: str


class SecretReference(WireModel):
    name: str
    secret_name: str
    secret_key: str


# --- Deployments and revisions --------------------------------------------------------


DisplayName = Annotated[str, Field(min_length=1, description="Human-readable name.")]


class DeploymentCreate(WireModel):
    name: str = Field(min_length=1)
    display_name: DisplayName | None = None
    source: Source
    source_config: SourceConfig = Field(default_factory=SourceConfig)
    source_revision_config: SourceRevisionConfig = Field(default_factory=SourceRevisionConfig)
    secrets: list[Secret] = Field(default_factory=list)
    secret_references: list[SecretReference] | None = None


class DeploymentPatch(WireModel):
    display_name: DisplayName | None = None
    source: Source | None = None
    source_config: SourceConfig | None = None
    source_revision_config: SourceRevisionConfig | None = None
    secrets: list[Secret] | None = None
    secret_references: list[SecretReference] | None = None


class Deployment(WireModel):
    id: str
    tenant_id: str
    name: str
    display_name: str | None = None
    source: SourceRead
    source_config: SourceConfig = Field(default_factory=SourceConfig)
    source_revision_config: SourceRevisionConfig = Field(default_factory=SourceRevisionConfig)
    secrets: list[Secret] = Field(default_factory=list)
    secret_references: list[SecretReference] | None = None
    created_at: datetime
    updated_at: datetime
    status: DeploymentStatus
    latest_revision_id: str | None = None
    active_revision_id: str | None = None
    image_version: str | None = None


class DeploymentProgress(WireModel):
    """A listed deployment read only for what a wait looks at (the rest is skipped)."""

    id: str
    status: DeploymentStatus
    latest_revision_id: str | None = None
    active_revision_id: str | None = None


class Revision(WireModel):
    id: str
    deployment_id: str | None = None
    created_at: datetime
    updated_at: datetime
    status: RevisionStatus
    source: SourceRead | None = None
    source_revision_config: SourceRevisionConfig = Field(default_factory=SourceRevisionConfig)


class RevisionCreate(WireModel):
    """`POST /v2/deployments/{id}/revisions`: always one new revision."""

    source_revision_config: SourceRevisionConfig
    source_config: RevisionSourceConfig | None = None
    secrets: list[Secret] | None = None
    secret_references: list[SecretReference] | None = None


class DeploymentList(WireModel):
    resources: list[Deployment]
    offset: int


class DeploymentProgressList(WireModel):
    resources: list[DeploymentProgress]
    offset: int


class RevisionList(WireModel):
    resources: list[Revision]
    offset: int


class BulkDeleteFailure(WireModel):
    deployment_id: str
    detail: str


class BulkDeleteResult(WireModel):
    """Our 207 body (the service does not document one; clients must not trust it)."""

    deleted: list[str] = Field(default_factory=list)
    failed: list[BulkDeleteFailure] = Field(default_factory=list)


# --- Errors ---------------------------------------------------------------------------


class ErrorBody(WireModel):
    detail: str
