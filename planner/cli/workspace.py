"""The wiring every state-using command shares: config, endpoint, client, state, digest key.

A thin orchestrator, no business logic: `Workspace.open(...)` (or `from_args`) loads the
config, resolves the endpoint and opens the client (`planner.cli.endpoint.open_client`),
and points at the state file. Use it as `async with` (it closes the client). Commands
take `lock(...)` around a read-change-write, `read_state()` inside it, then `refresh` /
`make_plan`.
"""

from __future__ import annotations

import argparse
import gc
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

from planner.api.client import ControlPlaneClient
from planner.cli.common import environment_from, state_backend, variables_from
from planner.cli.endpoint import (
    announce_on_stderr,
    open_client,
    resolve_endpoint,
    state_dir_from,
)
from planner.config import Config, load_config
from planner.controlplane.settings import EMBEDDED_API_KEY
from planner.plan.diff import PlanOptions, make_plan
from planner.plan.model import Plan, Recovered
from planner.plan.refresh import Observed, observed_record, pending_create_names, refresh_observed
from planner.render.output import write_notice
from planner.secrets import digest_key
from planner.state.backend import StateBackend, read_or_create
from planner.state.document import IntentOp, StateDocument
from planner.state.locking import LockHandle
from planner.state.records import RecordedDeployment


@dataclass
class Workspace:
    """One config file against one control plane and one state (a file or PostgreSQL)."""

    config: Config
    client: ControlPlaneClient
    backend: StateBackend
    endpoint: str
    tenant_id: str | None
    _api_key: str = field(repr=False)
    state_dir: Path = Path()

    @classmethod
    def open(
        cls,
        config_path: str | os.PathLike[str],
        *,
        state_path: str | os.PathLike[str] | None = None,
        state_dir: str | os.PathLike[str] | None = None,
        base_url: str | None = None,
        environ: Mapping[str, str] | None = None,
        announce: Callable[[str], None] = announce_on_stderr,
        environment: str | None = None,
        variables: Mapping[str, str] | None = None,
    ) -> Workspace:
        """STATE_DIR (the embedded plane's directory) defaults to the environment's;
        ENVIRONMENT is the config's environment (its own state), VARIABLES `--var`s."""
        env = os.environ if environ is None else environ
        with long_lived_objects():
            config = load_config(
                Path(config_path), environ=env, env=environment, variables=variables
            )
        return cls.for_config(
            config,
            state_path=state_path,
            state_dir=state_dir,
            base_url=base_url,
            environ=env,
            announce=announce,
        )

    @classmethod
    def for_config(
        cls,
        config: Config,
        *,
        state_path: str | os.PathLike[str] | None = None,
        state_dir: str | os.PathLike[str] | None = None,
        base_url: str | None = None,
        environ: Mapping[str, str] | None = None,
        announce: Callable[[str], None] = announce_on_stderr,
    ) -> Workspace:
        """A workspace on CONFIG, already loaded (its path and environment pick the state)."""
        env = os.environ if environ is None else environ
        config_path, environment = config.path, config.environment
        state_dir = Path(state_dir) if state_dir else state_dir_from(env)
        resolved = resolve_endpoint(base_url, config.control_plane, env, state_dir)
        client = open_client(base_url, config.control_plane, env, state_dir, announce=announce)
        api_key = EMBEDDED_API_KEY if resolved.is_embedded else env.get("PLANNER_API_KEY", "")
        flag = str(state_path) if state_path else None
        backend = state_backend(
            config_path, flag, config.state, env, environment, config_loaded=True
        )
        return cls(config, client, backend, client.endpoint, client.tenant_id, api_key, state_dir)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Workspace:
        """From the `-c`, `--state` and `--base-url` options (each optional on ARGS), and
        `state_dir` (set by apply from a saved plan)."""
        return cls.open(
            getattr(args, "config", "planner.toml"),
            state_path=getattr(args, "state", None),
            state_dir=getattr(args, "state_dir", None),
            base_url=getattr(args, "base_url", None),
            environment=environment_from(args, os.environ),
            variables=variables_from(args),
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            await self.client.aclose()
        finally:
            self.backend.close()

    def lock(self, operation: str, timeout: float = 0.0) -> LockHandle:
        """The state lock (a context manager); says once on stderr who holds it while it
        waits, fails naming the holder after TIMEOUT s."""
        return self.backend.lock(operation, timeout=timeout, on_wait=write_notice)

    def read_state(self) -> StateDocument:
        """The state (a new, unwritten one if there is none), refused if it is foreign."""
        return read_or_create(self.backend, self.endpoint, self.tenant_id)

    def digest_key(self, doc: StateDocument) -> bytes:
        """The key of the secret digests recorded in DOC (API key x the state's lineage)."""
        return digest_key(self._api_key, doc.lineage)

    def plan_key(self) -> bytes:
        """The key that seals saved plans of this state (made on first use)."""
        key = self.backend.plan_key(create=True)
        assert key is not None  # made when there was none
        return key

    async def refresh(
        self, doc: StateDocument, names_to_create: Iterable[str], *, whole_workspace: bool = False
    ) -> Observed:
        """Refresh the recorded deployments and look up NAMES_TO_CREATE (all desired names may
        be passed: recorded ones are looked up only when gone remotely); WHOLE_WORKSPACE:
        from one listing of the workspace, which also finds the unmanaged deployments."""
        return await refresh_observed(
            self.client,
            doc.deployments,
            names_to_create,
            pending_creates=pending_create_names(doc),
            remote_names={n: d.api_name for n, d in self.config.deployments.items()},
            whole_workspace=whole_workspace,
        )

    async def make_plan(
        self, options: PlanOptions, doc: StateDocument, *, whole_workspace: bool = False
    ) -> tuple[Plan, Observed]:
        """Refresh, then plan the config against DOC and what is live (WHOLE_WORKSPACE: and
        list the deployments no state manages).

        A deployment an interrupted apply created but never recorded (`pending_found`) is
        planned as if recorded with its observed values (the next apply records it); it
        and whatever else the state's journal explains are `recovered`, not drift.
        """
        observed = await self.refresh(doc, self.config.deployments, whole_workspace=whole_workspace)
        key = self.digest_key(doc)
        with long_lived_objects():
            plan = self._plan(options, doc, observed, key)
        origin = {"config": str(self.config.path), "environment": self.config.environment}
        return _with_recovered_creates(plan.model_copy(update=origin), observed), observed

    def _plan(
        self, options: PlanOptions, doc: StateDocument, observed: Observed, key: bytes
    ) -> Plan:
        desired = self.config.deployments
        recorded: dict[str, RecordedDeployment] = dict(doc.deployments)
        live = dict(observed.by_name)
        for name, deployment in observed.pending_found.items():
            if name in desired:
                recorded[name] = observed_record(desired[name], deployment, key)
                live[name] = deployment
        return make_plan(
            desired,
            recorded,
            live,
            options=options,
            digest_key=key,
            unmanaged_existing=observed.unmanaged_existing,
            intents=doc.pending,
            health=observed.health,
            unmanaged=observed.unmanaged,
            # MOVES (issue 19): other states of this config own these; see plan/elsewhere.py
            managed_elsewhere=self.backend.managed_elsewhere(self.config.path.stem),
        )


def _with_recovered_creates(plan: Plan, observed: Observed) -> Plan:
    if not observed.pending_found:
        return plan
    created = [
        Recovered(name=name, operation=IntentOp.CREATE, deployment_id=deployment.id)
        for name, deployment in observed.pending_found.items()
    ]
    recovered = sorted([*plan.recovered, *created], key=lambda r: (r.name, r.operation))
    return plan.model_copy(update={"recovered": recovered})


@contextmanager
def long_lived_objects() -> Iterator[None]:
    """Build objects that live as long as the command (a config, a plan) without the
    cyclic garbage collector: at 10,000 deployments its passes over them cost a quarter of
    a plan's CPU. They are then frozen out of later collections (`gc.freeze`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
