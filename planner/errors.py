"""One root for every error a user can act on.

Each subclass carries a short `code` (stable, for scripts), a message, optional detail
lines and a hint. `planner.cli.main.main` is the only place that turns them into output
and exit codes.

The promise to scripts: the human lines (`Error: ...`, details, `Hint: ...`) always go
to stderr; a command run with `--format json` that fails with one of these errors also
prints one JSON document on stdout, in place of its result,

    {"error": {"code": "stale_plan", "message": "...", "details": ["..."], "hint": "..."}}

(`hint` may be null), so a script can branch on `.error.code` without reading English.
`apply` and `destroy` stream NDJSON events instead: the error is their last line, the same
object with `type: "error"` beside it. The codes below do not change meaning once
released; one was renamed before that: `plan-stale` is `stale_plan` (`PlanStaleError`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence


def did_you_mean(word: str, options: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the closest option, or '' when nothing is close."""
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class PlannerError(Exception):
    """An error the user can act on: message, detail lines, hint, exit code."""

    code = "error"
    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        details: Sequence[str] = (),
        hint: str | None = None,
        hint_for: Callable[[Sequence[str]], str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details = list(details)
        self.hint = hint
        # The hint again, its suggested command repeating the options the run was given
        # (`-c`, `--env`, `--state`): only the CLI knows them, and calls it.
        self.hint_for = hint_for

    def __str__(self) -> str:
        return self.message


class ConfigError(PlannerError):
    """The config file is missing, unreadable or invalid (details: one line per problem)."""

    code = "config-invalid"


class PromotionError(PlannerError):
    """`planner promote` cannot write the values asked for (details: one line each, naming
    the deployment, the field and where its value comes from)."""

    code = "promotion-refused"


class StateError(PlannerError):
    """The state file is corrupt, foreign (other endpoint/workspace) or unreadable."""

    code = "state-invalid"


class UnknownDeploymentError(StateError):
    """A command names a deployment the state does not manage (a typo, most often)."""

    code = "unknown-deployment"


class TerraformStateError(PlannerError):
    """A Terraform state given to `import --from-terraform` cannot be read or adopted."""

    code = "terraform-state-invalid"


class StateLockedError(PlannerError):
    """Another process holds the state lock."""

    code = "state-locked"


class LockLostError(StateLockedError):
    """The state lock this process held is gone (its connection died, its lease ran out,
    or another holder took it over): nothing more is sent."""

    code = "lock-lost"


class PlanError(PlannerError):
    """The plan cannot be made (immutable change, protected deployment, name conflict...)."""

    code = "plan-invalid"


class PlanStaleError(PlannerError):
    """A saved plan no longer matches the state or the live deployments (re-plan).

    `stale_plan` is the machine code CI workflows branch on; it was `plan-stale` before."""

    code = "stale_plan"


class PlanTamperedError(PlannerError):
    """A saved plan's seal does not verify: it was altered after `planner plan --out`."""

    code = "plan-tampered"


class ApplyError(PlannerError):
    """One or more operations of an apply failed."""

    code = "apply-failed"


class ApiError(PlannerError):
    """The control plane answered with an error (or could not be reached).

    `status` is the HTTP status (None when no response came), `detail` the server's
    `detail`, `problems` the `(loc, msg)` pairs of a 422.
    """

    code = "api-error"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        detail: object = None,
        problems: Sequence[tuple[str, str]] = (),
        details: Sequence[str] = (),
        hint: str | None = None,
    ) -> None:
        lines = list(details) or [f"{loc}: {msg}" for loc, msg in problems]
        super().__init__(message, details=lines, hint=hint)
        self.status = status
        self.detail = detail
        self.problems = list(problems)
        self.gave_up: str | None = None  # the retry layer's detail line, when it gave up
