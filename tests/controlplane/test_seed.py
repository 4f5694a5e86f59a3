"""Seed data: the packaged default, custom TOML/JSON files, and errors naming file and field."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from planner.api.support_models import OAuthProvider
from planner.controlplane.seed import load_catalog, load_seed
from planner.errors import ConfigError

TENANT = "6f1c2c1e-0000-4000-8000-00000000000a"
OTHER = "6f1c2c1e-0000-4000-8000-00000000000b"

CUSTOM_TOML = f"""
[[integrations]]
id = "11111111-0000-4000-8000-000000000001"
installation_id = 42
name = "globex"
tenant_ids = ["{TENANT}"]

[[integrations.repositories]]
id = 7
name = "agent"
owner = "globex"
url = "https://git.example.com/globex/agent"
default_branch = "trunk"

[[oauth_providers]]
id = "p1"
organization_id = "org"
provider_id = "gh"
name = "GH"
client_id = "c"
auth_url = "https://a"
token_url = "https://t"
uses_pkce = false
created_at = 2026-01-01T00:00:00Z
updated_at = 2026-01-01T00:00:00Z
"""


def test_default_seed_has_an_integration_with_repositories_and_two_providers() -> None:
    """The packaged default: one integration with a few repositories, two OAuth providers."""
    seed = load_seed(None)
    assert len(seed.integrations) == 1
    assert len(seed.integrations[0].repositories) >= 3
    assert len(seed.oauth_providers) == 2
    for provider in load_catalog(None).providers_for(TENANT):
        OAuthProvider.model_validate(provider.model_dump())


def test_default_integration_matches_the_documented_example() -> None:
    """The default integration id is the one PRODUCT.md's config sketch uses."""
    catalog = load_catalog(None)
    repos = catalog.repositories_of("9a0e7c55-0000-4000-8000-00000000a001", TENANT)
    assert repos is not None
    assert "https://git.example.com/acme/support-agent" in [r.url for r in repos]


def test_custom_toml_seed_with_workspace_scoping(tmp_path: Path) -> None:
    """A TOML seed file is read; numbers become id strings; tenant_ids scope an entry."""
    path = tmp_path / "seed.toml"
    path.write_text(CUSTOM_TOML)
    catalog = load_catalog(path)
    assert [i.installation_id for i in catalog.integrations_for(TENANT)] == ["42"]
    assert catalog.integrations_for(OTHER) == []
    repos = catalog.repositories_of("11111111-0000-4000-8000-000000000001", TENANT)
    assert repos is not None and repos[0].id == "7" and repos[0].default_branch == "trunk"
    assert catalog.repositories_of("11111111-0000-4000-8000-000000000001", OTHER) is None
    provider = catalog.providers_for(OTHER)[0]
    assert provider.code_challenge_method is None
    assert provider.token_endpoint_auth_method == "client_secret_post"


def test_custom_json_seed(tmp_path: Path) -> None:
    """A `.json` seed file is read as JSON."""
    path = tmp_path / "seed.json"
    data = {
        "integrations": [
            {
                "id": "11111111-0000-4000-8000-000000000002",
                "installation_id": "9",
                "name": "n",
                "repositories": [],
            }
        ]
    }
    path.write_text(json.dumps(data))
    assert [i.name for i in load_catalog(path).integrations_for(TENANT)] == ["n"]


def test_bad_seed_file_names_file_and_fields(tmp_path: Path) -> None:
    """Every problem of a bad seed file is reported with the file and the dotted field path."""
    path = tmp_path / "bad.toml"
    path.write_text('[[integrations]]\nid = "nope"\nname = "x"\ntypo = 1\n')
    with pytest.raises(ConfigError) as caught:
        load_seed(path)
    assert str(path) in caught.value.message
    details = "\n".join(caught.value.details)
    assert f"{path}: integrations.0.id:" in details
    assert f"{path}: integrations.0.installation_id: Field required" in details
    assert f"{path}: integrations.0.typo: Extra inputs are not permitted" in details


def test_seed_file_syntax_error(tmp_path: Path) -> None:
    """A file that is not TOML is a ConfigError naming the file."""
    path = tmp_path / "broken.toml"
    path.write_text("[[integrations]\n")
    with pytest.raises(ConfigError, match=r"broken\.toml is not valid TOML"):
        load_seed(path)


def test_missing_seed_file(tmp_path: Path) -> None:
    """A seed path that does not exist is a ConfigError naming it."""
    with pytest.raises(ConfigError, match=r"absent\.toml: cannot read seed file: no such file"):
        load_seed(tmp_path / "absent.toml")


def test_seed_file_that_is_not_utf8(tmp_path: Path) -> None:
    """A seed file that is not UTF-8 text is a ConfigError naming it (not a crash)."""
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "caf\xe9"\n')
    with pytest.raises(ConfigError, match=r"latin1\.toml: cannot read seed file: not UTF-8"):
        load_seed(path)


def test_a_seed_that_is_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    """`--seed` naming a FIFO is an error naming it, not a server that never starts."""
    fifo = tmp_path / "seed.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match=r"seed\.toml: cannot read seed file: it is a FIFO"):
        load_seed(fifo)


def test_duplicate_integration_ids_are_rejected(tmp_path: Path) -> None:
    """Two integrations with one id is an error."""
    entry = (
        '[[integrations]]\nid = "11111111-0000-4000-8000-000000000001"\n'
        'installation_id = "1"\nname = "a"\n'
    )
    path = tmp_path / "dup.toml"
    path.write_text(entry + entry)
    with pytest.raises(ConfigError) as caught:
        load_seed(path)
    assert "duplicate integrations id" in "\n".join(caught.value.details)
