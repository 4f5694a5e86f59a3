"""Shared fixtures: a local control plane per test, in-process."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# Property tests run on a shared 2-core CI box: never fail on timing, only on behaviour.
settings.register_profile(
    "planner", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("planner")


from tests.postgres import postgres_url  # noqa: E402 (a session fixture every test may use)

__all__ = ["postgres_url"]
