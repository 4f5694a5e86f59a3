"""The wiring every state-using command shares: config, client, state, digest key.

A thin composer, no plan logic: `Workspace.open(target)` loads the config of a resolved
`Target` (`planner.cli.target.resolve_target`), opens its endpoint's client and its
state backend. Use it as `async with` (it closes both). Commands take `lock(...)` around
a read-change-write, `read_state()` inside it, then `refresh` / `make_plan`, which hand
the workspace's parts to the engine (`planner.plan.engine`), and `execute`, which hands
them to the executor (`planner.apply.execute_plan`, imported when a command first
executes a plan: `planner.apply` names it lazily). What the workspace builds to keep
(the config, the state, the live deployments, the plan) and what an execution makes
and drops are told to the garbage collector here (`planner.cli.collector`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path

from planner import apply
from planner.api.client import ControlPlaneClient
from planner.cli.collector import long_lived_objects, short_lived_objects
from planner.cli.endpoint import announce_on_stderr, open_client
from planner.cli.target import Target
from planner.config import Config, load_config
from planner.plan import engine
from planner.plan.model import Plan, Recovered
from planner.plan.options import PlanOptions
from planner.plan.refresh import Observed
from planner.render.output import write_notice
from planner.secrets import digest_key
from planner.state.backend import StateBackend, create_if_absent, read_or_create
from planner.state.document import StateDocument
from planner.state.endpoints import embedded_endpoint
from planner.state.lease import DEFAULT_LEASE_SECONDS
from planner.state.locking import LockHandle


@dataclass
class Workspace(AbstractAsyncContextManager["Workspace"]):
    """One config file against one control plane and one state (a file or PostgreSQL)."""

    config: Config
    client: ControlPlaneClient
    backend: StateBackend
    endpoint: str
    tenant_id: str | None
    _api_key: str = field(repr=False)
    state_dir: Path = Path()
    endpoint_base: Path | None = None  # what a relative embedded endpoint is relative to

    @classmethod
    def open(
        cls,
        target: Target,
        *,
        environ: Mapping[str, str] | None = None,
        announce: Callable[[str], None] = announce_on_stderr,
    ) -> Workspace:
        """The config of TARGET loaded (with its environment and variables), its client
        and state backend opened."""
        env = os.environ if environ is None else environ
        with long_lived_objects():
            config = load_config(
                target.config_path,
                environ=env,
                env=target.environment,
                variables=target.variables,
                raw=target.take_raw(),
            )
        return cls.for_config(config, target, announce=announce)

    @classmethod
    def for_config(
        cls, config: Config, target: Target, *, announce: Callable[[str], None] = announce_on_stderr
    ) -> Workspace:
        """A workspace on CONFIG, already loaded, at TARGET's endpoint and state."""
        client = open_client(target.endpoint, announce=announce)
        backend = target.state.open()
        api_key = target.endpoint.api_key
        base = target.config_path.parent
        db_path = target.endpoint.db_path
        # The embedded plane's database is recorded relative to the config's directory.
        endpoint = client.endpoint if db_path is None else embedded_endpoint(db_path, base)
        return cls(
            config,
            client,
            backend,
            endpoint,
            client.tenant_id,
            api_key,
            target.state_dir,
            endpoint_base=base,
        )

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            await self.client.aclose()
        finally:
            self.backend.close()

    def lock(
        self, operation: str, timeout: float = 0.0, lease: float = DEFAULT_LEASE_SECONDS
    ) -> LockHandle:
        """The state lock (a context manager); says once on stderr who holds it while it
        waits, fails naming the holder after TIMEOUT s. While it is held, every request
        of the client first checks it (nothing is sent once it is lost)."""
        handle = self.backend.lock(operation, timeout=timeout, on_wait=write_notice, lease=lease)
        self.client.guard = handle.check
        return handle

    def read_state(self) -> StateDocument:
        """The state (a new, unwritten one if there is none), refused if it is foreign."""
        return read_or_create(self.backend, self.endpoint, self.tenant_id, self.endpoint_base)

    def create_state(self, new: StateDocument) -> StateDocument:
        """NEW (an empty state) written if there is still no state, without the lock
        (`backend.create_if_absent`); else the state another process created meanwhile."""
        return create_if_absent(
            self.backend, new, self.endpoint, self.tenant_id, self.endpoint_base
        )

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
        """Refresh the recorded deployments and look up NAMES_TO_CREATE (`engine.refresh`)."""
        desired = self.config.deployments
        return await engine.refresh(
            self.client, doc, desired, names_to_create, whole_workspace=whole_workspace
        )

    def recheck_policies(self, plan: Plan, doc: StateDocument, observed: Observed) -> None:
        """Refuse PLAN (a saved one) if a policy of the config denies it now."""
        config = self.config
        engine.recheck_policies(
            plan,
            config.deployments,
            doc,
            observed,
            policies=config.policies,
            environment=config.environment,
            label=str(config.path),
        )

    async def adopt_interrupted(self, doc: StateDocument) -> list[Recovered]:
        """Adopt into DOC (in memory) what an interrupted apply created and never recorded."""
        desired, key = self.config.deployments, self.digest_key(doc)
        return await engine.adopt_interrupted(self.client, doc, desired, key)

    async def make_plan(
        self, options: PlanOptions, doc: StateDocument, *, whole_workspace: bool = False
    ) -> tuple[Plan, Observed]:
        """The plan of the config against DOC (`engine.plan_state`), naming its config, its
        views in the words the config wrote; the state, the live deployments and the plan
        are kept for the command's life."""
        with long_lived_objects():
            plan, observed = await engine.plan_state(
                self.client,
                self.config.deployments,
                doc,
                self.digest_key(doc),
                options,
                whole_workspace=whole_workspace,
                # other states of this config own these (plan/elsewhere.py)
                managed_elsewhere=self.backend.managed_elsewhere(self.config.path.stem),
                policies=self.config.policies,
                environment=self.config.environment,
                label=str(self.config.path),
            )
        origin = {"config": str(self.config.path), "environment": self.config.environment}
        spellings = {name: d.spelling for name, d in self.config.deployments.items()}
        return plan.model_copy(update=origin).spelled(spellings), observed

    async def execute(
        self,
        plan: Plan,
        doc: StateDocument,
        options: apply.ApplyOptions,
        reporter: apply.Reporter,
        stop: asyncio.Event,
    ) -> apply.ApplyResult:
        """Carry PLAN out (`execute_plan`) on this workspace's client, state (DOC, locked
        by the caller) and config, until it is done or STOP is set; its requests, responses
        and tasks are short-lived objects."""
        with short_lived_objects():
            return await apply.execute_plan(
                plan,
                client=self.client,
                backend=self.backend,
                doc=doc,
                desired=self.config.deployments,
                digest_key=self.digest_key(doc),
                options=options,
                reporter=reporter,
                stop=stop,
            )
