"""State: the local record of what the planner manages (file format, lock, atomic store).

Import what you need from here: the document, the backend interface and its two
implementations, and the helpers other stages call. They are imported on first use, so
that a light module of the package (`planner.state.lease`) is importable without pydantic
and the document (`planner --help` and every command's argument parsing need only those).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.state.backend import StateBackend, read_or_create
    from planner.state.document import PendingIntent, StateDocument, adopt
    from planner.state.endpoints import canonical_endpoint, embedded_endpoint
    from planner.state.inmemory import InMemoryBackend, MemoryStore
    from planner.state.localfile import LocalFileBackend
    from planner.state.locking import LockHandle, LockInfo
    from planner.state.records import RecordedDeployment

__all__ = [
    "InMemoryBackend",
    "LocalFileBackend",
    "LockHandle",
    "LockInfo",
    "MemoryStore",
    "PendingIntent",
    "RecordedDeployment",
    "StateBackend",
    "StateDocument",
    "adopt",
    "canonical_endpoint",
    "embedded_endpoint",
    "read_or_create",
]
_HOMES = {
    "StateBackend": "backend",
    "read_or_create": "backend",
    "PendingIntent": "document",
    "StateDocument": "document",
    "adopt": "document",
    "canonical_endpoint": "endpoints",
    "embedded_endpoint": "endpoints",
    "InMemoryBackend": "inmemory",
    "MemoryStore": "inmemory",
    "LocalFileBackend": "localfile",
    "LockHandle": "locking",
    "LockInfo": "locking",
    "RecordedDeployment": "records",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"planner.state.{_HOMES[name]}"), name)
