"""Which control plane a command talks to: the `[control_plane]` table of its config."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.connect import read_control_plane_table
from planner.errors import ConfigError


def test_control_plane_table_from_toml_and_json(tmp_path: Path):
    """Only `[control_plane]` is read, from TOML or JSON."""
    toml_file = tmp_path / "planner.toml"
    toml_file.write_text('[control_plane]\nbase_url = "http://127.0.0.1:8123"\n')
    json_file = tmp_path / "planner.json"
    json_file.write_text('{"control_plane": {"tenant_id": "t"}, "deployments": {}}')
    assert read_control_plane_table(toml_file, required=True) == {
        "base_url": "http://127.0.0.1:8123"
    }
    assert read_control_plane_table(json_file, required=True) == {"tenant_id": "t"}


def test_missing_config_is_fine_unless_required(tmp_path: Path):
    """A missing file gives no table, or a config error when it was asked for."""
    missing = tmp_path / "nope.toml"
    assert read_control_plane_table(missing, required=False) is None
    with pytest.raises(ConfigError, match="not found"):
        read_control_plane_table(missing, required=True)


def test_unparsable_config_is_a_config_error(tmp_path: Path):
    """Broken TOML is reported with the file name."""
    broken = tmp_path / "planner.toml"
    broken.write_text("[control_plane\n")
    with pytest.raises(ConfigError, match=r"planner\.toml:1:15: invalid TOML"):
        read_control_plane_table(broken, required=False)


def test_an_upper_case_json_suffix_is_read_as_json(tmp_path: Path):
    """`planner.JSON` is JSON, as for every other command (the suffix is case-blind)."""
    upper = tmp_path / "planner.JSON"
    upper.write_text('{"control_plane": {"tenant_id": "t"}}')
    assert read_control_plane_table(upper, required=True) == {"tenant_id": "t"}


def test_a_device_named_as_config_is_refused_without_reading_it(tmp_path: Path):
    """A config that is a character device (/dev/zero behind a .toml name) is one clear
    error naming the path, not an endless read."""
    zero = tmp_path / "zero.toml"
    zero.symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match=r"zero\.toml: .*character device, not a regular"):
        read_control_plane_table(zero, required=False)
