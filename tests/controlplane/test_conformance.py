"""The local control plane conforms to its OpenAPI document: schemathesis, every check.

The app is called in-process (ASGI). Bounded and reproducible: a fixed number of
derandomized examples per operation and per stateful run, no deadline. No relaxation:
`schemathesis.toml` (which the CLI run of docs/local-control-plane/serve.md reads too)
holds no setting, so every check runs with schemathesis' default expectations.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from starlette.types import Receive, Scope, Send

from planner.controlplane.app import create_app
from planner.controlplane.openapi import SCHEMA_PATH
from planner.controlplane.settings import ServerSettings
from tests.controlplane.conftest import TENANT_A, FakeClock

REPO_ROOT = Path(__file__).resolve().parents[2]
API_KEY = "conformance-key"
HEADERS = {"X-Api-Key": API_KEY}
BOUNDED = settings(
    max_examples=20,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    stateful_step_count=8,
)
# Enough runs for chains to reach a PATCH of a created deployment.
STATEFUL = settings(BOUNDED, max_examples=50)


class FreshApp:
    """An ASGI app that `reset(db_dir)` replaces by a new control plane over an empty
    database.

    It owns the stores: the test transport runs a lifespan per request, which would
    otherwise close the store after the first one.
    """

    def __init__(self) -> None:
        self.db_dir = Path()
        self.generation = 0
        self.app: Any = None

    def build(self) -> Any:
        self.generation += 1
        return create_app(
            ServerSettings(
                db_path=self.db_dir / f"conformance-{self.generation}.db",
                api_keys={API_KEY: [TENANT_A]},
                build_seconds=0.0,
                deploy_seconds=0.0,
                delete_seconds=0.0,
                clock=FakeClock(),
            )
        )

    def reset(self, db_dir: Path | None = None) -> None:
        self.close()
        self.db_dir = db_dir or self.db_dir
        self.app = self.build()

    def close(self) -> None:
        if self.app is not None:
            self.app.state.store.close()
            self.app = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await answer_lifespan(receive, send)
            return
        await self.app(scope, receive, send)


async def answer_lifespan(receive: Receive, send: Send) -> None:
    """Complete startup and shutdown without touching the store."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        else:
            await send({"type": "lifespan.shutdown.complete"})
            return


CONTROL_PLANE = FreshApp()
# The checked-in document (test_openapi.py keeps it equal to what the app serves).
schema = schemathesis.openapi.from_path(
    REPO_ROOT / SCHEMA_PATH,
    config=SchemathesisConfig.from_path(REPO_ROOT / "schemathesis.toml"),
)
schema.app = CONTROL_PLANE


@pytest.fixture(autouse=True)
def control_plane(tmp_path: Path) -> Iterator[FreshApp]:
    """A fresh control plane for each test, its database under `tmp_path`."""
    CONTROL_PLANE.reset(tmp_path)
    yield CONTROL_PLANE
    CONTROL_PLANE.close()


def test_schemathesis_toml_relaxes_nothing() -> None:
    """The conformance settings are empty: no hooks, no extra statuses, no overrides."""
    assert tomllib.loads((REPO_ROOT / "schemathesis.toml").read_text(encoding="utf-8")) == {}


@schema.parametrize()
@BOUNDED
def test_every_operation_conforms(case: schemathesis.Case[Any]) -> None:
    """Every generated request, valid or not, gets an answer that passes every check."""
    case.call_and_validate(headers=HEADERS)


def test_stateful_workflows_conform(control_plane: FreshApp) -> None:
    """Chains of calls along the document's links (create, get, patch, revisions, delete)
    pass every check; each run starts from an empty control plane."""

    class Workflow(schema.as_state_machine()):  # type: ignore[misc]
        def setup(self) -> None:
            control_plane.reset()

        def get_call_kwargs(self, case: schemathesis.Case[Any]) -> dict[str, Any]:
            return {"headers": HEADERS}

    Workflow.run(settings=STATEFUL)
