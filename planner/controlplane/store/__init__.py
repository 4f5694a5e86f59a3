"""The local control plane's SQLite store (moved into a package: `database.py`)."""

from planner.controlplane.store.database import *  # noqa: F403
from planner.controlplane.store.database import SCHEMA, __all__, stored  # noqa: F401
