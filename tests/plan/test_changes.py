"""Field changes and plan errors built from them."""

from __future__ import annotations

from planner.plan.changes import field_change, immutable_error


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
