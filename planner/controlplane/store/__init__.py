"""SQLite store of the local control plane: one file, WAL, every query workspace-scoped.

All SQL lives in this package (the list page's in `pages.py`), one job a module:
- `database.py`: `Store`, the file's connection and its units of work (a write's
  transaction, the batch of a loop turn's creates, a read's snapshot), the purge of
  deployments whose deletion time has passed;
- `schema.py`: the tables and indexes, and the upgrade of an older file in place;
- `codecs.py`: the columns each query selects and how a row becomes a value and back;
- `reads.py`: `Snapshot`, the read queries a snapshot (and every unit of work) offers;
- `writes.py`: `Transaction`, a `Snapshot` that writes too, telling the memo what changed;
- `memo.py`: what the store remembers between reads (`ReadMemo`): where a plain
  listing's pages begin (`PageStarts`) and the views of settled deployments
  (`SettledViews`); a write forgets what it changes, another connection's commit
  everything.
"""

from planner.controlplane.rows import (
    DeploymentFilter,
    DeploymentRow,
    ListenerRow,
    RevisionRow,
    RevisionSummary,
    StoredDeployment,
    TracingProjectRow,
    UploadRow,
)
from planner.controlplane.store.codecs import stored
from planner.controlplane.store.database import Store
from planner.controlplane.store.memo import PageStarts, ReadMemo, SettledViews
from planner.controlplane.store.reads import Snapshot
from planner.controlplane.store.schema import SCHEMA
from planner.controlplane.store.writes import Transaction

__all__ = [
    "SCHEMA",
    "DeploymentFilter",
    "DeploymentRow",
    "ListenerRow",
    "PageStarts",
    "ReadMemo",
    "RevisionRow",
    "RevisionSummary",
    "SettledViews",
    "Snapshot",
    "Store",
    "StoredDeployment",
    "TracingProjectRow",
    "Transaction",
    "UploadRow",
    "stored",
]
