"""`planner providers` against the embedded local control plane (text and JSON)."""

from __future__ import annotations

import json
from pathlib import Path

from planner.cli.main import main


def test_providers_json_lists_the_seeded_providers(embedded: Path, capsys):
    """JSON output is an array of providers with their documented fields."""
    assert main(["providers", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    providers = json.loads(out)
    assert len(providers) >= 1
    assert {"id", "name", "provider_id", "client_id", "uses_pkce"} <= set(providers[0])
    assert "Using the embedded local control plane" in err
    assert (embedded / "state" / "local-control-plane.db").exists()


def test_providers_text_is_a_table(embedded: Path, capsys):
    """Text output shows each provider's name in a table."""
    assert main(["providers", "--format", "json"]) == 0
    names = [p["name"] for p in json.loads(capsys.readouterr().out)]
    assert main(["providers"]) == 0
    out = capsys.readouterr().out
    assert "Name" in out and "PKCE" in out
    assert all(name[:10] in out for name in names)


def test_explicit_missing_config_is_an_error(embedded: Path, capsys):
    """A config named with -c must exist (the default planner.toml may be missing)."""
    assert main(["providers", "-c", "nope.toml"]) == 1
    assert "nope.toml: config file not found" in capsys.readouterr().err


def test_real_url_without_key_fails_cleanly(embedded: Path, capsys):
    """--base-url without PLANNER_API_KEY prints one clear error and exits 1."""
    assert main(["providers", "--base-url", "http://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err
    assert "PLANNER_API_KEY is not set" in err
    assert "Traceback" not in err
