"""The status page in a real headless chromium: what a person sees."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from planner.reconcile.http import ReconcileHttpServer, serve_status
from planner.reconcile.status import StatusBoard
from tests.browser import Browser, headless_browser
from tests.plan.builders import SECRET_VALUES
from tests.reconcile.board import cycle, filled_board, row

pytestmark = pytest.mark.slow

HOSTILE = "<script>document.title='owned'</script><img src=x onerror=\"document.title='owned'\">"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with headless_browser() as opened:
        yield opened


@pytest.fixture
def board() -> StatusBoard:
    return filled_board()


@pytest.fixture
def server(board: StatusBoard) -> Iterator[ReconcileHttpServer]:
    served = serve_status(board, "127.0.0.1:0")
    yield served
    served.close()


def text_seen_in(browser: Browser, selector: str) -> str:
    """The text a person sees in SELECTOR (innerText: laid out, hidden parts left out)."""
    text: str = browser.run(f"return document.querySelector({selector!r}).innerText")
    return text


def test_a_person_sees_deployments_cycles_leader_and_plan(
    browser: Browser, server: ReconcileHttpServer
) -> None:
    """Every deployment with health and drift, the cycles, the leader, the plan's text."""
    browser.open(f"{server.url}/")
    assert browser.run("return document.title") == "planner reconcile"
    assert text_seen_in(browser, "#leader") == "Leader: reconcile-0 (pid 7) (this replica)"
    deployments = text_seen_in(browser, "#deployments")
    assert "Deployments (3)" in deployments
    assert (
        "api\tapi-prod\thealthy\t⚠ drifted\tupdate (drift reverted)\t2026-11-25 09:30:00 UTC"
        in (deployments)
    )
    assert "worker\tworker-prod\tfailed\tin sync" in deployments
    assert "web\tweb-prod\trolling out\tin sync" in deployments
    cycles = text_seen_in(browser, "#cycles").splitlines()
    assert cycles[0] == "Recent cycles (2)"
    assert cycles[2].split("\t")[:4] == ["2026-11-25 09:35:00 UTC", "heal", "healed", "1.50 s"]
    assert cycles[3].split("\t")[2] == "drift"
    plan = text_seen_in(browser, "#plan")
    assert "The plan has errors and cannot be applied." in plan
    assert "Caution" in plan and "legacy-bot will be deleted" in plan
    page = browser.run("return document.body.innerText")
    assert not [value for value in SECRET_VALUES if value in page]


def test_the_plan_details_fold_and_unfold(browser: Browser, server: ReconcileHttpServer) -> None:
    """A deployment's diff is hidden until its summary is clicked, then shown."""
    browser.open(f"{server.url}/")
    hidden = text_seen_in(browser, "#plan")
    summary = browser.run("return document.querySelector('#plan details summary').innerText")
    browser.run("document.querySelector('#plan details summary').click()")
    shown = text_seen_in(browser, "#plan details")
    assert summary in hidden and len(shown) > len(summary)
    assert shown.splitlines()[1:] and shown.splitlines()[1] not in hidden


def test_the_page_loads_nothing_and_runs_nothing(
    browser: Browser, board: StatusBoard, server: ReconcileHttpServer
) -> None:
    """Hostile values show as text; no script runs, no request leaves, the console is clean."""
    board.set_deployments([row(HOSTILE, health=HOSTILE)])
    board.record_cycle(cycle("error", minute=40, message=HOSTILE))
    board.set_last_plan(f"### {HOSTILE}\n\n![x](http://example.invalid/x.png)\n")
    browser.console()
    browser.open(f"{server.url}/")
    assert browser.run("return document.title") == "planner reconcile"
    assert browser.run("return document.scripts.length + document.images.length") == 0
    assert browser.run("return performance.getEntriesByType('resource').length") == 0
    assert browser.run("return document.forms.length + document.links.length") == 0
    assert HOSTILE in text_seen_in(browser, "#deployments")
    assert HOSTILE in text_seen_in(browser, "#plan")
    assert browser.console() == []
