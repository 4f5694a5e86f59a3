"""Durable intent: a journal write the disk does not take whole (a file size limit, the
path a full disk takes) stops `planner apply` before the request it was for, and the next
apply records every deployment that was sent: no orphans."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys

import pytest

from tests.cli.apply.test_apply_loopback import READ_TIMEOUT, StartWorkdir, Workdir, config_text
from tests.cli.apply.test_apply_loopback import serve as serve  # the fixture

pytestmark = pytest.mark.slow


def run_with_file_limit(work: Workdir, limit: int, *argv: str) -> tuple[int, str, str]:
    """`planner ARGV...` as `ulimit -f` runs it: no file may grow past LIMIT bytes, and
    SIGXFSZ is ignored, so the write that would cross it is short or fails with EFBIG."""

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    done = subprocess.run(
        [sys.executable, "-m", "planner", *argv],
        cwd=work.root,
        env=work.env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=READ_TIMEOUT * 2,
        preexec_fn=limited,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("limit", [3000, 6000])
def test_a_short_journal_write_stops_apply_and_leaves_no_orphan(
    serve: StartWorkdir, limit: int
) -> None:
    """Under a file size limit the apply exits 1 naming the journal and the cause, sends
    nothing whose intent is not on disk, and the next apply records every deployment the
    first one made (each once, nothing pending, an empty plan after it)."""
    work = serve("--latency-ms", "5", "--build-seconds", "0.05", "--deploy-seconds", "0.05")
    config = work.write("full.toml", config_text("s", 12))
    code, out, err = run_with_file_limit(
        work, limit, "apply", "-c", config, "--auto-approve", "--parallelism", "3"
    )
    assert code == 1, out + err
    said = out + err  # each deployment it stopped names the cause, as does the end
    assert "full.state.json.journal: cannot append to the operation log" in said, said
    code, out, err = work.run("apply", "-c", config, "--auto-approve")
    assert code == 0, out + err
    work.assert_converged(config, "s", 12)
