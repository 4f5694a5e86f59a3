"""What the state records per managed deployment (contract between state and plan/apply)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RecordedDeployment(BaseModel):
    """One managed deployment as last applied.

    `managed` is the wire JSON of the fields the config set when last applied (the same
    shape as `DesiredDeployment.managed()`), without secrets; secrets are recorded only as
    keyed digests (`planner.secrets.secret_digest`), by name.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    id: str
    managed: dict[str, Any] = Field(default_factory=dict)
    secret_digests: dict[str, str] = Field(default_factory=dict)
    latest_revision_id: str | None = None
    active_revision_id: str | None = None
    updated_at: str | None = None
    # lifecycle.protect as last applied: removing a protected deployment's table from the
    # config must not delete it (it stays protected until applied with protect = false).
    protect: bool = False
