"""The desired state of one deployment, as the config loader hands it to the planner.

Contract between `planner.config` (producer) and `planner.plan` (consumer):
- the wire models hold only what the config sets (after `[defaults]` are merged), so
  `managed()` (pydantic's exclude_unset) is exactly the set of fields the planner manages;
- secrets are resolved values (from the environment or literals), never printed: use
  `SecretStr.get_secret_value()` only where a request body is built;
- `name` is the deployment's address (its table key, and its key in the state);
  `remote_name` is set only when the config gives one (`name = "..."`), and is then a
  managed (immutable) field like any other: `api_name` is the name the API knows;
- the fields hold the seed's words whichever dialect the config wrote; `spelling` is how
  it wrote them (what a person reads back about this deployment is in those words).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from planner.api.models import SecretReference, Source, SourceConfig, SourceRevisionConfig
from planner.api.vocabulary import SEED_SPELLING, Spelling, seed_path
from planner.pydantic_internals import serializer


class Lifecycle(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    protect: bool = False
    ignore_changes: tuple[str, ...] = ()
    create_before_destroy: bool = False

    @field_validator("ignore_changes", mode="before")
    @classmethod
    def _in_the_seeds_words(cls, value: Any) -> Any:
        """A path written in the service's words (`...langgraph_config_path`) is held in
        the seed's, as the plan compares them."""
        if isinstance(value, list | tuple):
            return tuple(seed_path(path) if isinstance(path, str) else path for path in value)
        return value


# The fields that are not the deployment's wire fields (`managed()` leaves them out).
NOT_MANAGED = {"name", "remote_name", "secrets", "secret_env", "lifecycle", "spelling"}


class DesiredDeployment(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    remote_name: str | None = None
    source: Source
    display_name: str | None = None
    source_config: SourceConfig = Field(default_factory=SourceConfig)
    source_revision_config: SourceRevisionConfig = Field(default_factory=SourceRevisionConfig)
    secrets: dict[str, SecretStr] = Field(default_factory=dict)
    secret_env: dict[str, str] = Field(default_factory=dict)  # secret name -> env var it came from
    secret_references: list[SecretReference] | None = None
    lifecycle: Lifecycle = Field(default_factory=Lifecycle)
    spelling: Spelling = SEED_SPELLING

    def managed(self) -> dict[str, Any]:
        """Wire JSON of the fields the config sets, secrets excluded (they are compared apart)."""
        # `model_dump(mode="json", exclude_unset=True, exclude=...)` without its wrapper:
        # asked for every deployment, by the loader and again by the plan
        managed: dict[str, Any] = _dump(self, mode="json", exclude_unset=True, exclude=NOT_MANAGED)
        return managed if self.remote_name is None else {"name": self.remote_name, **managed}

    @property
    def api_name(self) -> str:
        """The deployment's name in the workspace (the address unless the config names it)."""
        return self.remote_name or self.name

    def secret_values(self) -> dict[str, str]:
        return {name: value.get_secret_value() for name, value in self.secrets.items()}


_dump = serializer(DesiredDeployment).to_python
