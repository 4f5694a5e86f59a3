"""Config: TOML/JSON files loaded into validated desired state.

`load_config`, `Config` and `ControlPlaneConfig` are imported on first use, so that a
module of the package (`planner.config.var_files`) is importable without pydantic and
the models (`planner --help` and every command's argument parsing need only those).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.config.loader import load_config
    from planner.config.models import Config, ControlPlaneConfig

__all__ = ["Config", "ControlPlaneConfig", "load_config"]
_HOMES = {
    "load_config": "planner.config.loader",
    "Config": "planner.config.models",
    "ControlPlaneConfig": "planner.config.models",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
