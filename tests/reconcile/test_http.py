"""`planner reconcile --listen`: the page, the metrics and the probes over loopback HTTP."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx2
import pytest
from prometheus_client.parser import text_string_to_metric_families

from planner.errors import PlannerError
from planner.reconcile.http import ReconcileHttpServer, parse_listen, serve_status
from planner.reconcile.status import UNREADY_AFTER_ERRORS, StatusBoard
from tests.plan.builders import SECRET_VALUES
from tests.reconcile.board import cycle, filled_board, row
from tests.render.test_html import tags_of

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


@pytest.fixture
def board() -> StatusBoard:
    return filled_board()


@pytest.fixture
def server(board: StatusBoard) -> Iterator[ReconcileHttpServer]:
    served = serve_status(board, "127.0.0.1:0")
    yield served
    served.close()


@pytest.fixture
def client(server: ReconcileHttpServer) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=server.url, timeout=10) as http:
        yield http


def test_healthz_answers_while_the_process_serves(client: httpx2.Client) -> None:
    """Liveness: 200 `ok`, not cached."""
    response = client.get("/healthz")
    assert (response.status_code, response.text) == (200, "ok\n")
    assert response.headers["cache-control"] == "no-store"


def test_readyz_follows_the_loop(board: StatusBoard, client: httpx2.Client) -> None:
    """503 until the loop is ready; 200 then; 503 after UNREADY_AFTER_ERRORS failed cycles
    in a row (standbys not counting), 200 again after one that did not fail."""
    board.set_ready(False)
    assert (client.get("/readyz").status_code, client.get("/readyz").text) == (
        503,
        "not ready: starting\n",
    )
    board.set_ready(True)
    assert client.get("/readyz").status_code == 200
    for minute in range(UNREADY_AFTER_ERRORS - 1):
        board.record_cycle(cycle("error", minute=10 + minute, message="control plane down"))
        board.record_cycle(cycle("standby", minute=10 + minute))
    assert client.get("/readyz").status_code == 200
    board.record_cycle(cycle("error", minute=20, message="control plane down"))
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.text == "not ready: the last 3 cycles failed: control plane down\n"
    page = client.get("/").text  # the page says what /readyz answers, never "ready"
    assert "This replica is not ready: the last 3 cycles failed: control plane down." in page
    board.record_cycle(cycle("ok", minute=25))
    assert client.get("/readyz").status_code == 200
    assert "This replica is ready." in client.get("/").text


def test_metrics_parse_and_follow_the_board(board: StatusBoard, client: httpx2.Client) -> None:
    """/metrics is the Prometheus text format with every metric PRODUCT.md names; a cycle
    recorded after the server started is counted."""
    board.record_cycle(cycle("healed", minute=30, drifted=1))
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    families = {f.name: f for f in text_string_to_metric_families(response.text)}
    assert {
        "planner_reconcile_cycles",
        "planner_reconcile_last_success_timestamp_seconds",
        "planner_drifted_deployments",
        "planner_pending_changes",
        "planner_reconcile_duration_seconds",
        "planner_leader",
    } <= set(families)
    assert families["planner_reconcile_duration_seconds"].type == "histogram"
    healed = [
        s for s in families["planner_reconcile_cycles"].samples if s.labels == {"result": "healed"}
    ]
    assert [s.value for s in healed if s.name.endswith("_total")] == [1]
    assert families["planner_leader"].samples[0].value == 1


def test_the_page_is_html_with_a_strict_policy(client: httpx2.Client) -> None:
    """/ is a self-contained HTML page: a CSP that allows nothing but its inline style."""
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    policy = response.headers["content-security-policy"]
    assert policy.startswith("default-src 'none'; style-src 'unsafe-inline'")
    assert response.headers["x-content-type-options"] == "nosniff"
    page = response.text
    tags = tags_of(page)
    assert not {"script", "form", "input", "button", "a", "img", "link", "iframe"} & {
        tag for tag, _ in tags
    }
    assert not {"href", "src", "action", "onload"} & set().union(*(attrs for _, attrs in tags))
    assert not [value for value in SECRET_VALUES if value in page]


def test_hostile_values_are_escaped_on_the_page(board: StatusBoard, client: httpx2.Client) -> None:
    """A name, a health, a message or a holder holding markup is shown as text."""
    board.set_leader(HOSTILE, False)
    board.set_deployments([row(HOSTILE, remote_name=HOSTILE, health=HOSTILE, last_change=HOSTILE)])
    board.record_cycle(cycle(HOSTILE, mode=HOSTILE, message=HOSTILE))
    board.set_last_plan(f"**{HOSTILE}**\n\n<details><summary>{HOSTILE}</summary>\n")
    page = client.get("/").text
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert page.count('<td class="bad">&lt;script&gt;') == 2  # health, result ("onerror")


def test_head_sends_headers_only(client: httpx2.Client) -> None:
    """HEAD answers like GET without a body."""
    response = client.head("/metrics")
    assert response.status_code == 200 and response.content == b""
    assert int(response.headers["content-length"]) > 100


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
def test_no_write_method_is_accepted(client: httpx2.Client, method: str) -> None:
    """Read-only: every other method is 405 with `Allow: GET, HEAD`."""
    response = client.request(method, "/", content=b"x")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD"


def test_an_unknown_path_is_404(client: httpx2.Client) -> None:
    """Only the four paths exist; a query string does not matter."""
    assert client.get("/admin").status_code == 404
    assert client.get("/healthz?verbose=1").status_code == 200


@pytest.mark.parametrize(
    ("listen", "parsed"),
    [
        ("127.0.0.1:9108", ("127.0.0.1", 9108)),
        ("[::1]:0", ("::1", 0)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
    ],
)
def test_listen_is_host_and_port(listen: str, parsed: tuple[str, int]) -> None:
    """HOST:PORT, IPv6 in brackets."""
    assert parse_listen(listen) == parsed


@pytest.mark.parametrize("listen", ["9108", ":9108", "localhost:", "host:99999", "host:x"])
def test_a_bad_listen_is_refused(listen: str) -> None:
    """Anything but HOST:PORT is an error with an example."""
    with pytest.raises(PlannerError, match="is not HOST:PORT") as caught:
        parse_listen(listen)
    assert caught.value.hint is not None and "127.0.0.1:9108" in caught.value.hint


def test_a_busy_port_is_an_error_people_can_act_on() -> None:
    """A port another process holds: `Cannot listen on HOST:PORT` with a hint."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(PlannerError, match=f"Cannot listen on 127.0.0.1:{port}"):
            serve_status(StatusBoard(), f"127.0.0.1:{port}")


def test_ipv6_loopback_and_close_frees_the_port() -> None:
    """[::1] serves; after close() the port can be bound again."""
    server = serve_status(StatusBoard(), "[::1]:0")
    try:
        assert server.url == f"http://[::1]:{server.port}"
        assert httpx2.get(f"{server.url}/healthz", timeout=10).status_code == 200
    finally:
        server.close()
    with socket.socket(socket.AF_INET6) as again:
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("::1", server.port))


def test_a_client_gone_early_is_not_reported_but_a_bug_is(
    server: ReconcileHttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A connection the client closed is silent; any other error in a handler is printed."""
    internal = server._server
    for error in (ConnectionResetError("gone"), BrokenPipeError("gone")):
        try:
            raise error
        except ConnectionError:
            internal.handle_error(None, ("127.0.0.1", 1))
    assert capsys.readouterr().err == ""
    try:
        raise ValueError("a bug")
    except ValueError:
        internal.handle_error(None, ("127.0.0.1", 1))
    assert "ValueError: a bug" in capsys.readouterr().err


def test_a_silent_client_is_dropped_and_others_are_served(server: ReconcileHttpServer) -> None:
    """A connection that never sends a request does not block the next client."""
    with socket.create_connection(("127.0.0.1", server.port)):
        assert httpx2.get(f"{server.url}/healthz", timeout=10).status_code == 200
