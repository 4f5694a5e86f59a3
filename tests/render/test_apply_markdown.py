"""The apply result as markdown (the CI step summary)."""

from __future__ import annotations

from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.plan.model import Action
from planner.render.apply_markdown import render_apply_markdown


def test_rows_for_changed_deployments_and_escaped_errors() -> None:
    """No-ops get no row; a failure shows its error with table pipes escaped."""
    result = ApplyResult(
        results=[
            DeploymentResult(
                "api",
                Action.CREATE,
                revision_id="0123456789",
                status="DEPLOYED",
                outcome=Outcome.SUCCEEDED,
                seconds=1.25,
            ),
            DeploymentResult("quiet", Action.NO_OP),
            DeploymentResult(
                "bad",
                Action.NEW_REVISION,
                status="BUILD_FAILED",
                outcome=Outcome.FAILED,
                error="a|b <x>",
            ),
        ]
    )
    text = render_apply_markdown(result)
    assert "| `api` | create | `01234567` | ✅ DEPLOYED | 1.2s |" in text
    assert "quiet" not in text
    assert "❌ BUILD_FAILED: a\\|b &lt;x&gt;" in text
    assert text.rstrip().endswith("**")
