"""The defaults of apply the command line shows, apart from the engine: `planner apply
--help` reads them without importing the client and the executor."""

from __future__ import annotations

# Creates and PATCHes in flight at once. Waits do not take these slots (the poller has its
# own budget), so the default only bounds how fast requests go out: 50 keeps the local
# control plane busy (1,000 creates near one revision's time) and is still a modest load
# for a real API, whose 429s close the shared gate (every request backs off together).
DEFAULT_PARALLELISM = 50
