"""Test helper: desired state back to config-file data (the inverse of loading, defaults
already merged), for the round-trip tests of the loader.

Secrets read from the environment come back as `{ env = "VAR" }`; literal secrets come
back as their values, so the result must be written only where the original file could
be, never printed.
"""

from __future__ import annotations

from typing import Any

from planner.config.desired import DesiredDeployment
from planner.config.models import Config


def deployment_to_data(desired: DesiredDeployment) -> dict[str, Any]:
    """The `[deployments.<name>]` table that loads back into `desired`."""
    data: dict[str, Any] = {"source": str(desired.source.value), **desired.managed()}
    if "secrets" in desired.model_fields_set:
        data["secrets"] = {
            name: {"env": desired.secret_env[name]}
            if name in desired.secret_env
            else value.get_secret_value()
            for name, value in desired.secrets.items()
        }
    lifecycle = desired.lifecycle.model_dump(mode="json", exclude_unset=True)
    if lifecycle:
        data["lifecycle"] = lifecycle
    return data


def config_to_data(config: Config) -> dict[str, Any]:
    """The whole file: `[control_plane]` as written and every deployment, fully merged."""
    data: dict[str, Any] = {}
    control_plane = config.control_plane.model_dump(mode="json", exclude_unset=True)
    if control_plane:
        data["control_plane"] = control_plane
    data["deployments"] = {
        name: deployment_to_data(desired) for name, desired in config.deployments.items()
    }
    return data
