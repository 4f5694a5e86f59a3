"""The no-op fast path of one deployment (`unchanged`) against the full comparison."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.api.models import Deployment
from planner.config.desired import DesiredDeployment
from planner.plan.drift import deployment_drift
from planner.plan.model import Action
from planner.plan.update import (
    _NOT_PLAIN,
    SeenParts,
    _agreed_view,
    _general_view,
    _managed_values,
    build_update,
    unchanged,
)
from planner.state.records import RecordedDeployment

from .builders import (
    INTEGRATION,
    KEY,
    edit,
    git_desired,
    observed_from,
    recorded_from,
    with_lifecycle,
)
from .strategies import desired_deployments, outside_edits


def full(desired: DesiredDeployment, recorded: RecordedDeployment, observed: Deployment):
    """(change, drift) of the full comparison, as `make_plan` computes them."""
    ignore = desired.lifecycle.ignore_changes
    drift = deployment_drift(recorded, observed, ignore_changes=ignore, digest_key=KEY)
    drifted = {d.path for d in drift if d.path is not None}
    return build_update(desired, recorded, observed, key=KEY, drifted=drifted), drift


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_fast_path_answers_only_what_the_full_comparison_answers(data: st.DataObject) -> None:
    """Whenever `unchanged` gives a change, the full comparison finds no drift, no error,
    no warning and exactly that change, equal field for field."""
    prior = data.draw(desired_deployments("api"))
    desired = prior if data.draw(st.booleans()) else data.draw(desired_deployments("api"))
    observed = observed_from(prior)
    if data.draw(st.booleans()):
        observed = edit(observed, data.draw(outside_edits))
    fast = unchanged(desired, recorded_from(prior), observed, KEY)
    if fast is None:
        return
    outcome, drift = full(desired, recorded_from(prior), observed)
    assert (drift, outcome.errors, outcome.warnings) == ([], [], [])
    assert fast == outcome.change
    assert fast.model_dump_json() == outcome.change.model_dump_json()


def test_an_applied_deployment_with_secrets_is_a_no_op_at_once() -> None:
    """Config, record and live deployment agreeing (secrets included): the fast path
    answers, with the masked secrets in the view and the digests apply checks."""
    desired = git_desired(secrets={"TOKEN": "t0k3n", "LEVEL": "info"})
    fast = unchanged(desired, recorded_from(desired), observed_from(desired), KEY)
    assert fast is not None and fast.action is Action.NO_OP
    assert fast.before == fast.after
    assert fast.before["secrets"] == [
        {"name": "LEVEL", "value": "(sensitive)"},
        {"name": "TOKEN", "value": "(sensitive)"},
    ]
    assert sorted(fast.secret_digests) == ["LEVEL", "TOKEN"]
    assert fast == full(desired, recorded_from(desired), observed_from(desired))[0].change


def test_anything_the_one_comparison_cannot_vouch_for_takes_the_full_path() -> None:
    """ignore_changes, a record other than the config, a live value or secret changed, a
    secret only the record has, or an empty value: no fast answer."""
    plain = git_desired()
    live = observed_from(plain)
    with_secret = git_desired(secrets={"TOKEN": "t0k3n"})
    empty_labels = git_desired(
        source_config={
            "integration_id": "9a0e7c55-0000-4000-8000-00000000a001",
            "repo_url": "https://git.example.com/acme/api",
            "resource_spec": {"labels": {}},
        }
    )
    cases = [
        (with_lifecycle(plain, ignore_changes=("secrets",)), recorded_from(plain), live),
        (plain, recorded_from(git_desired(source_revision_config={"repo_ref": "v2"})), live),
        (plain, recorded_from(plain), edit(live, {"source_config": {"build_on_push": True}})),
        (with_secret, recorded_from(with_secret), observed_from(plain)),
        (plain, recorded_from(with_secret), observed_from(with_secret)),
        (with_secret, recorded_from(with_secret, b"x" * 32), observed_from(with_secret)),
        (empty_labels, recorded_from(empty_labels), observed_from(empty_labels)),
    ]
    for desired, recorded, observed in cases:
        assert unchanged(desired, recorded, observed, KEY) is None


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_agreed_view_is_the_general_one(data: st.DataObject) -> None:
    """Where every field is a plain scalar, the comparison read from the models' attributes
    answers what the general one (dumped, compared with the record, flattened, nested)
    answers: the same view, keys in the same order, or None."""
    prior = data.draw(desired_deployments("api"))
    desired = prior if data.draw(st.booleans()) else data.draw(desired_deployments("api"))
    if data.draw(st.booleans()):
        desired = desired.model_copy(update={"remote_name": "api-remote"})
    if data.draw(st.booleans()):
        desired = desired.model_copy(update={"display_name": "API"})
    recorded = recorded_from(prior if data.draw(st.booleans()) else desired)
    observed = observed_from(prior)
    if data.draw(st.booleans()):
        observed = edit(observed, data.draw(outside_edits))
    agreed = _agreed_view(*_managed_values(desired), recorded.managed, observed)
    if agreed is _NOT_PLAIN:
        return
    managed = desired.managed()
    general = None if recorded.managed != managed else _general_view(managed, observed)
    assert agreed == general
    assert json.dumps(agreed) == json.dumps(general)


def test_a_plain_field_the_server_or_record_holds_otherwise_differs() -> None:
    """A plain field null or different on the server or in the record, or a field only the
    record has: the comparison says no; a record or live value of another kind: it leaves
    it to the general one; never a no-op."""
    desired = git_desired(source_config={"integration_id": INTEGRATION, "build_on_push": True})
    values, names = _managed_values(desired)
    live, record = observed_from(desired), recorded_from(desired).managed
    for observed in (
        edit(live, {"source_config": {"build_on_push": False}}),
        observed_from(desired, build_on_push=None),
    ):
        assert _agreed_view(values, names, record, observed) is None
    swapped = {**{k: v for k, v in record.items() if k != "source"}, "display_name": "x"}
    others = (record | {"display_name": "x"}, swapped, recorded_from(git_desired()).managed)
    for other in others:
        assert _agreed_view(values, names, other, live) is None
    odd_record = record | {"source_config": "not an object"}
    assert _agreed_view(values, names, odd_record, live) is _NOT_PLAIN
    named = desired.model_copy(update={"display_name": "API"})
    odd_live = live.model_copy(update={"display_name": ["API"]})  # no kind a server sends
    named_record = recorded_from(named).managed
    assert _agreed_view(*_managed_values(named), named_record, odd_live) is _NOT_PLAIN
    assert _agreed_view(values, names, record, live) == {
        "source": "git_host",
        "source_config": {"build_on_push": True, "integration_id": INTEGRATION},
        "source_revision_config": {"agent_config_path": "agent.json", "repo_ref": "main"},
    }


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_parts_seen_before_answer_as_they_would_alone(data: st.DataObject) -> None:
    """One plan's deployments sharing parts of the config and of the listing (the same
    models) with records alike or not: every answer given with what the plan has seen
    is the one each gives alone, view for view."""
    prior = data.draw(desired_deployments("api"))
    live = observed_from(prior)
    seen: SeenParts = {}
    for _ in range(data.draw(st.integers(2, 5))):
        own = data.draw(desired_deployments("api"))
        desired = prior if data.draw(st.booleans()) else own
        if data.draw(st.booleans()):  # a part shared with the others (a config's defaults)
            part = data.draw(st.sampled_from(["source_config", "source_revision_config"]))
            desired = desired.model_copy(update={part: getattr(prior, part)})
        recorded = recorded_from(prior if data.draw(st.booleans()) else desired)
        observed = observed_from(desired) if data.draw(st.booleans()) else live
        if data.draw(st.booleans()):
            observed = edit(observed, data.draw(outside_edits))
        if data.draw(st.booleans()):  # a listing's alike parts are shared
            observed = observed.model_copy(update={"source_config": live.source_config})
        alone = unchanged(desired, recorded, observed, KEY)
        remembered = unchanged(desired, recorded, observed, KEY, seen)
        assert remembered == alone
        if alone is not None and remembered is not None:
            assert remembered.model_dump_json() == alone.model_dump_json()


def test_a_part_seen_before_is_compared_again_with_another_record() -> None:
    """The same config and live parts against a record that differs there: no no-op."""
    desired = git_desired(source_config={"integration_id": INTEGRATION, "build_on_push": True})
    live, recorded = observed_from(desired), recorded_from(desired)
    seen: SeenParts = {}
    assert unchanged(desired, recorded, live, KEY, seen) is not None
    assert "source_config." in seen
    managed = recorded.managed | {
        "source_config": {"integration_id": INTEGRATION, "build_on_push": False}
    }
    other = recorded.model_copy(update={"managed": managed})
    assert unchanged(desired, other, live, KEY, seen) is None
    assert unchanged(desired, recorded, live, KEY, seen) is not None
