"""Seed data of the local control plane: repository integrations and OAuth providers.

A seed file is TOML (or JSON when its name ends in `.json`) with three lists,
`integrations` (each holding `repositories`), `oauth_providers` and `listeners`; the packaged
`default_seed.toml` is used when none is given. Seed data is per server (every workspace
sees it) unless an entry lists `tenant_ids`. Unknown keys are errors, so a typo in a seed
file does not silently drop data. Nullable fields may be left out (TOML has no null).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from planner.api.models import UuidStr
from planner.api.other_models import Integration, OAuthProvider, Repository
from planner.errors import ConfigError
from planner.files import parse_nested, read_user_text

DEFAULT_SEED_NAME = "default_seed.toml"


def _int_to_str(value: Any) -> Any:
    # Installation and repository ids are numbers on real git hosts; accept them unquoted.
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


IdStr = Annotated[str, BeforeValidator(_int_to_str), Field(min_length=1)]


class SeedModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeedRepository(SeedModel):
    id: IdStr
    name: str = Field(min_length=1)
    owner: str = Field(min_length=1)
    url: str = Field(min_length=1)
    default_branch: str = Field(min_length=1)


class SeedIntegration(SeedModel):
    id: UuidStr
    installation_id: IdStr
    name: str = Field(min_length=1)
    tenant_ids: list[UuidStr] | None = None
    repositories: list[SeedRepository] = Field(default_factory=list)


class SeedProvider(OAuthProvider):
    """An OAuth provider as the wire model has it, plus optional workspace scoping."""

    model_config = ConfigDict(extra="forbid")
    code_challenge_method: str | None = None  # required on the wire, but may be null
    tenant_ids: list[UuidStr] | None = None


class SeedListener(SeedModel):
    """A listener (`GET /v2/listeners`): its compute and the namespaces it serves."""

    id: UuidStr
    compute_id: IdStr
    k8s_namespaces: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list)
    tenant_ids: list[UuidStr] | None = None


class SeedFile(SeedModel):
    integrations: list[SeedIntegration] = Field(default_factory=list)
    oauth_providers: list[SeedProvider] = Field(default_factory=list)
    listeners: list[SeedListener] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_ids(self) -> SeedFile:
        for kind, ids in (
            ("integrations", [i.id for i in self.integrations]),
            ("oauth_providers", [p.id for p in self.oauth_providers]),
            ("listeners", [listener.id for listener in self.listeners]),
        ):
            duplicates = sorted({i for i in ids if ids.count(i) > 1})
            if duplicates:
                raise ValueError(f"duplicate {kind} id: {', '.join(duplicates)}")
        return self


def is_visible(tenant_ids: list[str] | None, tenant_id: str) -> bool:
    return tenant_ids is None or tenant_id in tenant_ids


@dataclass(frozen=True)
class Catalog:
    """The seed data as the routes serve it, filtered by workspace."""

    seed: SeedFile

    def providers_for(self, tenant_id: str) -> list[OAuthProvider]:
        return [
            OAuthProvider.model_validate(p.model_dump(exclude={"tenant_ids"}))
            for p in self.seed.oauth_providers
            if is_visible(p.tenant_ids, tenant_id)
        ]

    def integrations_for(self, tenant_id: str) -> list[Integration]:
        return [
            Integration(id=i.id, installation_id=i.installation_id, name=i.name)
            for i in self.seed.integrations
            if is_visible(i.tenant_ids, tenant_id)
        ]

    def repositories_of(self, integration_id: str, tenant_id: str) -> list[Repository] | None:
        """The repositories of one integration; None when the workspace has no such one."""
        for integration in self.seed.integrations:
            if integration.id == integration_id and is_visible(integration.tenant_ids, tenant_id):
                return [
                    Repository(host_integration_id=integration.id, **r.model_dump())
                    for r in integration.repositories
                ]
        return None


def read_seed_text(path: Path | None) -> tuple[str, str]:
    """The text of the seed file and the name to report it by (the packaged default if None)."""
    if path is None:
        text = resources.files("planner.controlplane").joinpath(DEFAULT_SEED_NAME).read_text()
        return text, f"(default) {DEFAULT_SEED_NAME}"
    try:
        return read_user_text(path, "seed file", ConfigError), str(path)
    except FileNotFoundError:
        raise ConfigError(f"{path}: cannot read seed file: no such file") from None


def parse_seed(text: str, name: str) -> dict[str, Any]:
    try:
        parse = json.loads if name.endswith(".json") else tomllib.loads
        data = parse_nested(parse, text, Path(name), ConfigError)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"Seed file {name} is not valid {seed_format(name)}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"Seed file {name} must hold a table/object at the top level")
    return data


def seed_format(name: str) -> str:
    return "JSON" if name.endswith(".json") else "TOML"


def describe_problems(error: ValidationError, name: str) -> list[str]:
    """One line per problem, `file: dotted.path: message` (never the offending value)."""
    lines = []
    for problem in error.errors(include_input=False, include_url=False):
        where = ".".join(str(part) for part in problem["loc"]) or "(top level)"
        lines.append(f"{name}: {where}: {problem['msg']}")
    return lines


def load_seed(path: Path | None = None) -> SeedFile:
    """Read and validate a seed file (the packaged default when `path` is None)."""
    text, name = read_seed_text(path)
    data = parse_seed(text, name)
    try:
        return SeedFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            f"Invalid seed file {name}",
            details=describe_problems(exc, name),
            hint='The seed file format is in docs/local-control-plane/serve.md ("Seed data").',
        ) from exc


def load_catalog(path: Path | None = None) -> Catalog:
    return Catalog(load_seed(path))
