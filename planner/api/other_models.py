"""Wire models of the routes `planner plan` and `planner apply` never call: listeners,
artifacts and build logs, providers, repositories and integrations, the 422 body.

They are the local control plane's and a few commands' (`planner providers`, `planner
repos`): kept out of `planner.api.models`, whose every class pydantic builds when the plan
or apply starts (~0.6 ms each).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import Field

from planner.api.models import WireModel

# --- What the official clients use besides (listeners, artifacts, build logs) ---------


class ListenerComputeConfig(WireModel):
    k8s_namespaces: list[str] = Field(default_factory=list)


ComputeType = Literal["k8s"]  # the one compute type listeners have


class Listener(WireModel):
    """A data-plane listener a self-hosted `external_docker` deployment binds to."""

    id: str
    tenant_id: str
    compute_type: ComputeType = "k8s"
    compute_id: str
    compute_config: ListenerComputeConfig
    version: str | None = None
    created_at: datetime
    updated_at: datetime


class ListenerComputeConfigRequest(WireModel):
    """A listener's compute settings as a request sends them (null namespaces: none)."""

    k8s_namespaces: list[str] | None = None


class ListenerCreate(WireModel):
    """`POST /v2/listeners` (self-hosted): a listener of one compute in the workspace."""

    version: str | None = None
    compute_type: ComputeType
    compute_id: str = Field(description="Unique in the workspace.")
    compute_config: ListenerComputeConfigRequest


class ListenerPatch(WireModel):
    """`PATCH /v2/listeners/{id}`: nulls leave a field as it is; `compute_config`
    replaces the stored one."""

    version: str | None = None
    compute_config: ListenerComputeConfigRequest | None = None


class ListenerList(WireModel):
    resources: list[Listener]
    offset: int


class PushTokenRequest(WireModel):
    supports_registry_username: bool | None = None


class PushToken(WireModel):
    """Credentials to push one deployment's image to the (sandbox) registry."""

    token: str
    registry: str
    registry_url: str
    repository_url: str
    username: str
    expires_at: datetime


class UploadUrlRequest(WireModel):
    supports_upload_headers: bool | None = None


class UploadUrl(WireModel):
    """Where to PUT one deployment's source tarball, and the path a revision names it by."""

    upload_url: str
    object_path: str
    upload_headers: dict[str, str]
    expires_at: datetime


class UploadReceipt(WireModel):
    object_path: str
    size: int
    sha256: str


class BuildLogOrder(StrEnum):
    ASC = "asc"
    DESC = "desc"


class BuildLogRequest(WireModel):
    order: BuildLogOrder = BuildLogOrder.ASC
    limit: int = Field(default=50, ge=1, le=1000)
    offset: str | None = Field(
        default=None, pattern=r"^[0-9]{1,9}$", description="A previous page's `next_offset`."
    )


class BuildLogEntry(WireModel):
    timestamp: datetime
    level: str
    message: str


class BuildLogPage(WireModel):
    logs: list[BuildLogEntry]
    next_offset: str = Field(description="Where the next page starts (pass it as `offset`).")


# --- Providers, repositories, integrations --------------------------------------------


class OAuthProvider(WireModel):
    id: str
    organization_id: str
    provider_id: str
    name: str
    client_id: str
    auth_url: str
    token_url: str
    uses_pkce: bool
    code_challenge_method: str | None
    created_at: datetime
    updated_at: datetime
    provider_type: str | None = None
    mcp_server_url: str | None = None
    token_endpoint_auth_method: str = "client_secret_post"
    is_dynamic_client: bool = False


class Repository(WireModel):
    host_integration_id: str
    id: str
    name: str
    owner: str
    url: str
    default_branch: str


class Integration(WireModel):
    id: str
    installation_id: str
    name: str


# --- Errors ---------------------------------------------------------------------------


class ValidationErrorItem(WireModel):
    loc: list[str | int]
    msg: str
    type: str


class HTTPValidationError(WireModel):
    detail: list[ValidationErrorItem]
