"""The table of the two dialects' words: how an OpenAPI document tells its dialect, the
dialect setting, and how a person's spelling words what they read."""

from __future__ import annotations

from typing import Any

import pytest

from planner.api.vocabulary import (
    DIALECT_CHOICES,
    RESOURCE_SPEC_KEYS,
    REVISION_CONFIG_KEYS,
    SEED_SPELLING,
    SOURCE_WORDS,
    Dialect,
    Spelling,
    chosen_dialect,
    dialect_of_document,
    seed_source,
    translate_body,
)
from planner.config.models import ControlPlaneConfig

SEED_GIT, SERVICE_GIT = SOURCE_WORDS[0]
SEED_AGENT, SERVICE_AGENT = REVISION_CONFIG_KEYS[0]
SEED_CPU, SERVICE_CPU = RESOURCE_SPEC_KEYS[0]


def nested(*values: str) -> dict[str, Any]:
    """A document whose only enum, deep inside, lists VALUES."""
    return {"paths": {"/x": {"post": {"requestBody": [{"schema": {"enum": list(values)}}]}}}}


@pytest.mark.parametrize(
    ("document", "dialect"),
    [
        (nested(SEED_GIT, "internal_docker"), Dialect.SEED),
        (nested(SERVICE_GIT, "internal_docker"), Dialect.SERVICE),
        ({"components": {"schemas": {"Source": {"const": SERVICE_GIT}}}}, Dialect.SERVICE),
        (nested("internal_docker"), None),
        (nested(SEED_GIT, SERVICE_GIT), None),
        ({"info": {"description": f"mentions {SERVICE_GIT} in prose"}}, None),
        ([], None),
    ],
)
def test_a_document_tells_its_dialect_by_its_enums(document: Any, dialect: Dialect | None) -> None:
    """An enum (or const) naming one dialect's git source decides; prose, neither word or
    both decide nothing."""
    assert dialect_of_document(document) is dialect


def test_the_dialect_setting_names_a_dialect_or_auto() -> None:
    """`auto` is None (ask the server), a dialect itself, anything else refused; the
    config's field takes the same choices."""
    assert chosen_dialect("auto") is None
    assert [chosen_dialect(d.value) for d in Dialect] == list(Dialect)
    with pytest.raises(ValueError, match="auto, seed, service"):
        chosen_dialect("github")
    config_choices = ControlPlaneConfig.model_json_schema()["properties"]["dialect"]
    assert set(config_choices["anyOf"][0]["enum"]) == set(DIALECT_CHOICES)


def test_a_source_reads_in_the_seeds_word() -> None:
    """The service's git source is the seed's; every other value stays as it is."""
    assert seed_source(SERVICE_GIT) == SEED_GIT
    assert seed_source("internal_docker") == "internal_docker"
    assert seed_source(7) == 7


def test_translating_there_and_back_is_the_identity() -> None:
    """A body in the seed's words, put in the service's and back, is unchanged; keys
    no pair names (and the values of other keys) are kept."""
    body = {
        "source": SEED_GIT,
        "name": SEED_GIT,
        "source_config": {"resource_spec": {SEED_CPU: 1, "future": {"x": 1}}, "repo_url": "u"},
        "source_revision_config": {SEED_AGENT: "a.json", "repo_ref": "main"},
    }
    service = translate_body(body, Dialect.SERVICE)
    assert service["source"] == SERVICE_GIT and service["name"] == SEED_GIT
    assert service["source_config"]["resource_spec"] == {SERVICE_CPU: 1, "future": {"x": 1}}
    assert translate_body(service, Dialect.SEED) == body


def test_a_spelling_follows_what_was_written_then_leans() -> None:
    """A word written is spelled as written; one not written follows the dialect the
    written ones lean to (the service's as soon as one is its)."""
    mixed = Spelling.of([SERVICE_GIT, SEED_AGENT, "cpu"])
    assert mixed.leaning is Dialect.SERVICE
    assert mixed.word(SEED_GIT) == SERVICE_GIT
    assert mixed.word(SERVICE_AGENT) == SEED_AGENT  # written the seed's way
    assert mixed.word(SEED_CPU) == SERVICE_CPU  # not written: leaning
    assert mixed.word("repo_ref") == "repo_ref"
    assert Spelling.of([SEED_GIT, SEED_AGENT]) == SEED_SPELLING
    assert SEED_SPELLING.word(SERVICE_CPU) == SEED_CPU


def test_a_spelling_words_paths_only_where_the_table_has_keys() -> None:
    """Paths are spelled at the keys of source_revision_config and resource_spec only; a
    free-form key of the same name elsewhere stays; a source value follows."""
    service = Spelling.leaning_to(Dialect.SERVICE)
    assert service.path(f"source_revision_config.{SEED_AGENT}") == (
        f"source_revision_config.{SERVICE_AGENT}"
    )
    assert service.path(f"source_config.resource_spec.{SEED_CPU}") == (
        f"source_config.resource_spec.{SERVICE_CPU}"
    )
    labels = f"source_config.resource_spec.labels.{SEED_CPU}"
    assert service.path(labels) == labels
    assert service.value("source", SEED_GIT) == SERVICE_GIT
    assert service.value("display_name", SEED_GIT) == SEED_GIT
    assert service.loc(("source_revision_config", SEED_AGENT, 0)) == (
        "source_revision_config",
        SERVICE_AGENT,
        0,
    )
