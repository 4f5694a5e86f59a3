"""The result table at the end of an apply."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.plan.model import Action
from planner.render.apply_text import plain_table, render_apply_result, result_table
from planner.render.console import make_console


def test_result_table_lists_changed_deployments_failures_and_the_summary() -> None:
    """One row per deployment something was done to (short revision id, status, time),
    each failure with its name and reason, then the summary line."""
    result = ApplyResult(
        results=[
            DeploymentResult(
                "api",
                Action.CREATE,
                revision_id="5e20549e-0000-4000-8000-000000000001",
                status="DEPLOYED",
                outcome=Outcome.SUCCEEDED,
                seconds=2.25,
            ),
            DeploymentResult(
                "[x]",
                Action.NEW_REVISION,
                revision_id="22386db1-0000-4000-8000-000000000002",
                status="BUILD_FAILED",
                outcome=Outcome.FAILED,
                error="revision 22386db1 ended BUILD_FAILED",
                seconds=1.0,
            ),
            DeploymentResult("quiet", Action.NO_OP, status="no changes", outcome=Outcome.SUCCEEDED),
        ]
    )
    lines = render_apply_result(result).splitlines()
    assert lines[0].split() == ["Deployment", "Action", "Revision", "Status", "Time"]
    assert lines[1].split() == ["api", "+", "create", "5e20549e", "DEPLOYED", "2.2s"]
    assert lines[2].split() == ["[x]", "↻", "new_revision", "22386db1", "BUILD_FAILED", "1.0s"]
    assert "quiet" not in "\n".join(lines)
    assert lines[3] == "✗ [x]: revision 22386db1 ended BUILD_FAILED"
    assert lines[4] == (
        "Apply finished with errors: 1 created, 0 updated, 0 new revisions, 0 deleted, 1 failed."
    )


@given(
    st.lists(
        st.builds(
            DeploymentResult,
            name=st.from_regex(r"[a-z][a-z0-9-]{0,29}", fullmatch=True),
            action=st.sampled_from(list(Action)),
            revision_id=st.one_of(st.none(), st.from_regex(r"[0-9a-f]{8,36}", fullmatch=True)),
            status=st.sampled_from(["DEPLOYED", "BUILD_FAILED", "pending", "deleted"]),
            outcome=st.sampled_from(list(Outcome)),
            seconds=st.floats(min_value=0, max_value=9999),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_the_plain_table_of_a_log_is_the_rich_table_without_its_cost(
    rows: list[DeploymentResult],
) -> None:
    """Without colour the table is written directly: the same text rich lays out."""
    out = io.StringIO()
    make_console(out, force_terminal=False).print(result_table(rows))
    assert plain_table(rows) == out.getvalue().rstrip("\n")
