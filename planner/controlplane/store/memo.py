"""The store's memo: what it remembers between reads (where a plain listing's pages begin,
the views of settled deployments) and when it forgets. A write forgets what it changes
(`writes.py`), another connection's commit everything (`ReadMemo.check`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

# A row's place in the page order: (created_at, id).
PageKey = tuple[float, str]


class PageStarts:
    """Where the pages of a plain listing (no filter) begin: the page order's key of the
    row before offset N, remembered when a page ends there, so the page at N seeks its
    first row in the workspace index instead of walking the N entries before it.

    OFFSET keeps its meaning: the key stays the row before N as long as no row sorting
    before it is added or removed. A new deployment sorting after every key remembered
    keeps them (a create's `created_at` is the clock's now); one sorting before any, a
    purge, or a commit by another connection (`PRAGMA data_version`: another process or
    store on the file: `ReadMemo.check`) forgets them all, and the next pages walk OFFSET
    again."""

    LIMIT = 100_000  # keys remembered (a listing of a million rows, 100 a page, at most)

    def __init__(self) -> None:
        self._keys: dict[tuple[str, int], PageKey] = {}
        self._greatest: PageKey | None = None

    def before(self, tenant_id: str, offset: int) -> PageKey | None:
        """The key of the row just before OFFSET in TENANT_ID's page order, if known."""
        return self._keys.get((tenant_id, offset))

    def remember(self, tenant_id: str, offset: int, key: PageKey) -> None:
        """KEY is the row just before OFFSET."""
        if len(self._keys) >= self.LIMIT:
            self.forget()
        self._keys[(tenant_id, offset)] = key
        if self._greatest is None or key > self._greatest:
            self._greatest = key

    def added(self, key: PageKey) -> None:
        """A row with KEY was inserted."""
        if self._greatest is not None and key < self._greatest:
            self.forget()

    def forget(self) -> None:
        self._keys = {}
        self._greatest = None


class SettledViews:
    """The wire text of deployments whose view no longer changes with time, by id, each
    with the instant from which it holds (`views.settled_since`): a plain list page whose
    deployments are all here is written without reading their rows. The store forgets a
    deployment's view whenever its row or its revisions are written."""

    LIMIT = 50_000  # views kept (about 1 KB each)

    def __init__(self) -> None:
        self._views: dict[str, tuple[float, str]] = {}

    def get(self, deployment_id: str, now: float) -> str | None:
        found = self._views.get(deployment_id)
        return found[1] if found is not None and now >= found[0] else None

    def keep(self, deployment_id: str, since: float, text: str) -> None:
        """TEXT is the deployment's view at every instant from SINCE on."""
        if len(self._views) >= self.LIMIT:
            self.forget()
        self._views[deployment_id] = (since, text)

    def drop(self, deployment_ids: Iterable[str]) -> None:
        for deployment_id in deployment_ids:
            self._views.pop(deployment_id, None)

    def forget(self) -> None:
        self._views = {}


class ReadMemo:
    """What a store remembers between reads; all of it forgotten once another connection
    (another process or store on the file) has committed."""

    def __init__(self) -> None:
        self.starts = PageStarts()
        self.views = SettledViews()
        self._version: int | None = None

    def check(self, conn: sqlite3.Connection) -> None:
        """Forget everything if another connection has committed since the last check."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            self.starts.forget()
            self.views.forget()
            self._version = version
