"""Field paths: flattening by field, normalizing server noise, ignore_changes coverage."""

from __future__ import annotations

from planner.plan.paths import flatten, get_path, is_ignored, nest, normalize


def test_flatten_stops_at_fields() -> None:
    """Struct groups are walked; a field's own object or list is one value."""
    doc = {
        "source": "git_host",
        "source_config": {
            "resource_spec": {"labels": {"a": "1"}, "cpu": 1},
            "listener_config": {"k8s_namespace": "x"},
        },
    }
    assert flatten(doc) == {
        "source": "git_host",
        "source_config.resource_spec.labels": {"a": "1"},
        "source_config.resource_spec.cpu": 1,
        "source_config.listener_config": {"k8s_namespace": "x"},
    }
    assert nest(flatten(doc)) == doc
    assert get_path(doc, "source_config.resource_spec.cpu") == 1
    assert get_path(doc, "source_config.nothing.here") is None


def test_normalize_drops_nulls_and_empties() -> None:
    """Nulls, empty lists and empty objects compare as absent."""
    assert normalize({"a": None, "b": [], "c": {}, "d": [{"name": "x", "image": None}]}) == {
        "d": [{"name": "x"}]
    }
    assert normalize(False) is False


def test_ignore_covers_the_path_its_parents_and_its_children() -> None:
    """An ignore path covers fields under it, and a whole field holding it."""
    ignore = (
        "source_config.resource_spec.sidecars.0.image",
        "source_config.resource_spec.max_scale",
    )
    assert is_ignored("source_config.resource_spec.max_scale", ignore)
    assert is_ignored("source_config.resource_spec.sidecars", ignore)
    assert not is_ignored("source_config.resource_spec.max", ignore)
    assert is_ignored("source_config.resource_spec.cpu", ("source_config.resource_spec",))
