"""`import --all` uses the same state as every command: a PostgreSQL `[state] url`."""

from __future__ import annotations

import tomllib
from urllib.parse import urlsplit

import pytest

from planner.api.models import DeploymentCreate
from planner.secrets import url_without_password
from planner.state.postgres import PostgresBackend
from tests.cli.conftest import BASE_CONFIG, Scenario
from tests.postgres import unique_name, with_a_password


def test_import_all_reads_and_writes_the_postgres_state_of_the_config(
    scenario: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `[state] url` in PostgreSQL: a deployment `-c`'s state manages (though it left
    the config) is not adopted again, the others are recorded in PostgreSQL under FILE's
    stem (no local state file), FILE carries the `[state] url`, and its plan is empty."""
    monkeypatch.setenv("PGPASSWORD", urlsplit(postgres_url).password or "")
    url = url_without_password(postgres_url)
    state_table = f'\n[state]\nurl = "{url}"\nname = "{unique_name()}"\n'
    scenario.write_config(BASE_CONFIG + state_table)
    assert scenario.cli("apply", "--auto-approve", "--only", "worker").code == 0
    scenario.write_config(BASE_CONFIG.split("[deployments.worker]")[0] + state_table)
    create = DeploymentCreate.model_validate(
        {
            "name": "solo",
            "source": "internal_docker",
            "source_revision_config": {"image_uri": "r/s:1"},
        }
    )
    solo = scenario.remote(lambda client: client.create_deployment(create))
    scenario.wait_until_deployed(solo.id)
    stem = unique_name("adopted")
    result = scenario.cli("import", "--all", "--auto-approve", "--generate-config", f"{stem}.toml")
    assert result.code == 0, result.out + result.err
    generated = tomllib.loads((scenario.root / f"{stem}.toml").read_text())
    assert sorted(generated["deployments"]) == ["solo"]
    assert generated["state"] == {"url": url}
    assert not (scenario.root / "state" / f"{stem}.state.json").exists()
    backend = PostgresBackend(postgres_url, name=stem)
    try:
        adopted = backend.read()
    finally:
        backend.close()
    assert adopted is not None and {n: r.id for n, r in adopted.deployments.items()} == {
        "solo": solo.id
    }
    planned = scenario.plan("-c", f"{stem}.toml", "--detailed-exitcode")
    assert planned.code == 0, planned.out + planned.err


def test_import_all_under_planner_state_writes_its_url_without_the_password(
    scenario: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With PLANNER_STATE set, the records go to that state (not `-c`'s `[state] url`) and
    FILE names PLANNER_STATE's URL without its password, saying so: the next plan finds
    them with PLANNER_STATE still set, and without it, given PGPASSWORD."""
    elsewhere = "postgresql://planner@db.invalid:5432/prod"
    scenario.write_config(BASE_CONFIG + f'\n[state]\nurl = "{elsewhere}"\n')
    state_url, password = with_a_password(postgres_url)
    monkeypatch.setenv("PLANNER_STATE", state_url)
    create = DeploymentCreate.model_validate(
        {
            "name": "solo",
            "source": "internal_docker",
            "source_revision_config": {"image_uri": "r:1"},
        }
    )
    solo = scenario.remote(lambda client: client.create_deployment(create))
    scenario.wait_until_deployed(solo.id)
    stem = unique_name("adopted")
    result = scenario.cli("import", "--all", "--auto-approve", "--generate-config", f"{stem}.toml")
    assert result.code == 0, result.out + result.err
    text = (scenario.root / f"{stem}.toml").read_text()
    assert password not in text and "db.invalid" not in text
    assert tomllib.loads(text)["state"] == {"url": url_without_password(state_url)}
    assert f"password is not written into {stem}.toml" in result.out
    backend = PostgresBackend(postgres_url, name=stem)
    try:
        adopted = backend.read()
    finally:
        backend.close()
    assert adopted is not None and adopted.deployments["solo"].id == solo.id
    planned = scenario.plan("-c", f"{stem}.toml", "--detailed-exitcode")
    assert planned.code == 0, planned.out + planned.err
    monkeypatch.delenv("PLANNER_STATE")
    monkeypatch.setenv("PGPASSWORD", password)
    planned = scenario.plan("-c", f"{stem}.toml", "--detailed-exitcode")
    assert planned.code == 0, planned.out + planned.err
