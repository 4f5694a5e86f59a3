"""Prometheus metrics: request counters by method, route template and status."""

from __future__ import annotations

import re
import threading

from fastapi.testclient import TestClient

from planner.controlplane.metrics import (
    CounterFamily,
    escape_label_value,
    format_labels,
)

INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
SAMPLE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? -?[0-9.e+]+$')


def counter(text: str, method: str, route: str, status: int) -> int:
    """The value of one controlplane_requests_total sample (0 when absent)."""
    labels = f'method="{method}",route="{route}",status="{status}"'
    for line in text.splitlines():
        if line.startswith(f"controlplane_requests_total{{{labels}}} "):
            return int(line.rsplit(" ", 1)[1])
    return 0


def test_requests_are_counted_by_route_template(cp_client: TestClient) -> None:
    """A request is counted under its route template, not the raw path with the id."""
    route = "/v1/integrations/git_host/{integration_id}/repos"
    before = counter(cp_client.get("/metrics").text, "GET", route, 200)
    cp_client.get(f"/v1/integrations/git_host/{INTEGRATION}/repos")
    cp_client.get(f"/v1/integrations/git_host/{INTEGRATION}/repos")
    text = cp_client.get("/metrics").text
    assert counter(text, "GET", route, 200) == before + 2
    assert INTEGRATION not in text


def test_errors_and_unknown_routes_are_counted(cp_client: TestClient) -> None:
    """401s, 404s of unknown integrations and unknown paths (as `unmatched`) are counted."""
    cp_client.get("/v2/auth/providers", headers={"X-Api-Key": "wrong"})
    cp_client.get("/no/such/thing/123")
    cp_client.get("/no/such/thing/456")
    cp_client.post("/v2/auth/providers")
    text = cp_client.get("/metrics").text
    assert counter(text, "GET", "/v2/auth/providers", 401) == 1
    assert counter(text, "GET", "unmatched", 404) == 2
    assert counter(text, "POST", "/v2/auth/providers", 405) == 1
    assert "/no/such" not in text


def test_metrics_request_itself_is_counted(cp_client: TestClient) -> None:
    """Scrapes of /metrics show up in the next scrape."""
    cp_client.get("/metrics")
    assert counter(cp_client.get("/metrics").text, "GET", "/metrics", 200) >= 1


def test_exposition_format_is_well_formed(cp_client: TestClient) -> None:
    """Every family has HELP and TYPE lines; every sample line parses; content type is text."""
    cp_client.get("/v2/auth/providers")
    response = cp_client.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    lines = response.text.splitlines()
    assert "# TYPE controlplane_requests_total counter" in lines
    assert any(line.startswith("# HELP controlplane_requests_total ") for line in lines)
    for line in lines:
        assert line.startswith("# ") or SAMPLE.match(line), line
    assert response.text.endswith("\n")


def test_label_values_are_escaped() -> None:
    """Backslash, double quote and newline in a label value are escaped."""
    assert escape_label_value('a\\b"c\nd') == 'a\\\\b\\"c\\nd'
    assert format_labels((("route", 'x"y'),)) == '{route="x\\"y"}'


def test_counters_are_thread_safe() -> None:
    """Increments from many threads are all kept."""
    family = CounterFamily("t_total", "test", ("k",))

    def bump() -> None:
        for _ in range(1000):
            family.inc("v")

    threads = [threading.Thread(target=bump) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert family.value("v") == 8000
    assert 't_total{k="v"} 8000' in family.render()


def test_deployments_gauge_counts_per_workspace(cp_client: TestClient) -> None:
    """controlplane_deployments shows the workspace's count, rising after a create."""
    gauge = 'controlplane_deployments{tenant_id="00000000-0000-4000-8000-000000000001"}'
    assert f"{gauge} 0" in cp_client.get("/metrics").text
    body = {
        "name": "metered",
        "source": "git_host",
        "source_config": {
            "integration_id": INTEGRATION,
            "repo_url": "https://git.example.com/acme/support-agent",
        },
        "source_revision_config": {"repo_ref": "main", "agent_config_path": "agent.json"},
        "secrets": [],
    }
    assert cp_client.post("/v2/deployments", json=body).status_code == 201
    text = cp_client.get("/metrics").text
    assert f"{gauge} 1" in text
    assert "# TYPE controlplane_deployments gauge" in text
