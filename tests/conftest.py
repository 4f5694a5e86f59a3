"""Shared fixtures: a local control plane per test, in-process."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the `slow` tests (subprocesses, the longest ones) first, in their usual order.

    scripts/check runs the suite on xdist workers with `--dist worksteal`: whichever test
    is last to start decides how long one worker idles at the end, so the short in-process
    tests go last, where they fill the gaps instead of a minute-long subprocess test."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


# Property tests run on a shared 2-core CI box: never fail on timing, only on behaviour.
settings.register_profile(
    "planner", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("planner")


from tests.postgres import postgres_url  # noqa: E402 (a session fixture every test may use)

__all__ = ["postgres_url"]
