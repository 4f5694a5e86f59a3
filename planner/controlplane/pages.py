"""The SQL of one page of `GET /v2/deployments`: which index each filter seeks.

The page's rowids are found first, in an index alone where it can be, and only those rows
are read, so skipping OFFSET rows walks index entries, not whole rows:
- `deployment_ids`: each id by primary key, whatever the workspace's size (`+tenant_id`
  takes the workspace index, which would walk the whole workspace in page order, out of
  the planner's choice);
- `name_contains` alone: the workspace's names in the UNIQUE (tenant_id, name) index,
  reading only the rows that match;
- anything else: the workspace index (tenant_id, created_at, id) in page order; with no
  filter it covers the page query, so a deep page costs index entries only, and with
  AFTER (the key of the row before the page, `store.PageStarts`) it seeks the page's
  first entry instead of walking the OFFSET entries before it.
`tests/controlplane/test_store.py` pins each shape with EXPLAIN QUERY PLAN.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from planner.controlplane.rows import DeploymentFilter

# SQLite's name for the index of UNIQUE (tenant_id, name): the table's second constraint
# in `store/schema.py` (the primary key's is _1).
NAME_INDEX = "sqlite_autoindex_deployments_2"

# The status a deployment shows, in SQL (mirrors lifecycle.deployment_status) for filtering.
STATUS_SQL = (
    "CASE WHEN delete_at IS NOT NULL AND :now >= (updated_at + delete_at) / 2 "
    "THEN 'AWAITING_FINAL_DELETE' "
    "WHEN delete_at IS NOT NULL THEN 'AWAITING_DELETE' "
    "WHEN ready_at <= :now THEN 'READY' ELSE 'AWAITING_DATABASE' END"
)


def page_sql(
    where: DeploymentFilter, columns: Sequence[str] = ("d.*", "r.*"), *, after: bool = False
) -> tuple[str, dict[str, Any]]:
    """The query of one list page: COLUMNS of its deployments (`d`) each joined to its
    revisions (`r`, newest first), and its parameters besides tenant, now, limit, offset
    (AFTER: and `after_created_at`, `after_id`, the page order's key the page follows;
    OFFSET then counts from there).

    The outer query reads the page's rows by rowid (CROSS JOIN keeps the page's subquery
    the outer loop) and sorts those few again, as SQL promises no order otherwise; one
    statement reads a page and the revisions its statuses need.
    """
    page, params = page_keys_sql(where, "rowid AS page_rowid", after=after)
    sql = (
        f"SELECT {', '.join(columns)} FROM ({page}) AS page "
        "CROSS JOIN deployments AS d ON d.rowid = page.page_rowid "
        "LEFT JOIN revisions AS r ON r.deployment_id = d.id "
        "ORDER BY d.created_at, d.id, r.seq DESC"
    )
    return sql, params


def page_keys_sql(
    where: DeploymentFilter, columns: str = "created_at, id", *, after: bool = False
) -> tuple[str, dict[str, Any]]:
    """The page's COLUMNS of `deployments` alone, in page order (as `page_sql`)."""
    clauses, params = _filter_sql(where)
    if after:
        clauses += " AND (created_at, id) > (:after_created_at, :after_id)"
    tenant = "+tenant_id" if where.deployment_ids is not None else "tenant_id"
    index = f"INDEXED BY {NAME_INDEX} " if _uses_name_index(where) else ""
    sql = (
        f"SELECT {columns} FROM deployments {index}"
        f"WHERE {tenant} = :tenant_id {clauses} "
        "ORDER BY created_at, id LIMIT :limit OFFSET :offset"
    )
    return sql, params


def _uses_name_index(where: DeploymentFilter) -> bool:
    """Only a name filter alone: the others need the row, the name index would not help."""
    others = (where.status, where.image_version, where.deployment_type, where.deployment_ids)
    return bool(where.name_contains) and all(value is None for value in others)


def _filter_sql(where: DeploymentFilter) -> tuple[str, dict[str, Any]]:
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if where.name_contains:
        # Stored names are DNS labels (lower-case ASCII: `check_name` at create, and
        # immutable), so lower(name) = name: not lowering each row halves the scan.
        clauses.append("instr(name, lower(:name_contains)) > 0")
        params["name_contains"] = where.name_contains
    if where.status is not None:
        clauses.append(f"({STATUS_SQL}) = :status")
        params["status"] = where.status
    if where.image_version is not None:
        clauses.append("image_version = :image_version")
        params["image_version"] = where.image_version
    if where.deployment_type is not None:
        clauses.append("json_extract(source_config, '$.deployment_type') = :deployment_type")
        params["deployment_type"] = where.deployment_type
    if where.deployment_ids is not None:
        names = [f":id{n}" for n in range(len(where.deployment_ids))]
        clauses.append(f"id IN ({', '.join(names)})")
        params.update({f"id{n}": v for n, v in enumerate(where.deployment_ids)})
    return "".join(f" AND {c}" for c in clauses), params
