"""The field-behaviour table classifies every field as PRODUCT.md says."""

from __future__ import annotations

import pytest

from planner.api.fields import (
    FIELD_BEHAVIOUR,
    ChangeClass,
    UnknownFieldError,
    bound_leaves,
    classify,
    read_only_keys,
    table_problems,
)
from planner.api.models import DeploymentCreate, DeploymentPatch


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("name", ChangeClass.IMMUTABLE),
        ("source", ChangeClass.IMMUTABLE),
        ("source_config.integration_id", ChangeClass.IMMUTABLE),
        ("source_config.repo_url", ChangeClass.IMMUTABLE),
        ("source_config.deployment_type", ChangeClass.IMMUTABLE),
        ("source_config.listener_id", ChangeClass.IMMUTABLE),
        ("source_config.listener_config.k8s_namespace", ChangeClass.IMMUTABLE),
        ("source_config.build_on_push", ChangeClass.IN_PLACE),
        ("source_config.custom_url", ChangeClass.IN_PLACE),
        ("source_config.resource_spec.cpu", ChangeClass.NEW_REVISION),
        ("source_config.resource_spec.sidecars", ChangeClass.NEW_REVISION),
        ("source_config.install_command", ChangeClass.NEW_REVISION),
        ("source_config.build_command", ChangeClass.NEW_REVISION),
        ("source_revision_config.repo_ref", ChangeClass.NEW_REVISION),
        ("source_revision_config.image_uri", ChangeClass.NEW_REVISION),
        ("secrets", ChangeClass.NEW_REVISION),
        ("secret_references", ChangeClass.NEW_REVISION),
        ("source_revision_config.repo_commit_sha", ChangeClass.READ_ONLY),
        ("latest_revision_id", ChangeClass.READ_ONLY),
        ("updated_at", ChangeClass.READ_ONLY),
    ],
)
def test_classify_follows_the_table(path: str, expected: ChangeClass) -> None:
    """Each path gets the class of its longest prefix in the table."""
    assert classify(path) is expected


def test_every_leaf_of_the_wire_models_has_exactly_one_class() -> None:
    """Walking the request and read models finds no leaf without a class or with two."""
    assert table_problems(FIELD_BEHAVIOUR, bound_leaves()) == []


def test_the_walk_reaches_nested_and_listed_models() -> None:
    """Leaves include fields of nested models and of models inside lists."""
    leaves = bound_leaves()
    assert "source_config.resource_spec.cpu" in leaves
    assert "source_config.resource_spec.sidecars.env.valueFrom" in leaves
    assert "source_config.listener_config.k8s_namespace" in leaves
    assert {"secrets.name", "secrets.value", "secret_references.secret_key"} <= set(leaves)
    assert "source_config.resource_spec" not in leaves  # a model, walked into


def test_a_leaf_missing_from_the_table_is_a_problem() -> None:
    """A table without an entry for a leaf reports that leaf (it would plan as nothing)."""
    table = {p: c for p, c in FIELD_BEHAVIOUR.items() if p != "source_config.custom_url"}
    assert table_problems(table, bound_leaves()) == [
        "source_config.custom_url: classed by 0 entries (none), not one"
    ]


def test_a_leaf_with_two_classes_is_a_problem() -> None:
    """An entry below another entry gives its leaves two classes: reported."""
    table = {**FIELD_BEHAVIOUR, "source_config.resource_spec.cpu": ChangeClass.IN_PLACE}
    problems = table_problems(table, bound_leaves())
    assert problems == [
        "source_config.resource_spec.cpu: classed by 2 entries "
        "(source_config.resource_spec, source_config.resource_spec.cpu), not one"
    ]


def test_an_entry_naming_no_field_is_a_problem() -> None:
    """A table entry that is no field of the models (a typo, a removed field) is reported."""
    table = {**FIELD_BEHAVIOUR, "source_config.build_on_pusj": ChangeClass.IN_PLACE}
    assert table_problems(table, bound_leaves()) == [
        "source_config.build_on_pusj: names no field of the wire models"
    ]


def test_a_field_added_to_a_model_without_a_class_is_found() -> None:
    """A new request field with no entry (as `nickname` would be) is a leaf without a
    class, so the import-time check refuses the table."""

    class Extended(DeploymentPatch):
        nickname: str | None = None

    problems = table_problems(FIELD_BEHAVIOUR, bound_leaves((DeploymentCreate, Extended)))
    assert "nickname: classed by 0 entries (none), not one" in problems


def test_an_unknown_path_is_refused_not_read_only() -> None:
    """classify raises for a path no entry covers instead of calling it read-only."""
    with pytest.raises(UnknownFieldError, match="nickname has no change class"):
        classify("nickname")


def test_read_only_keys_come_from_the_table() -> None:
    """The keys the service sets in a request table are the table's read-only entries."""
    assert read_only_keys("source_revision_config") == ("repo_commit_sha",)
    assert read_only_keys("source_config") == ()
