"""What an interrupted apply did, said by every view of a plan and of an apply:
`Recovered from an interrupted apply: NAME (ID), ...` in text and markdown, `recovered[]`
in JSON."""

from __future__ import annotations

import io
import json

from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.plan.model import Action, Change, Plan, Recovered
from planner.render.apply_events import EventStream
from planner.render.apply_markdown import render_apply_markdown
from planner.render.apply_text import render_apply_result
from planner.render.json import render_json
from planner.render.markdown import render_markdown
from planner.render.text import render_text
from planner.state.document import IntentOp
from tests.event_lines import event_lines

RECOVERED = [
    Recovered(name="api", operation=IntentOp.CREATE, deployment_id="d-api"),
    Recovered(name="worker", operation=IntentOp.CREATE, deployment_id="d-worker"),
    Recovered(name="worker", operation=IntentOp.UPDATE, deployment_id="d-worker", paths=["x"]),
]
HEADLINE = "Recovered from an interrupted apply: api (d-api), worker (d-worker)"


def recovering_plan() -> Plan:
    changes = [Change(name="api", action=Action.NO_OP), Change(name="worker", action=Action.NO_OP)]
    return Plan(changes=changes, recovered=RECOVERED)


def test_a_plan_names_each_recovered_deployment_once_with_its_id() -> None:
    """Text and markdown open the section with one line naming every deployment and
    id; the lines below say what each operation was; JSON lists them in `recovered`."""
    text = render_text(recovering_plan())
    assert HEADLINE in text.splitlines()
    assert "  worker: updated (x) but never recorded; the next apply records it" in text
    assert HEADLINE in render_markdown(recovering_plan())
    listed = json.loads(render_json(recovering_plan()))["recovered"]
    assert [(r["name"], r["operation"], r["deployment_id"]) for r in listed] == [
        ("api", "create", "d-api"),
        ("worker", "create", "d-worker"),
        ("worker", "update", "d-worker"),
    ]


def test_a_plan_without_recovery_says_nothing_of_it() -> None:
    """No recovered operation: no line about an interrupted apply in any view."""
    plan = Plan(changes=[Change(name="api", action=Action.NO_OP)])
    assert "interrupted apply" not in render_text(plan) + render_markdown(plan)


def test_an_apply_result_lists_what_it_recovered_in_every_format() -> None:
    """The apply's text result, its step summary and its JSON summary event list the
    operations of an interrupted apply that the run adopted."""
    row = DeploymentResult("api", Action.NO_OP, outcome=Outcome.SUCCEEDED, status="no changes")
    result = ApplyResult(results=[row], recovered=RECOVERED)
    assert render_apply_result(result).splitlines()[0] == HEADLINE
    assert HEADLINE in render_apply_markdown(result)
    out = io.StringIO()
    EventStream(out, "apply").summary(result, 0)
    [summary] = event_lines(out.getvalue())
    assert [r["name"] for r in summary["recovered"]] == ["api", "worker", "worker"]
