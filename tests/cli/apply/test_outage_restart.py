"""Outages: `planner serve` stopped mid-apply and started again on the same port and
database a few seconds later; the apply rides it out and fails no deployment."""

from __future__ import annotations

import signal
import time
from urllib.parse import urlsplit

import pytest

from tests.cli.apply.test_apply_loopback import API_KEY, StartWorkdir, config_text
from tests.cli.apply.test_apply_loopback import serve as serve  # the fixture
from tests.controlplane.conftest import start_serve

pytestmark = pytest.mark.slow

SERVE_ARGS = ("--latency-ms", "20", "--build-seconds", "0.3", "--deploy-seconds", "0.3")


@pytest.mark.parametrize(("stage", "down"), [("creating", 2.0), ("updating", 3.0)])
def test_apply_rides_out_a_server_restart(serve: StartWorkdir, stage: str, down: float) -> None:
    """A server killed while apply creates (or PATCHes) and back DOWN seconds later on
    the same port and database: apply exits 0 with 0 failed, every deployment exists
    once and is recorded, and the next plan is empty."""
    work = serve(*SERVE_ARGS)
    config = work.write("restart.toml", config_text("r", 8))
    if stage == "updating":
        code, out, err = work.run("apply", "-c", config, "--auto-approve")
        assert code == 0, out + err
        work.write(config, config_text("r", 8, image="registry.example.com/app:2"))
    apply = work.start("apply", "-c", config, "--auto-approve", "--parallelism", "2")
    apply.wait_for(stage)
    work.server.process.send_signal(signal.SIGKILL)
    work.server.process.communicate(timeout=10)
    time.sleep(down)
    port = str(urlsplit(work.server.url).port)
    db = str(work.root / "serve.db")
    work.server = start_serve(
        ["--db", db, "--api-key", API_KEY, *SERVE_ARGS, "--port", port], cwd=work.root
    )
    code, out, err = apply.finish()
    assert code == 0, out + err
    assert ", 0 failed" in out, out
    work.assert_converged(config, "r", 8)
