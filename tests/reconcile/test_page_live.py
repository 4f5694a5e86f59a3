"""The status page and the metrics of a real `planner reconcile` against `planner serve`:
a hand edit found in detect mode, seen in a headless chromium as a person sees it."""

from __future__ import annotations

import signal
import socket

import httpx2
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.browser import headless_browser
from tests.cli.reconcile.test_reconcile_loopback import (
    HAND_IMAGE,
    ReconcileController,
    file_controller,
    reconcile_serve,
)

pytestmark = pytest.mark.slow

__all__ = ["file_controller", "reconcile_serve"]  # fixtures, used by name


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def gauges(text: str) -> dict[str, float]:
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if not sample.labels
    }


def test_a_person_sees_the_drift_a_detect_replica_found(
    file_controller: ReconcileController,
) -> None:
    """After a heal created three deployments, a hand edit of d1 shows on a detect
    replica's page (d1 drifted, the others in sync, the plan naming the image) and in its
    metrics; the probes answer; SIGTERM still ends it with 0."""
    creator = file_controller.start("--once")
    code, _, err = creator.finish()
    assert code == 0, err
    url = f"http://127.0.0.1:{free_port()}"
    replica = file_controller.start("--mode", "detect", "--listen", url.removeprefix("http://"))
    replica.cycle(lambda e: e["status"] == "ok")
    file_controller.hand_edit("d1")
    replica.cycle(lambda e: e["status"] == "drift")
    with httpx2.Client(base_url=url, timeout=10) as http:
        assert http.get("/healthz").status_code == 200
        assert http.get("/readyz").text == "ready\n"
        found = gauges(http.get("/metrics").text)
    assert found["planner_drifted_deployments"] >= 1 and found["planner_leader"] == 1
    with headless_browser() as browser:
        browser.open(f"{url}/")
        rows = browser.run("return document.querySelector('#deployments tbody').innerText")
        plan = browser.run("return document.querySelector('#plan').innerText")
        leader = browser.run("return document.querySelector('#leader').innerText")
    lines = {line.split("\t")[0]: line.split("\t") for line in rows.splitlines()}
    assert lines["d1"][3] == "⚠ drifted"
    assert lines["d0"][3] == lines["d2"][3] == "in sync"
    assert "(this replica)" in leader
    assert "d1" in plan and "Drift: 1 change(s) outside the planner" in plan
    replica.process.send_signal(signal.SIGTERM)
    code, _, err = replica.finish()
    assert code == 0, err
    assert HAND_IMAGE not in rows  # the table shows names and states, not values
