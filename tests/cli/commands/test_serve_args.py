"""`planner serve`'s arguments, parsed as plain functions."""

from __future__ import annotations

import argparse

import pytest

from planner.api.modes import Mode
from planner.cli.commands.serve import DEFAULTS, api_key_grant, parse, port_number, rate
from planner.cli.main import build_parser
from planner.controlplane.settings import DEFAULT_TENANT_ID


def test_the_defaults_are_the_server_settings_defaults() -> None:
    """Without options: 127.0.0.1:8123, the settings' database, mode and timings, no key."""
    args = parse(build_parser(["serve"]).parse_args(["serve"]))
    assert (args.host, args.port, args.db, args.api_keys) == (
        "127.0.0.1",
        8123,
        DEFAULTS.db_path,
        (),
    )
    assert (args.mode, args.build_seconds) == (DEFAULTS.mode, DEFAULTS.build_seconds)


def test_keys_modes_and_faults_are_kept() -> None:
    """--api-key KEY[:TENANT], --mode and the fault options land in the value, typed."""
    tenant = "6f1c3c1e-9a43-4d4e-8d43-0b3c8d1c7e10"
    argv = ["serve", "--api-key", "k1", "--api-key", f"k2:{tenant}", "--mode", "self-hosted"]
    argv += ["--error-rate", "0.5"]
    args = parse(build_parser(argv).parse_args(argv))
    assert args.api_keys == (("k1", DEFAULT_TENANT_ID), ("k2", tenant))
    assert (args.mode, args.error_rate) == (Mode("self-hosted"), 0.5)


@pytest.mark.parametrize(
    ("parse_value", "text"),
    [(port_number, "65536"), (rate, "1.5"), (api_key_grant, "k:not-a-uuid"), (api_key_grant, ":")],
)
def test_out_of_range_values_are_refused(parse_value: object, text: str) -> None:
    """A port above 65535, a rate above 1, a tenant that is no uuid, an empty key: refused."""
    with pytest.raises(argparse.ArgumentTypeError):
        parse_value(text)  # type: ignore[operator]
