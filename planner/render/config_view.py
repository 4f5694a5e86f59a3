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

MASK = "(sensitive)"


def resolved_config_data(config: Config) -> dict[str, Any]:
    """`control_plane` and every deployment with its defaults and templates merged in."""
    control_plane = config.control_plane.model_dump(mode="json", exclude_none=True)
    deployments = {name: _deployment_data(d) for name, d in config.deployments.items()}
    return {"control_plane": control_plane, "deployments": deployments}


def _deployment_data(desired: DesiredDeployment) -> dict[str, Any]:
    data: dict[str, Any] = {"source": str(desired.source.value), **desired.managed()}
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
    """The resolved config as TOML (with a header comment naming its origin) or JSON."""
    data = resolved_config_data(config)
    if output_format == "json":
        return json.dumps(data, indent=2) + "\n"
    where = f", environment {config.environment}" if config.environment else ""
    return f"# {config.path}{where}: resolved, secrets masked\n\n{tomli_w.dumps(data)}"
