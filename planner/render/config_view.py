"""A loaded config as the file it amounts to: one environment, everything merged, secrets
masked (`planner config`, like `docker compose config`).

Only what the config sets is shown; a secret read from the environment shows as
`{ env = "VAR" }` and a literal one as a mask, so the output can be pasted or logged.
"""

from __future__ import annotations

import json
from typing import Any

import tomli_w

from planner.config.desired import DesiredDeployment
from planner.config.models import Config
from planner.plan.adopt import GeneratedConfig
from planner.render.safe import visible

MASK = "(sensitive)"


def resolved_config_data(config: Config) -> dict[str, Any]:
    """`control_plane`, every deployment with its defaults and templates merged in, and
    the policies that apply in the config's environment."""
    control_plane = config.control_plane.model_dump(mode="json", exclude_none=True)
    deployments = {name: _deployment_data(d) for name, d in config.deployments.items()}
    data = {"control_plane": control_plane, "deployments": deployments}
    if config.policies:  # those of this environment
        data["policies"] = {
            p.name: {"expression": p.expression, "message": p.message, "severity": p.severity}
            for p in config.policies
        }
    return data


def _deployment_data(desired: DesiredDeployment) -> dict[str, Any]:
    """One deployment as its config wrote it (its words: `desired.spelling`)."""
    managed = {"source": str(desired.source.value), **desired.managed()}
    data: dict[str, Any] = desired.spelling.body(managed)
    if desired.secrets:
        data["secrets"] = {
            name: {"env": desired.secret_env[name]} if name in desired.secret_env else MASK
            for name in desired.secrets
        }
    lifecycle = desired.lifecycle.model_dump(mode="json", exclude_unset=True)
    if lifecycle:
        data["lifecycle"] = lifecycle
    return data


def render_config(config: Config, output_format: str) -> str:
    """The resolved config as TOML (with a header comment naming its origin; control and
    bidi characters escaped as TOML escapes them) or JSON (which escapes them itself)."""
    data = resolved_config_data(config)
    if output_format == "json":
        return json.dumps(data, indent=2) + "\n"
    where = f", environment {config.environment}" if config.environment else ""
    header = visible(f"# {config.path}{where}: resolved, secrets masked", toml=True)
    body = visible(tomli_w.dumps(data), keep="\n", toml=True)  # tomli_w escapes the rest
    return f"{header}\n\n{body}"


def render_generated_config(
    generated: GeneratedConfig,
    control_plane: dict[str, Any],
    environment: str | None,
    *,
    state: dict[str, Any] | None = None,
    header: str | None = None,
) -> str:
    """The TOML of `planner import --all` (or `--from-terraform`): a header (HEADER: its
    first line, by default `import --all`'s), `[state]` (when STATE is not empty), the
    control plane (of ENVIRONMENT when given), `[defaults]`, then one block per
    deployment with its secrets inline."""
    head: dict[str, Any] = {"state": state} if state else {}
    if environment is not None:
        head["environments"] = {environment: {"control_plane": control_plane}}
    elif control_plane:
        head["control_plane"] = control_plane
    if generated.defaults:
        head["defaults"] = generated.defaults
    blocks = [_generated_header(generated, header or GENERATED_BY), tomli_w.dumps(head)]
    for name, table in generated.deployments.items():
        blocks.append(_deployment_block(name, table))
    return "\n".join(block.rstrip("\n") + "\n" for block in blocks if block.strip())


GENERATED_BY = "Written by `planner import --all`: the deployments as they run, adopted."


def _generated_header(generated: GeneratedConfig, first: str) -> str:
    lines = [visible(f"# {first}", toml=True)]
    if generated.variables:
        lines.append("# Secrets are read from these environment variables (set them to plan):")
        lines.append("#   " + " ".join(generated.variables))
    return "\n".join(lines) + "\n"


def _deployment_block(name: str, table: dict[str, Any]) -> str:
    plain = {key: value for key, value in table.items() if key != "secrets"}
    text = tomli_w.dumps({"deployments": {name: plain}})
    secrets = table.get("secrets") or {}
    if secrets:
        lines = [f"{key} = {{ env = {json.dumps(ref['env'])} }}" for key, ref in secrets.items()]
        text += f"\n[deployments.{name}.secrets]\n" + "\n".join(lines) + "\n"
    return text
