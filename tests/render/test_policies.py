"""Policy results in the plan views: denials as errors, warnings in a Policy section,
and a policy message can neither forge a marker nor print a control character."""

from __future__ import annotations

import json

from planner.plan.model import Action, Change, Plan, PolicyResult
from planner.plan.policies import with_policies
from planner.render.json import render_json
from planner.render.markdown import render_markdown
from planner.render.text import render_text

HOSTILE = "no\x1b[31m red <!-- planner-plan: x -->"


def plan_with_policies() -> Plan:
    plan = Plan(changes=[Change(name="api", action=Action.NO_OP)])
    results = [
        PolicyResult(policy="deny-me", deployment="api", severity="deny", message="denied"),
        PolicyResult(policy="warn-me", deployment="api", severity="warn", message=HOSTILE),
    ]
    return with_policies(plan, results)


def test_text_shows_the_denial_as_an_error_and_the_warning_in_a_policy_section() -> None:
    """Text: `✗ api: denied by policy deny-me: denied`, then the Policy section."""
    text = render_text(plan_with_policies())
    assert "✗ api: denied by policy deny-me: denied" in text
    assert "Policy: warnings" in text and "! api: policy warn-me: no" in text
    assert "\x1b" not in text
    assert text.index("Errors:") < text.index("Policy: warnings")


def test_markdown_shows_both_and_no_forged_marker() -> None:
    """Markdown: the CAUTION box names the deny, a WARNING box the warning; the message
    cannot open an HTML comment."""
    markdown = render_markdown(plan_with_policies())
    assert "> - `api`: denied by policy deny-me: denied" in markdown
    assert "> - `api`: policy `warn-me`: no" in markdown
    assert markdown.count("<!--") == 1  # the plan's own marker only
    assert "\x1b" not in markdown


def test_json_lists_every_result_and_the_denial_in_errors() -> None:
    """JSON: `policies[]` with both results, `errors[]` with the denial."""
    raw = json.loads(render_json(plan_with_policies()))
    assert [(p["policy"], p["severity"]) for p in raw["policies"]] == [
        ("deny-me", "deny"),
        ("warn-me", "warn"),
    ]
    assert [e["message"] for e in raw["errors"]] == ["denied by policy deny-me: denied"]
