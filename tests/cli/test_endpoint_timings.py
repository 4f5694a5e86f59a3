"""The embedded plane's settings: timings shortened by environment variables (tests, demos),
the dialect from the endpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.api.vocabulary import Dialect
from planner.cli.endpoint import (
    EMBEDDED_BUILD_SECONDS,
    embedded_settings,
    embedded_timings,
)
from planner.controlplane.settings import DEFAULT_TENANT_ID
from planner.errors import ConfigError


def test_timings_come_from_the_environment(tmp_path: Path) -> None:
    """PLANNER_EMBEDDED_{BUILD,DEPLOY,DELETE}_SECONDS override the embedded defaults."""
    environ = {
        "PLANNER_EMBEDDED_BUILD_SECONDS": "0.1",
        "PLANNER_EMBEDDED_DEPLOY_SECONDS": "0",
        "PLANNER_EMBEDDED_DELETE_SECONDS": "0.25",
    }
    timings = embedded_timings(environ)
    settings = embedded_settings(tmp_path / "cp.db", DEFAULT_TENANT_ID, timings=timings)
    assert (settings.build_seconds, settings.deploy_seconds, settings.delete_seconds) == (
        0.1,
        0.0,
        0.25,
    )


def test_unset_timings_keep_the_defaults(tmp_path: Path) -> None:
    """Without the variables the embedded plane keeps its quickstart timings."""
    assert embedded_timings({}) == {}
    settings = embedded_settings(tmp_path / "cp.db", DEFAULT_TENANT_ID, timings={})
    assert settings.build_seconds == EMBEDDED_BUILD_SECONDS


@pytest.mark.parametrize("text", ["soon", "-1", "nan"])
def test_bad_timing_is_a_config_error(text: str) -> None:
    """A value that is not a number of seconds >= 0 is refused, naming the variable."""
    with pytest.raises(ConfigError, match="PLANNER_EMBEDDED_BUILD_SECONDS"):
        embedded_timings({"PLANNER_EMBEDDED_BUILD_SECONDS": text})


def test_the_embedded_plane_speaks_the_endpoints_dialect(tmp_path: Path) -> None:
    """The embedded plane takes its words from the one setting `planner serve` sets:
    `ServerSettings.dialect`, the seed's unless the endpoint says otherwise."""
    assert embedded_settings(tmp_path / "cp.db", DEFAULT_TENANT_ID).dialect is Dialect.SEED
    settings = embedded_settings(tmp_path / "cp.db", DEFAULT_TENANT_ID, dialect=Dialect.SERVICE)
    assert settings.dialect is Dialect.SERVICE
