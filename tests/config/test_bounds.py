"""Variable and template expansion is bounded: past 1 MiB a value, past 16 MiB the config."""

from __future__ import annotations

from typing import Any

import pytest

from planner.config.bounds import MAX_EXPANDED_BYTES, MAX_VALUE_BYTES, Budget, size_of
from planner.config.environments import Inputs, resolve_environment
from planner.errors import ConfigError

DOCKER = {"source": "internal_docker"}


def _details(raw: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        resolve_environment(raw, Inputs(), label="f.toml")
    return caught.value.details


def test_a_string_repeating_a_variable_past_1_mib_is_an_error_at_its_place() -> None:
    """40 copies of a 32 KiB variable in one string: an error naming that string."""
    raw = {
        "variables": {"chunk": {"default": "x" * 32 * 1024}},
        "deployments": {
            "api": {**DOCKER, "source_revision_config": {"image_uri": "${var.chunk}" * 40}}
        },
    }
    assert _details(raw) == [
        "f.toml: deployments.api.source_revision_config.image_uri: expands past 1 MiB "
        "(a value is at most 1 MiB after ${...} expansion)"
    ]


def test_a_whole_variable_past_1_mib_is_an_error() -> None:
    """`labels = "${var.big}"` with a table larger than 1 MiB is refused where it is used."""
    big = {f"k{index}": "v" * 1024 for index in range(1100)}
    raw = {
        "variables": {"big": {"default": big}},
        "defaults": {"source_config": {"resource_spec": {"labels": "${var.big}"}}},
    }
    details = _details(raw)
    assert details == [
        "f.toml: defaults.source_config.resource_spec.labels: expands past 1 MiB "
        "(a value is at most 1 MiB after ${...} expansion)"
    ]


def test_a_template_repeated_past_16_mib_stops_early_naming_the_deployment() -> None:
    """A template of 512 KiB and its keys, picked by 40 deployments, passes 16 MiB at the 32nd."""
    value = "${var.chunk}" * 16
    raw = {
        "variables": {"chunk": {"default": "y" * 32 * 1024}},
        "templates": {
            "t": {**DOCKER, "source_config": {"resource_spec": {"labels": {"a": value}}}}
        },
        "deployments": {f"d{index:02}": {"template": "t"} for index in range(40)},
    }
    details = _details(raw)
    assert len(details) == 1
    assert details[0].startswith("f.toml: deployments.d31: the config expands past 16 MiB here")


def test_defaults_count_once_per_deployment() -> None:
    """[defaults] of 600 KiB merged into 30 deployments passes 16 MiB."""
    labels = {"note": "z" * 600 * 1024}
    raw = {
        "defaults": {"source_config": {"resource_spec": {"labels": labels}}},
        "deployments": {f"d{index:02}": dict(DOCKER) for index in range(30)},
    }
    assert "the config expands past 16 MiB here" in _details(raw)[0]


def test_a_config_under_the_bounds_resolves() -> None:
    """A 900 KiB value used by 10 deployments is well within both bounds."""
    raw = {
        "variables": {"note": {"default": "n" * 900 * 1024}},
        "deployments": {f"d{i}": {**DOCKER, "description": "${var.note}"} for i in range(10)},
    }
    resolved = resolve_environment(raw, Inputs(), label="f.toml")
    assert len(resolved["deployments"]["d9"]["description"]) == 900 * 1024


def test_sizes_are_utf8_bytes_and_the_budget_raises_past_the_bound() -> None:
    """size_of counts UTF-8 bytes of strings and keys; Budget stops past 16 MiB."""
    assert size_of({"é": ["ab", 1, None]}) == 2 + 2 + 8 + 8
    assert MAX_VALUE_BYTES < MAX_EXPANDED_BYTES
    budget = Budget()
    budget.spend(MAX_EXPANDED_BYTES, ("a",))
    with pytest.raises(Exception, match="expands past 16 MiB"):
        budget.spend(1, ("b",))
