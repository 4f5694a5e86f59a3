"""SQLite store of the local control plane (placeholder until the store lands)."""

from __future__ import annotations

from planner.controlplane.settings import ServerSettings


class Store:
    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings

    def close(self) -> None:
        pass
