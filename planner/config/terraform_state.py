"""A Terraform state's `langsmith_deployment` resources (`planner import --from-terraform`).

Two shapes are read, told apart by their top-level keys:
- a state file, format version 4 (`terraform.tfstate`, `terraform state pull`):
  `resources[]` with `mode`, `type`, `name`, the `module` path when not in the root
  module (`module.app["eu"]`) and `instances[]` of `attributes`, with `index_key` under
  `count` or `for_each` and `deposed` for an object a replace has yet to destroy;
- `terraform show -json` of a state (`format_version` 1.x): `values.root_module` with
  `resources[]` (`address`, `mode`, `type`, `values`, `deposed_key`) and
  `child_modules[]`, nested.

Only managed `langsmith_deployment` resources are kept: data sources and other types are
passed over. Their attributes are the provider's (`langchain-ai/terraform-provider-
langsmith`): the deployment's wire fields in the real service's words, and Terraform's
own (`environment_variables`, the write-only `secrets`, `secrets_hash`,
`secrets_version`, `latest_revision_status`). `declared` keeps the wire fields only, so
no environment value ever leaves the state through it.

The file is read bounded in size and depth (`planner.files`); every problem is one
`TerraformStateError` naming the file (and the resource).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from planner.api.models import (
    Deployment,
    ResourceSpec,
    SourceConfig,
    SourceRevisionConfig,
)
from planner.api.vocabulary import seed_word
from planner.errors import TerraformStateError
from planner.files import MAX_WRITTEN_NESTING, parse_nested, read_user_text

RESOURCE_TYPE = "langsmith_deployment"
STATE_FORMAT = 4
SHOW_FORMAT_MAJOR = "1"
# Terraform states hold every resource of a configuration, not only deployments.
MAX_STATE_BYTES = 32 * 1024 * 1024
# What a config declares of a deployment, as the provider's attributes name it.
DECLARED = ("name", "source", "display_name", "source_config", "source_revision_config")
LISTED = "secret_references"
# Terraform's own attributes: the environment (values in clear, or write-only), its
# digest, the revision trigger, a status read with the revision.
TERRAFORM_ONLY = frozenset(
    {
        "environment_variables",
        "secrets",
        "secrets_hash",
        "secrets_version",
        "latest_revision_status",
    }
)
ENVIRONMENT = "environment_variables"
_SECTIONS: tuple[tuple[tuple[str, ...], type[BaseModel]], ...] = (
    (("source_config",), SourceConfig),
    (("source_revision_config",), SourceRevisionConfig),
    (("source_config", "resource_spec"), ResourceSpec),
)


@dataclass(frozen=True)
class TerraformDeployment:
    """One `langsmith_deployment` instance: its address, as Terraform prints it
    (`module.app.langsmith_deployment.api["eu"]`), and its attributes."""

    address: str
    attributes: Mapping[str, Any] = field(repr=False)

    @property
    def id(self) -> str:
        return str(self.attributes["id"])

    @property
    def name(self) -> str:
        return str(self.attributes["name"])

    @property
    def tenant_id(self) -> str | None:
        tenant = self.attributes.get("tenant_id")
        return tenant if isinstance(tenant, str) else None

    @property
    def has_values_in_clear(self) -> bool:
        """Whether the state holds environment values of it in clear."""
        environment = self.attributes.get(ENVIRONMENT)
        return isinstance(environment, Mapping) and bool(environment)

    def declared(self, live: Deployment, path: Path) -> Deployment:
        """LIVE with what the state declares of it (`DECLARED`, `secret_references`) in
        place of its own: the live ids, times and secrets (names to read from the
        environment; their values are the server's, never the state's)."""
        body = live.model_dump(mode="json", exclude=set(DECLARED) | {LISTED})
        for key in (*DECLARED, LISTED):
            value = without_nulls(self.attributes.get(key))
            if value is not None:
                body[key] = value
        try:
            return Deployment.model_validate(body)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise TerraformStateError(
                f"{path}: {self.address}: {where}: {first['msg']}",
                hint="the attributes are not those the langsmith provider writes",
            ) from None

    def left_out(self) -> list[str]:
        """The attributes set in the state that no field of a deployment reads (a newer
        provider's): the config cannot declare them."""
        known = {*DECLARED, LISTED, *TERRAFORM_ONLY, *Deployment.model_fields}
        out = [key for key, value in self.attributes.items() if not _is_read(value, key, known)]
        for place, model in _SECTIONS:
            section = _at(self.attributes, place)
            names = set(model.model_fields) | {"resource_spec"}
            out += [
                ".".join((*place, key))
                for key, value in section.items()
                if not _is_read(value, seed_word(key), names)
            ]
        return sorted(out)


def _is_read(value: Any, key: str, known: set[str]) -> bool:
    """Whether an attribute is unset (null) or a KNOWN one."""
    return value is None or key in known


def _at(attributes: Mapping[str, Any], place: tuple[str, ...]) -> Mapping[str, Any]:
    node: Any = attributes
    for part in place:
        node = node.get(part) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else {}


def without_nulls(value: Any) -> Any:
    """VALUE without the nulls Terraform writes for unset attributes (None when nothing
    is left of an object)."""
    if isinstance(value, Mapping):
        kept = {key: without_nulls(item) for key, item in value.items()}
        kept = {key: item for key, item in kept.items() if item is not None}
        return kept or None
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def read_terraform_state(path: Path) -> list[TerraformDeployment]:
    """The `langsmith_deployment` instances of the Terraform state at PATH, by address."""
    try:
        text = read_user_text(path, "the Terraform state", TerraformStateError, MAX_STATE_BYTES)
    except FileNotFoundError:
        raise TerraformStateError(
            f"{path}: no such file",
            hint="`terraform state pull > terraform.tfstate` writes the state of any backend",
        ) from None
    try:
        data = parse_nested(json.loads, text, path, TerraformStateError, MAX_WRITTEN_NESTING)
    except json.JSONDecodeError as error:
        raise TerraformStateError(
            f"{path}: not JSON (line {error.lineno}, column {error.colno}: {error.msg})",
            hint=_SHAPES_HINT,
        ) from None
    return terraform_deployments(data, path)


_SHAPES_HINT = (
    "give a state file (`terraform state pull > terraform.tfstate`) or the output of "
    "`terraform show -json`"
)


def terraform_deployments(data: Any, path: Path) -> list[TerraformDeployment]:
    """The `langsmith_deployment` instances of DATA, a parsed state of either shape, by
    address (the two shapes list modules in different orders)."""
    if isinstance(data, dict) and "resources" in data and "version" in data:
        found = list(_state_file_instances(data, path))
    elif isinstance(data, dict) and "format_version" in data:
        found = list(_show_json_instances(data, path))
    else:
        raise TerraformStateError(f"{path}: not a Terraform state", hint=_SHAPES_HINT)
    if not found:
        raise TerraformStateError(
            f"{path}: no managed {RESOURCE_TYPE} resource in this Terraform state "
            "(data sources are not adopted)"
        )
    _refuse_one_id_twice(found, path)
    return sorted(found, key=lambda deployment: deployment.address)


def _state_file_instances(data: dict[str, Any], path: Path) -> Iterator[TerraformDeployment]:
    version = data["version"]
    if version != STATE_FORMAT:
        raise TerraformStateError(
            f"{path}: Terraform state format version {version!r}: only version "
            f"{STATE_FORMAT} is read",
            hint="Terraform 0.12 and later write version 4: `terraform state pull` with a "
            "current Terraform",
        )
    for resource in _list(data["resources"], path, "resources"):
        if not _is_deployment(resource):
            continue
        module = resource.get("module")
        prefix = f"{module}." if isinstance(module, str) and module else ""
        for instance in _list(resource.get("instances"), path, "instances"):
            key = instance.get("index_key") if isinstance(instance, dict) else None
            address = f"{prefix}{RESOURCE_TYPE}.{resource.get('name')}{index_text(key)}"
            deposed = instance.get("deposed") if isinstance(instance, dict) else None
            attributes = instance.get("attributes") if isinstance(instance, dict) else None
            yield _checked(address, attributes, deposed, path)


def _show_json_instances(data: dict[str, Any], path: Path) -> Iterator[TerraformDeployment]:
    version = data["format_version"]
    if not isinstance(version, str) or version.split(".")[0] != SHOW_FORMAT_MAJOR:
        raise TerraformStateError(
            f"{path}: `terraform show -json` format version {version!r}: only "
            f"{SHOW_FORMAT_MAJOR}.x is read"
        )
    if "planned_values" in data or "resource_changes" in data:
        raise TerraformStateError(
            f"{path}: the JSON of a Terraform plan, not of a state",
            hint="run `terraform show -json` without a plan file: it shows the state",
        )
    values = data.get("values")
    root = values.get("root_module") if isinstance(values, dict) else None
    pending = [root] if isinstance(root, dict) else []
    while pending:
        module = pending.pop(0)
        for resource in _list(module.get("resources", []), path, "resources"):
            if _is_deployment(resource):
                address = str(resource.get("address"))
                attributes = resource.get("values")
                yield _checked(address, attributes, resource.get("deposed_key"), path)
        children = _list(module.get("child_modules", []), path, "child_modules")
        pending += [child for child in children if isinstance(child, dict)]


def _list(value: Any, path: Path, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise TerraformStateError(f"{path}: `{what}` is not a list: not a Terraform state")
    return value


def _is_deployment(resource: Any) -> bool:
    return (
        isinstance(resource, dict)
        and resource.get("type") == RESOURCE_TYPE
        and resource.get("mode") == "managed"
    )


def _checked(address: str, attributes: Any, deposed: Any, path: Path) -> TerraformDeployment:
    """The instance at ADDRESS, refused when it is a deposed object or lacks what an
    adoption needs (its id, name and source)."""
    if deposed:
        raise TerraformStateError(
            f"{path}: {address}: a deposed object (replaced, not destroyed yet)",
            hint="let Terraform finish the replace first (`terraform apply`)",
        )
    if not isinstance(attributes, dict):
        raise TerraformStateError(f"{path}: {address}: no attributes")
    for key in ("id", "name", "source"):
        if not isinstance(attributes.get(key), str) or not attributes[key]:
            raise TerraformStateError(f"{path}: {address}: no {key}")
    if not is_uuid(attributes["id"]):
        raise TerraformStateError(
            f"{path}: {address}: id {attributes['id']!r} is not a deployment's id (a UUID)"
        )
    return TerraformDeployment(address, attributes)


def is_uuid(text: str) -> bool:
    """Whether TEXT spells a UUID (every deployment id does)."""
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _refuse_one_id_twice(found: list[TerraformDeployment], path: Path) -> None:
    seen: dict[str, str] = {}
    for deployment in found:
        other = seen.setdefault(deployment.id, deployment.address)
        if other != deployment.address:
            raise TerraformStateError(
                f"{path}: {other} and {deployment.address} are one deployment "
                f"({deployment.id}): one deployment has one owner",
                hint="`terraform state rm` one of them first",
            )


def index_text(key: Any) -> str:
    """An instance key as Terraform writes it in an address: `[0]` under `count`,
    `["eu"]` under `for_each` (HCL's quoting, so the address parses back), nothing
    without either."""
    if key is None:
        return ""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"[{key}]"
    quoted = json.dumps(str(key), ensure_ascii=False)
    return "[" + quoted.replace("${", "$${").replace("%{", "%%{") + "]"
