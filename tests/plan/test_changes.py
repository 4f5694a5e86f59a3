"""Field changes and plan errors built from them."""

from __future__ import annotations

from planner.plan.changes import build_create, field_change, immutable_error
from planner.plan.managed_fields import creation_patch, view_patch
from planner.plan.model import Change, FieldChange
from tests.plan.builders import KEY, git_desired


def test_an_immutable_error_names_the_old_value_to_set_back() -> None:
    """The hint offers --replace, or setting the field back to its live value."""
    field = field_change("source_config.repo_url", "https://a.example", "https://b.example")
    error = immutable_error("api", field)
    assert error.hint is not None
    assert "--replace api" in error.hint
    assert error.hint.endswith('set source_config.repo_url back to "https://a.example"')


def test_an_immutable_field_unset_live_is_left_out_not_set_to_null() -> None:
    """When the live deployment has no value, the hint never says `back to null`."""
    field = field_change("source_config.integration_id", None, "9a0e7c55")
    error = immutable_error("api", field)
    assert error.hint is not None
    assert "null" not in error.hint
    assert error.hint.endswith("leave source_config.integration_id out of the config")


def test_a_create_built_unvalidated_equals_and_dumps_like_a_validated_one() -> None:
    """build_create skips validation (a large fleet has one per deployment): the change,
    its JSON and its patch are those of the validated model and of jsonpatch's diff."""
    desired = git_desired("api", secrets={"TOKEN": "s3cret"})
    change = build_create(desired, KEY, [])
    validated = Change.model_validate(change.model_dump(mode="json"))
    assert change == validated
    assert change.model_dump_json() == validated.model_dump_json()
    assert change.patch == view_patch({}, change.after)
    assert change.fields and all(isinstance(f, FieldChange) for f in change.fields)
    assert "s3cret" not in change.model_dump_json()


def test_a_copy_of_a_built_change_keeps_the_original_as_it_was() -> None:
    """The instances `built` makes share one set of given names: a copy with an update
    must not change it for the others."""
    first = build_create(git_desired("api"), KEY, [])
    second = build_create(git_desired("web"), KEY, [])
    moved = first.model_copy(update={"moved_from": "old"})
    assert "moved_from" in moved.model_fields_set
    assert "moved_from" not in first.model_fields_set | second.model_fields_set
    assert creation_patch({"a/b": {"c~d": 1}}) == view_patch({}, {"a/b": {"c~d": 1}})
