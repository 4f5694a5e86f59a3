"""The shape of the config file, reusing the wire models of `planner.api.models`.

These models describe the file for the JSON Schema and for the unknown-key walk
(`planner.config.keys`); values are validated per deployment by the loader. The wire
models ignore unknown keys; the walk makes them errors at every level.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from planner.api.models import (
    SecretReference,
    SourceConfig,
    SourceRead,
    SourceRevisionConfig,
    UuidStr,
)
from planner.api.rules import NAME_MAX_LENGTH, NAME_PATTERN, SECRET_NAME_PATTERN, Mode
from planner.api.vocabulary import GIT_SOURCE, SEED_SPELLING, Spelling
from planner.config.desired import DesiredDeployment, Lifecycle
from planner.config.names import PLAIN_NAME_PATTERN, check_plain_name
from planner.secrets import url_has_password

DeploymentName = Annotated[str, StringConstraints(pattern=NAME_PATTERN, max_length=NAME_MAX_LENGTH)]
SecretName = Annotated[str, StringConstraints(pattern=SECRET_NAME_PATTERN)]
StateName = Annotated[
    str, StringConstraints(pattern=PLAIN_NAME_PATTERN), AfterValidator(check_plain_name)
]
SCHEMA_PATTERN = r"^[a-z_][a-z0-9_]{0,62}$"
POLICY_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$"
PolicyName = Annotated[str, StringConstraints(pattern=POLICY_NAME_PATTERN)]


def _check_http_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http:// or https:// URL with a host")
    return value


HttpUrlStr = Annotated[str, AfterValidator(_check_http_url)]


@dataclass(frozen=True)
class Policy:
    """One `[policies.NAME]` of the loaded config (compiled by `planner.plan.policies`)."""

    name: str
    expression: str
    message: str
    severity: str = "deny"


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=True)


class EnvRef(StrictModel):
    """A secret value read from an environment variable when the config is loaded."""

    env: Annotated[str, StringConstraints(min_length=1)] = Field(
        description="name of the environment variable holding the value"
    )


SecretValue = str | EnvRef


class ControlPlaneConfig(StrictModel):
    """Where the control plane is. The API key is never here: set PLANNER_API_KEY."""

    base_url: HttpUrlStr | None = Field(
        default=None,
        description="control plane URL (PLANNER_BASE_URL and --base-url take precedence); "
        "unset: the embedded local control plane",
    )
    tenant_id: UuidStr | None = Field(
        default=None, description="workspace id, a uuid (PLANNER_TENANT_ID takes precedence)"
    )
    mode: Mode = Field(
        default=Mode.CLOUD,
        description=f"cloud ({GIT_SOURCE}, internal_*) or self-hosted (external_docker)",
    )
    dialect: Literal["auto", "seed", "service"] | None = Field(
        default=None,
        description="the words the control plane speaks: seed, service (the real "
        "service's), or auto (unset: read from its /openapi.json); PLANNER_DIALECT and "
        "--dialect take precedence",
    )


def _check_state_url(value: str) -> str:
    if url_has_password(value):
        # never echo the value: it holds the password
        raise ValueError(
            "must not contain a password (the config file is shared): give it in PGPASSWORD "
            "or ~/.pgpass, or the whole URL in PLANNER_STATE or --state"
        )
    return value


StateUrl = Annotated[str, StringConstraints(min_length=1), AfterValidator(_check_state_url)]


class StateConfig(StrictModel):
    """Where the state lives. PLANNER_STATE and --state take precedence over `url`."""

    model_config = ConfigDict(populate_by_name=True)

    url: StateUrl | None = Field(
        default=None,
        description="a state file path or a postgresql:// URL, without a password "
        "(unset: state/<config stem>.state.json)",
    )
    name: StateName | None = Field(
        default=None,
        description="the state's name in PostgreSQL (default: the config file's stem; "
        "`.<environment>` is appended per environment)",
    )
    schema_: Annotated[str, StringConstraints(pattern=SCHEMA_PATTERN)] = Field(
        default="planner",
        alias="schema",
        description="the PostgreSQL schema of the state tables (created on first use)",
    )


class DeploymentSpec(StrictModel):
    """One deployment; the table key is its name."""

    # either dialect's word (`github` is `git_host`), held in the seed's
    source: SourceRead = Field(description="where the deployment is built from (immutable)")
    display_name: str | None = Field(
        default=None,
        min_length=1,
        description="human-readable name (changes in place; removing it leaves the last one)",
    )
    source_config: SourceConfig | None = Field(default=None, description="source settings")
    source_revision_config: SourceRevisionConfig | None = Field(
        default=None, description="what each revision is built from"
    )
    secrets: dict[SecretName, SecretValue] | None = Field(
        default=None,
        description='secret name -> literal value, or { env = "VAR" } to read it from the '
        "environment (preferred)",
    )
    secret_references: list[SecretReference] | None = Field(
        default=None, description="Kubernetes Secret references (external_docker only)"
    )
    lifecycle: Lifecycle | None = Field(
        default=None,
        description="protect, ignore_changes, create_before_destroy (planner-side, never sent)",
    )


class DefaultsSpec(DeploymentSpec):
    """Merged under every deployment (tables deep-merged, lists replaced)."""

    source: SourceRead | None = Field(default=None, description="default source")  # type: ignore[assignment]


class DeploymentTable(DefaultsSpec):
    """A `[deployments.<name>]` table as written: `source` may come from its template."""

    name: str | None = Field(
        default=None,
        description='its name in the workspace, e.g. "support-${env}" (default: the table '
        "key, which stays its address in the state; immutable)",
    )

    template: str | None = Field(default=None, description="the [templates] table it builds on")
    environments: list[str] | None = Field(
        default=None, description="only in these environments (default: every environment)"
    )


class TemplateSpec(DefaultsSpec):
    """Deployment-shaped; a deployment picks it with `template = "<name>"`."""


class VariableSpec(StrictModel):
    """A variable, used as `${var.NAME}` in any string (no default: it must be given)."""

    default: Any = Field(default=None, description="its value when nothing else sets one")
    description: str | None = Field(default=None, description="what it is for")


class EnvironmentSpec(StrictModel):
    """One environment: merged over the file's tables when `--env` names it."""

    control_plane: ControlPlaneConfig | None = Field(
        default=None, description="merged over [control_plane] (its own workspace)"
    )
    variables: dict[str, Any] | None = Field(
        default=None, description="variable values in this environment"
    )
    defaults: DefaultsSpec | None = Field(
        default=None, description="merged over [defaults] in this environment"
    )
    deployments: dict[DeploymentName, TemplateSpec] | None = Field(
        default=None, description="per-deployment overrides in this environment"
    )


class PolicySeverity(StrEnum):
    DENY = "deny"
    WARN = "warn"


class PolicySpec(StrictModel):
    """A guardrail: a CEL expression every deployment of a plan must satisfy."""

    expression: Annotated[str, StringConstraints(min_length=1)] = Field(
        description="CEL over `deployment`, `change`, `live` and `environment`; "
        "true: the deployment passes"
    )
    message: Annotated[str, StringConstraints(min_length=1)] = Field(
        description="what the plan says when the expression is false"
    )
    severity: PolicySeverity = Field(
        default=PolicySeverity.DENY,
        description="deny: a plan error (nothing can be applied); warn: shown, changes nothing",
    )
    environments: list[str] | None = Field(
        default=None, description="only in these environments (default: every environment)"
    )


class ConfigFile(StrictModel):
    """planner config file (TOML or JSON)."""

    model_config = ConfigDict(title="planner config", populate_by_name=True)

    schema_: str | None = Field(
        default=None, alias="$schema", description="JSON Schema of this file, for editors"
    )
    control_plane: ControlPlaneConfig | None = Field(
        default=None, description="the control plane endpoint and workspace"
    )
    defaults: DefaultsSpec | None = Field(
        default=None, description="merged under every deployment; a deployment's own value wins"
    )
    deployments: dict[DeploymentName, DeploymentTable] | None = Field(
        default=None, description="deployments by name (lowercase letters, digits, '-')"
    )
    variables: dict[str, VariableSpec] | None = Field(
        default=None, description="variables by name, used as ${var.NAME} in any string"
    )
    templates: dict[str, TemplateSpec] | None = Field(
        default=None, description="deployment-shaped tables a deployment picks with `template`"
    )
    environments: dict[str, EnvironmentSpec] | None = Field(
        default=None, description="environments by name; --env NAME (or PLANNER_ENV) picks one"
    )
    state: StateConfig | None = Field(
        default=None, description="where the state lives (a file, or PostgreSQL for a team)"
    )
    policies: dict[PolicyName, PolicySpec] | None = Field(
        default=None,
        description="guardrails by name: CEL expressions evaluated for every deployment "
        "of every plan (docs/guides/guardrails.md)",
    )


@dataclass(frozen=True)
class Config:
    """A loaded, validated config: desired deployments by name, plus warnings to show."""

    path: Path
    control_plane: ControlPlaneConfig
    deployments: dict[str, DesiredDeployment]
    warnings: list[str] = field(default_factory=list)
    environment: str | None = None
    # Variables given as `--var` or PLANNER_VAR_NAME (a saved plan applies with them).
    given_variables: dict[str, str] = field(default_factory=dict)
    state: StateConfig = field(default_factory=StateConfig)
    # The policies that apply in this environment, in file order (not compiled yet).
    policies: tuple[Policy, ...] = ()

    @property
    def mode(self) -> Mode:
        return Mode(self.control_plane.mode)

    @property
    def spelling(self) -> Spelling:
        """How the config's deployments write the words the dialects spell differently."""
        spelling = SEED_SPELLING
        for desired in self.deployments.values():
            spelling |= desired.spelling
        return spelling
