"""A config may spell the dialects' words either way: both load alike, a field spelled both
ways is a problem naming both, and problems are located in the words the config wrote."""

from __future__ import annotations

import jsonschema
import pytest

from planner.api.vocabulary import (
    RESOURCE_SPEC_KEYS,
    REVISION_CONFIG_KEYS,
    SOURCE_WORDS,
    Dialect,
    word_in,
)
from planner.config.json_schema import config_schema
from tests.config.conftest import Loader, ProblemsOf

SEED_GIT, SERVICE_GIT = SOURCE_WORDS[0]
SEED_AGENT, SERVICE_AGENT = REVISION_CONFIG_KEYS[0]
SEED_CACHE_CPU, SERVICE_CACHE_CPU = RESOURCE_SPEC_KEYS[0]
SEED_CACHE_MB, SERVICE_CACHE_MB = RESOURCE_SPEC_KEYS[2]


def git_table(dialect: Dialect, *, agent: bool = True, extra: str = "") -> str:
    """A git deployment written in DIALECT's words (AGENT: with its agent config path)."""
    agent_line = f'{word_in(dialect, SEED_AGENT)} = "agent.json"\n' if agent else ""
    return (
        f'[deployments.api]\nsource = "{word_in(dialect, SEED_GIT)}"\n'
        "[deployments.api.source_config]\n"
        'integration_id = "9a0e7c55-0000-4000-8000-00000000a001"\n'
        'repo_url = "https://git.example.com/acme/api"\n'
        "[deployments.api.source_config.resource_spec]\n"
        f"{word_in(dialect, SEED_CACHE_CPU)} = 0.5\n{word_in(dialect, SEED_CACHE_MB)} = 512\n"
        f'[deployments.api.source_revision_config]\nrepo_ref = "main"\n{agent_line}{extra}'
    )


def test_both_dialects_load_to_the_same_desired_state(load: Loader) -> None:
    """A deployment written in the service's words is the one written in the seed's: the
    desired state (the state's and the plan's words) is the seed's either way."""
    seed = load(git_table(Dialect.SEED)).deployments["api"]
    service = load(git_table(Dialect.SERVICE)).deployments["api"]
    assert service.managed() == seed.managed()
    assert service.managed()["source"] == SEED_GIT
    assert service.spelling.leaning is Dialect.SERVICE
    assert seed.spelling.leaning is Dialect.SEED


def test_a_field_spelled_both_ways_is_a_problem_naming_both(problems_of: ProblemsOf) -> None:
    """`agent_config_path` beside `langgraph_config_path` in one deployment: one problem
    naming both words."""
    text = git_table(Dialect.SERVICE, extra=f'{SEED_AGENT} = "other.json"\n')
    [problem] = problems_of(text)
    assert f"deployments.api.source_revision_config.{SERVICE_AGENT}:" in problem
    assert f"'{SEED_AGENT}'" in problem and f"'{SERVICE_AGENT}'" in problem


def test_a_field_spelled_both_ways_across_defaults_is_a_problem(problems_of: ProblemsOf) -> None:
    """`[defaults]` in the seed's words under a deployment in the service's, for the same
    field: a problem at the deployment, naming both."""
    defaults = f"[defaults.source_config.resource_spec]\n{SEED_CACHE_CPU} = 1\n\n"
    problems = problems_of(defaults + git_table(Dialect.SERVICE))
    assert any(
        f"resource_spec.{SERVICE_CACHE_CPU}:" in line and f"'{SEED_CACHE_CPU}'" in line
        for line in problems
    ), problems


def test_both_spellings_in_defaults_are_told_once(problems_of: ProblemsOf) -> None:
    """Both spellings in `[defaults]` are reported there, not again for each deployment."""
    defaults = f"[defaults.source_config.resource_spec]\n{SEED_CACHE_MB} = 1\n"
    defaults += f"{SERVICE_CACHE_MB} = 2\n\n"
    docker = (
        '[deployments.{0}]\nsource = "internal_docker"\n'
        '[deployments.{0}.source_revision_config]\nimage_uri = "r/{0}:1"\n'
    )
    problems = problems_of(defaults + docker.format("a") + docker.format("b"))
    assert len(problems) == 1 and "defaults.source_config.resource_spec" in problems[0]


def test_problems_are_located_in_the_words_the_config_wrote(problems_of: ProblemsOf) -> None:
    """A `github` deployment without its agent config path is told so in the service's
    word; a seed deployment in the seed's."""
    service = problems_of(git_table(Dialect.SERVICE, agent=False))
    seed = problems_of(git_table(Dialect.SEED, agent=False))
    assert any(f"source_revision_config.{SERVICE_AGENT}" in line for line in service), service
    assert any(f"source_revision_config.{SEED_AGENT}" in line for line in seed), seed
    assert not any(SEED_AGENT in line for line in service)


def test_a_wrong_value_is_located_at_the_key_written(problems_of: ProblemsOf) -> None:
    """A value of the wrong type under the service's key is reported at that key."""
    text = git_table(Dialect.SERVICE).replace(
        f"{SERVICE_CACHE_CPU} = 0.5", f'{SERVICE_CACHE_CPU} = "half"'
    )
    [problem] = problems_of(text)
    assert f"resource_spec.{SERVICE_CACHE_CPU}: must be a number" in problem


def test_a_misspelt_service_word_is_an_unknown_key_with_a_suggestion(
    problems_of: ProblemsOf,
) -> None:
    """A typo of a service's key is an unknown key, and the suggestion is that key."""
    text = git_table(Dialect.SERVICE).replace(SERVICE_CACHE_MB, SERVICE_CACHE_MB + "x")
    [problem] = problems_of(text)
    assert f"did you mean '{SERVICE_CACHE_MB}'?" in problem


@pytest.mark.parametrize("dialect", list(Dialect))
def test_the_json_schema_accepts_either_dialect(dialect: Dialect) -> None:
    """The editor schema takes a deployment in either dialect's words, and refuses one
    field spelled both ways."""
    schema = config_schema()
    deployment = {
        "source": word_in(dialect, SEED_GIT),
        "source_config": {"resource_spec": {word_in(dialect, SEED_CACHE_CPU): 0.5}},
        "source_revision_config": {word_in(dialect, SEED_AGENT): "agent.json"},
    }
    jsonschema.validate({"deployments": {"api": deployment}}, schema)
    deployment["source_revision_config"] = {SEED_AGENT: "a.json", SERVICE_AGENT: "a.json"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"deployments": {"api": deployment}}, schema)


def test_ignore_changes_take_either_words(load: Loader) -> None:
    """An ignore_changes path in the service's words ignores the field the seed's path
    names (the plan compares the seed's)."""
    table = git_table(Dialect.SERVICE)
    path = f"source_config.resource_spec.{SERVICE_CACHE_CPU}"
    table += f'[deployments.api.lifecycle]\nignore_changes = ["{path}"]\n'
    desired = load(table).deployments["api"]
    assert desired.lifecycle.ignore_changes == (f"source_config.resource_spec.{SEED_CACHE_CPU}",)
