"""Exit codes (a contract: scripts and CI rely on them) and the signal-stop exception.

Imports nothing heavy: `planner --help` and the error boundary load it first.
"""

from __future__ import annotations

import signal

EXIT_OK = 0
EXIT_ERROR = 1  # also a usage error (argparse's 2 would read as "changes" to CI)
EXIT_CHANGES = 2  # plan --detailed-exitcode: the plan has changes
EXIT_INTERRUPTED = 130  # SIGINT (Ctrl-C)
EXIT_TERMINATED = 143  # SIGTERM (128 + 15), e.g. a cancelled CI job


def exit_code_for(signum: int) -> int:
    """The exit code of a run a signal stopped: 143 for SIGTERM, else 130."""
    return EXIT_TERMINATED if signum == signal.SIGTERM else EXIT_INTERRUPTED


class Interrupted(KeyboardInterrupt):
    """A signal stopped a command at once; the error boundary exits with `exit_code`."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.exit_code = exit_code_for(signum)
