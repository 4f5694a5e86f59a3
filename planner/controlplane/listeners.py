"""Listener operations of the local control plane (no HTTP here).

Listeners live in the store, per workspace: the seed data's are written there when the
server starts (each workspace a key may use gets those visible to it, once: one it has
deleted stays deleted), and a self-hosted server creates, patches and deletes them. A
cloud server's listeners are the seed's alone: the service allows creating one only to
self-hosted installs, and so refuses every write in cloud mode (`Forbidden`).
"""

from __future__ import annotations

import uuid
from typing import Any

from planner.api.modes import Mode
from planner.api.other_models import ListenerCreate, ListenerPatch
from planner.controlplane import views
from planner.controlplane.seed import Catalog, is_visible
from planner.controlplane.service import Conflict, NotFound
from planner.controlplane.settings import ServerSettings
from planner.controlplane.store import ListenerRow, Store

COMPUTE_TYPE = "k8s"


class Forbidden(Exception):
    """HTTP 403 `{detail}`."""


def seed_listeners(store: Store, catalog: Catalog, settings: ServerSettings) -> None:
    """Write the seed's listeners for every workspace a key may use (those it has, or
    had, are left as they are). Written only when one is missing: a server started again
    over its file (or a command opening the embedded plane) only reads."""
    now = settings.clock()
    tenants = sorted({tenant for grants in settings.api_keys.values() for tenant in grants})
    wanted = [
        (tenant_id, listener)
        for tenant_id in tenants
        for listener in catalog.seed.listeners
        if is_visible(listener.tenant_ids, tenant_id)
    ]
    if not wanted:
        return
    with store.snapshot() as tx:
        known = {tenant_id: tx.listener_ids(tenant_id) for tenant_id in tenants}
    missing = [(t, listener) for t, listener in wanted if listener.id not in known[t]]
    if not missing:
        return
    with store.transaction() as tx:
        for tenant_id, listener in missing:
            row = ListenerRow(
                id=listener.id,
                tenant_id=tenant_id,
                compute_type=COMPUTE_TYPE,
                compute_id=listener.compute_id,
                compute_config={"k8s_namespaces": list(listener.k8s_namespaces)},
                version=None,
                created_at=now,
                updated_at=now,
            )
            tx.insert_listener(row, unless_known=True)


def listener_view(row: ListenerRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "tenant_id": row.tenant_id,
        "compute_type": row.compute_type,
        "compute_id": row.compute_id,
        "compute_config": {"k8s_namespaces": list(row.compute_config.get("k8s_namespaces") or [])},
        "version": row.version,
        "created_at": views.iso(row.created_at),
        "updated_at": views.iso(row.updated_at),
    }


def listener_not_found(listener_id: str) -> NotFound:
    return NotFound(f"Listener {listener_id} not found.")


class Listeners:
    """Operations on one workspace's listeners."""

    def __init__(self, store: Store, settings: ServerSettings, tenant_id: str) -> None:
        self.store = store
        self.settings = settings
        self.tenant_id = tenant_id

    def page(self, limit: int, offset: int) -> dict[str, Any]:
        """`{resources, offset}`, oldest first; `offset` is where the next page starts."""
        with self.store.snapshot() as tx:
            rows = tx.listeners(self.tenant_id, limit, offset)
        return {"resources": [listener_view(r) for r in rows], "offset": offset + len(rows)}

    def get(self, listener_id: str) -> dict[str, Any]:
        with self.store.snapshot() as tx:
            row = tx.listener(self.tenant_id, listener_id)
        if row is None:
            raise listener_not_found(listener_id)
        return listener_view(row)

    def create(self, body: ListenerCreate) -> dict[str, Any]:
        """A new listener; its `compute_id` is unique in the workspace (`Conflict`)."""
        self._check_writable("Creating")
        now = self.settings.clock()
        row = ListenerRow(
            id=str(uuid.uuid4()),
            tenant_id=self.tenant_id,
            compute_type=body.compute_type,
            compute_id=body.compute_id,
            compute_config={"k8s_namespaces": body.compute_config.k8s_namespaces or []},
            version=body.version,
            created_at=now,
            updated_at=now,
        )
        with self.store.transaction() as tx:
            if tx.has_compute_id(self.tenant_id, body.compute_id):
                raise Conflict(
                    f"A listener of compute '{body.compute_id}' already exists in this workspace."
                )
            tx.insert_listener(row)
        return listener_view(row)

    def patch(self, listener_id: str, body: ListenerPatch) -> dict[str, Any]:
        """Nulls leave a field as it is; `compute_config` replaces the stored one."""
        self._check_writable("Changing")
        with self.store.transaction() as tx:
            row = tx.listener(self.tenant_id, listener_id)
            if row is None:
                raise listener_not_found(listener_id)
            if body.version is not None:
                row.version = body.version
            if body.compute_config is not None:
                namespaces = body.compute_config.k8s_namespaces or []
                row.compute_config = {"k8s_namespaces": namespaces}
            row.updated_at = self.settings.clock()
            tx.update_listener(row)
        return listener_view(row)

    def delete(self, listener_id: str) -> None:
        self._check_writable("Deleting")
        with self.store.transaction() as tx:
            row = tx.listener(self.tenant_id, listener_id)
            if row is None:
                raise listener_not_found(listener_id)
            row.deleted_at = row.updated_at = self.settings.clock()
            tx.update_listener(row)

    def _check_writable(self, what: str) -> None:
        if self.settings.mode != Mode.SELF_HOSTED:
            raise Forbidden(
                f"{what} a listener is only allowed for self-hosted installs "
                "(this server runs in cloud mode)."
            )
