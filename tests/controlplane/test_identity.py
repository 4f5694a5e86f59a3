"""One identity per request: repeated auth headers that disagree are refused with 400."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from planner.controlplane.identity import repeated_identity_header
from planner.controlplane.settings import ServerSettings
from tests.controlplane.conftest import TENANT_A, TENANT_B

PROVIDERS = "/v2/auth/providers"


@pytest.fixture
def client(tmp_path: Path, make_client: Callable[[ServerSettings], TestClient]) -> TestClient:
    """Keys: `solo` (workspace A), `multi` (A and B), `plain` (workspace B)."""
    settings = ServerSettings(
        db_path=tmp_path / "identity.db",
        api_keys={"solo": [TENANT_A], "multi": [TENANT_A, TENANT_B], "plain": [TENANT_B]},
    )
    return make_client(settings)


@pytest.mark.parametrize(
    "headers",
    [
        [("X-Api-Key", "solo"), ("X-Api-Key", "plain")],
        [("Authorization", "Bearer solo"), ("Authorization", "Bearer plain")],
        [("X-Api-Key", "multi"), ("X-Tenant-Id", TENANT_A), ("X-Tenant-Id", TENANT_B)],
    ],
)
def test_repeated_identity_header_with_different_values_is_400(
    client: TestClient, headers: list[tuple[str, str]]
) -> None:
    """An identity header sent twice with different values is refused: one identity per request."""
    response = client.get(PROVIDERS, headers=headers)
    assert response.status_code == 400
    name = headers[-1][0]
    assert name in response.json()["detail"] and "more than once" in response.json()["detail"]
    assert "solo" not in response.text and "plain" not in response.text


def test_repeated_identity_header_with_one_value_is_accepted(client: TestClient) -> None:
    """The same key sent twice is still one identity."""
    headers = [("X-Api-Key", "solo"), ("X-Api-Key", "solo")]
    assert client.get(PROVIDERS, headers=headers).status_code == 200


def test_repeated_identity_header_names_the_header_case_insensitively() -> None:
    """Header names compare case-insensitively; other repeated headers do not matter."""
    assert repeated_identity_header([(b"X-API-KEY", b"a"), (b"x-api-key", b"b")]) == "X-Api-Key"
    assert repeated_identity_header([(b"accept", b"a"), (b"accept", b"b")]) is None
    assert repeated_identity_header([(b"x-api-key", b"a"), (b"authorization", b"b")]) is None
