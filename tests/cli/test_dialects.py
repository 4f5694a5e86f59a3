"""`planner` against a control plane of each dialect (`planner serve --dialect`), over
loopback HTTP with the dialect left to `auto`: the same plans, whichever words the
config writes and whichever the server speaks; what a person reads in the config's words.
"""

from __future__ import annotations

import asyncio
import json
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from planner.api.client import ControlPlaneClient
from planner.api.models import DeploymentCreate
from planner.api.vocabulary import (
    RESOURCE_SPEC_KEYS,
    REVISION_CONFIG_KEYS,
    SOURCE_WORDS,
    Dialect,
    word_in,
)
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from tests.cli.conftest import Result, Scenario
from tests.loopback import served

SEED_GIT = SOURCE_WORDS[0][0]
SEED_AGENT = REVISION_CONFIG_KEYS[0][0]
SEED_CACHE_CPU, SEED_CACHE_MB = RESOURCE_SPEC_KEYS[0][0], RESOURCE_SPEC_KEYS[2][0]
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"


@contextmanager
def server(root: Path, dialect: Dialect) -> Iterator[str]:
    """`planner serve --dialect DIALECT` over loopback (fast revisions); its base URL."""
    settings = ServerSettings(
        db_path=root / f"{dialect}.db",
        build_seconds=0.05,
        deploy_seconds=0.05,
        delete_seconds=0.05,
        dialect=dialect,
    )
    with served(settings) as url:
        yield url


def config(url: str, words: Dialect, *, cpu: float = 0.5, build_on_push: bool = False) -> str:
    """A git deployment and an image one, the dialects' words written in WORDS'."""

    def w(seed: str) -> str:
        return word_in(words, seed)

    return (
        f'[control_plane]\nbase_url = "{url}"\n\n'
        f"[deployments.api]\nsource = {json.dumps(w(SEED_GIT))}\n"
        "[deployments.api.source_config]\n"
        f'integration_id = "{INTEGRATION}"\nrepo_url = "https://git.example.com/acme/api"\n'
        f"build_on_push = {str(build_on_push).lower()}\n"
        "[deployments.api.source_config.resource_spec]\n"
        f"max_scale = 2\n{w(SEED_CACHE_CPU)} = {cpu}\n{w(SEED_CACHE_MB)} = 512\n"
        "[deployments.api.source_revision_config]\n"
        f'repo_ref = "main"\n{w(SEED_AGENT)} = "agent.json"\n\n'
        '[deployments.worker]\nsource = "internal_docker"\n'
        "[deployments.worker.source_revision_config]\n"
        'image_uri = "registry.example.com/acme/worker:1"\n'
    )


def plan_json(scenario: Scenario, config_file: str, expected_code: int) -> dict[str, Any]:
    """`planner plan --format json --detailed-exitcode`: the plan without what differs from
    one server to another (ids, times, the config's file name)."""
    result = scenario.cli("plan", "-c", config_file, "--format", "json", "--detailed-exitcode")
    assert result.code == expected_code, result.err
    plan = json.loads(result.out)
    plan.pop("config", None)
    for change in plan["changes"]:
        change.pop("deployment_id", None)
    # revisions still rolling out depend on timing, not on the dialect (and carry ids)
    plan.pop("rollouts", None)
    plan["unmanaged"] = [unmanaged["name"] for unmanaged in plan["unmanaged"]]
    return dict(plan)


def ok(result: Result) -> Result:
    assert result.code == 0, result.out + result.err
    return result


@pytest.fixture
def keyed(scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> Scenario:
    """The scenario, with the served planes' key."""
    monkeypatch.setenv("PLANNER_API_KEY", EMBEDDED_API_KEY)
    return scenario


@pytest.mark.parametrize("server_words", list(Dialect))
@pytest.mark.parametrize("config_words", list(Dialect))
def test_a_git_deployment_plans_applies_and_replans_empty(
    keyed: Scenario, config_words: Dialect, server_words: Dialect
) -> None:
    """A git deployment written with `git_host` or `github` (and the matching keys) plans,
    applies, and plans empty again against a server of either dialect; a change of its
    spec is one new revision, and the plan after it is empty."""
    with server(keyed.root, server_words) as url:
        keyed.write_config(config(url, config_words))
        plan_json(keyed, "planner.toml", 2)
        ok(keyed.cli("apply", "--auto-approve"))
        plan_json(keyed, "planner.toml", 0)
        keyed.write_config(config(url, config_words, cpu=1.0))
        changed = plan_json(keyed, "planner.toml", 2)
        assert changed["summary"]["new_revision"] == 1
        ok(keyed.cli("apply", "--auto-approve"))
        plan_json(keyed, "planner.toml", 0)


def sequence(scenario: Scenario, url: str, words: Dialect) -> list[dict[str, Any]]:
    """plan, apply, change (a new revision and an in-place field), reconcile, adopt an
    outsider with `import --all`, destroy: the plans made on the way."""
    file = f"{words}.toml"
    scenario.config_path = scenario.root / file
    scenario.write_config(config(url, words))
    plans = [plan_json(scenario, file, 2)]
    ok(scenario.cli("apply", "-c", file, "--auto-approve"))
    plans.append(plan_json(scenario, file, 0))
    scenario.write_config(config(url, words, cpu=1.0, build_on_push=True))
    plans.append(plan_json(scenario, file, 2))
    ok(scenario.cli("apply", "-c", file, "--auto-approve"))
    ok(scenario.cli("reconcile", "-c", file, "--once"))
    create_outsider(url)
    adopted = f"adopted-{words}.toml"
    ok(scenario.cli("import", "--all", "-c", file, "--generate-config", adopted, "--auto-approve"))
    plans.append(plan_json(scenario, adopted, 0))
    ok(scenario.cli("destroy", "-c", adopted, "--auto-approve"))
    ok(scenario.cli("destroy", "-c", file, "--auto-approve"))
    plans.append(plan_json(scenario, file, 2))
    return plans


def create_outsider(url: str) -> None:
    """A git deployment made outside the planner (a client left to `auto`)."""
    body = {
        "name": "outsider",
        "source": SEED_GIT,
        "source_config": {
            "integration_id": INTEGRATION,
            "repo_url": "https://git.example.com/acme/outsider",
            "resource_spec": {SEED_CACHE_CPU: 0.25},
        },
        "source_revision_config": {"repo_ref": "main", SEED_AGENT: "graph.json"},
    }

    async def create() -> None:
        client = ControlPlaneClient(url, EMBEDDED_API_KEY, DEFAULT_TENANT_ID, dialect=None)
        async with client:
            await client.create_deployment(DeploymentCreate.model_validate(body))

    asyncio.run(create())


def test_both_dialects_give_the_same_plans(keyed: Scenario) -> None:
    """plan, apply, a new revision and an in-place change, reconcile, import --all and
    destroy against a seed server and a service one give the same JSON plans (the seed's
    words, as the state keeps them); the config adopted from the service server is in
    the words of the config that adopted it."""
    found = {}
    for words in Dialect:
        with server(keyed.root, words) as url:
            found[words] = sequence(keyed, url, words)
    for a, b in zip(found[Dialect.SEED], found[Dialect.SERVICE], strict=True):
        assert a == b, json.dumps([a, b], indent=1)
    assert json.dumps(found[Dialect.SERVICE]).count(SEED_GIT) > 0
    adopted = tomllib.loads((keyed.root / "adopted-service.toml").read_text())
    outsider = adopted["deployments"]["outsider"]
    assert outsider["source"] == word_in(Dialect.SERVICE, SEED_GIT)
    revision = outsider["source_revision_config"]
    assert revision[word_in(Dialect.SERVICE, SEED_AGENT)] == "graph.json"


@pytest.mark.parametrize("config_words", list(Dialect))
def test_the_plan_text_speaks_the_words_of_the_config(
    keyed: Scenario, config_words: Dialect
) -> None:
    """The text and markdown plans name the fields and the source as the config wrote
    them; the JSON plan keeps the seed's words."""
    with server(keyed.root, Dialect.SERVICE) as url:
        keyed.write_config(config(url, config_words))
        text = ok(keyed.plan()).out
        markdown = ok(keyed.plan("--format", "markdown")).out
        data = ok(keyed.plan("--format", "json")).out
    other = Dialect.SEED if config_words is Dialect.SERVICE else Dialect.SERVICE
    for seed in (SEED_AGENT, SEED_CACHE_CPU):
        assert word_in(config_words, seed) in text and word_in(config_words, seed) in markdown
        assert word_in(other, seed) not in text + markdown
    assert f'source = "{word_in(config_words, SEED_GIT)}"' in text
    assert SEED_AGENT in data and word_in(Dialect.SERVICE, SEED_AGENT) not in data


def test_a_server_that_cannot_tell_its_dialect_stops_the_command(keyed: Scenario) -> None:
    """`auto` against a URL without an OpenAPI document: exit 1, an error naming the
    setting; the same with the dialect given sends the plan's requests."""
    with server(keyed.root, Dialect.SEED) as url:
        bogus = url + "/nothing-here"
        keyed.write_config(config(bogus, Dialect.SEED))
        failed = keyed.plan()
        assert failed.code == 1
        assert "[control_plane] dialect" in failed.err and "PLANNER_DIALECT" in failed.err
        given = keyed.plan("--dialect", "seed")
        assert "[control_plane] dialect" not in given.err
        assert "404" in given.err  # the plan's own request now: nothing is served there


def test_a_wrong_dialect_in_the_environment_is_a_config_error(
    keyed: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PLANNER_DIALECT must name auto, seed or service."""
    monkeypatch.setenv("PLANNER_DIALECT", "klingon")
    result = keyed.plan()
    assert result.code == 1
    assert "PLANNER_DIALECT" in result.err and "klingon" in result.err
