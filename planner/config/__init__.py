"""Config: TOML/JSON files loaded into validated desired state."""

from planner.config.loader import load_config
from planner.config.models import Config, ControlPlaneConfig

__all__ = ["Config", "ControlPlaneConfig", "load_config"]
