"""The PostgreSQL tables of team state, created on first use and versioned.

Tables, in one schema (`planner` unless `[state] schema` says otherwise):

- `schema_version`: one row, the version of these tables (`SCHEMA_VERSION`); a newer one
  than this code knows is refused, so an old planner never writes tables it does not
  understand.
- `states`: one row per state name (`id` is the key of its advisory lock), with its
  lineage, the key that seals its saved plans and `lock_generation`, how many times its
  lock was taken (a write of an older generation is refused).
- `versions`: every write, `(state_id, serial)` unique: the compare-and-swap of writers.
- `operations`: the operation log of a version (planner.state.oplog), one row per commit
  group, keyed by `(state_id, base_serial, seq)`; rows of older bases are deleted by the
  write that folds them into a new version.
- `locks`: who holds each state's lock (for messages; the advisory lock is the truth):
  a row is the holder's only while `backend_pid` is the server process holding the
  advisory lock; any other row is left by a holder that died, whose `lease` (seconds
  from its last heartbeat, `renewed`) the next holder waits out.

Creating the tables takes a transaction-level advisory lock of its own (key
`(LOCK_CLASSID, 0)`, never a state's: state ids start at 1) only when they are missing or
older; creating a state is an `INSERT ... ON CONFLICT DO NOTHING` that locks nothing else.
"""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql

from planner import __version__
from planner.errors import StateError

SCHEMA_VERSION = 3  # 2: the operations table; 3: leases and lock generations
# The first key of every planner advisory lock ("PLNR"); the second is the state's id.
LOCK_CLASSID = 0x504C4E52

_DDL = (
    """CREATE TABLE IF NOT EXISTS {s}.schema_version (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        version integer NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS {s}.states (
        id bigserial PRIMARY KEY,
        name text NOT NULL UNIQUE,
        lineage text,
        plan_key text,
        created timestamptz NOT NULL DEFAULT now())""",
    """CREATE TABLE IF NOT EXISTS {s}.versions (
        state_id bigint NOT NULL REFERENCES {s}.states (id) ON DELETE CASCADE,
        serial bigint NOT NULL,
        lineage text NOT NULL,
        document text NOT NULL,
        checksum text NOT NULL,
        deployments integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        written_by text NOT NULL,
        PRIMARY KEY (state_id, serial))""",
    """CREATE TABLE IF NOT EXISTS {s}.operations (
        state_id bigint NOT NULL REFERENCES {s}.states (id) ON DELETE CASCADE,
        base_serial bigint NOT NULL,
        seq bigserial NOT NULL,
        line text NOT NULL,
        PRIMARY KEY (state_id, base_serial, seq))""",
    """CREATE TABLE IF NOT EXISTS {s}.locks (
        state_id bigint PRIMARY KEY REFERENCES {s}.states (id) ON DELETE CASCADE,
        lock_id text NOT NULL,
        who text NOT NULL,
        host text NOT NULL,
        pid integer NOT NULL,
        operation text NOT NULL,
        since text NOT NULL,
        ci_run text,
        tool_version text NOT NULL,
        backend_pid integer NOT NULL)""",
    # 3: how many times each state's lock was taken (fencing), and each holder's lease
    "ALTER TABLE {s}.states ADD COLUMN IF NOT EXISTS lock_generation bigint NOT NULL DEFAULT 0",
    "ALTER TABLE {s}.locks ADD COLUMN IF NOT EXISTS lease double precision NOT NULL DEFAULT 15",
    "ALTER TABLE {s}.locks ADD COLUMN IF NOT EXISTS generation bigint NOT NULL DEFAULT 0",
    "ALTER TABLE {s}.locks ADD COLUMN IF NOT EXISTS renewed timestamptz NOT NULL DEFAULT now()",
)


def query(template: str, schema: str) -> sql.Composed:
    """TEMPLATE with `{s}` the quoted schema name."""
    return sql.SQL(template).format(s=sql.Identifier(schema))


def ensure_schema(conn: Connection[Any], schema: str, *, location: str) -> None:
    """Create or upgrade the tables when needed; refuse tables newer than this code."""
    if _check_version(conn, schema, location) == SCHEMA_VERSION:
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (LOCK_CLASSID,))
        if _check_version(conn, schema, location) == SCHEMA_VERSION:
            return  # another process made them while this one waited
        # not IF NOT EXISTS: that needs CREATE on the database even when the schema exists
        if not conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone():
            conn.execute(query("CREATE SCHEMA {s}", schema))
        for statement in _DDL:
            conn.execute(query(statement, schema))
        conn.execute(
            query(
                "INSERT INTO {s}.schema_version (singleton, version) VALUES (true, %s) "
                "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version",
                schema,
            ),
            (SCHEMA_VERSION,),
        )


def _check_version(conn: Connection[Any], schema: str, location: str) -> int | None:
    """The tables' version (None: not made yet), refused when newer than this code's."""
    table = conn.execute("SELECT to_regclass(%s)", (f'"{schema}".schema_version',)).fetchone()
    if table is None or table[0] is None:
        return None
    row = conn.execute(query("SELECT version FROM {s}.schema_version", schema)).fetchone()
    version = None if row is None else int(row[0])
    if version is not None and version > SCHEMA_VERSION:
        raise StateError(
            f"the state tables of {location} (schema {schema}) are of schema version "
            f"{version}; this planner ({__version__}) knows version {SCHEMA_VERSION} only",
            hint="a newer planner created or upgraded them: use that version (or newer) "
            "of the planner for this state",
        )
    return version
