"""State: the local record of what the planner manages (file format, lock, atomic store).

Import what you need from here: the document, the backend interface and its two
implementations, and the helpers other stages call.
"""

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
