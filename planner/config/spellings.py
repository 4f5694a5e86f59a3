"""A config may write the table's words either way (`planner.api.vocabulary`).

`source = "github"` is `git_host`, `langgraph_config_path` is `agent_config_path`,
`redis_*` is `cache_*`: the wire models read both (their validation aliases), the unknown
key walk knows both (`planner.config.keys`). Here: which words a deployment's table wrote
(its `Spelling`, so that what a person reads back is in their words), and one field
spelled both ways in one deployment, which is a problem naming both.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from planner.api.vocabulary import (
    KEY_PLACES,
    SEED_SPELLING,
    SERVICE_WORDS,
    Spelling,
    other_spelling,
    seed_word,
)
from planner.config.diagnostics import Loc, Problem


def written_spelling(table: Mapping[str, Any]) -> Spelling:
    """The words of the table a deployment's (merged) table wrote: its `source` and the
    keys of its `source_revision_config` and `resource_spec` (`SEED_SPELLING` when none
    is the service's: most tables, told apart by `has_service_words` first)."""
    if not has_service_words(table):
        return SEED_SPELLING
    words = [key for _, key in _placed_keys(table)]
    source = table.get("source")
    if isinstance(source, str):
        words.append(source)
    return Spelling.of(words)


def both_spellings(table: Mapping[str, Any]) -> list[Problem]:
    """A problem for each field a deployment's table spells both ways (at the key in the
    service's words; the message names both)."""
    problems: list[Problem] = []
    if not has_service_words(table):
        return problems
    for place, key in _placed_keys(table):
        other = other_spelling(key)
        if other is None or seed_word(key) == key or other not in _at(table, place):
            continue  # from the service's word only: each pair is told once
        problems.append(
            Problem(
                (*place, key),
                f"'{other}' and '{key}' are one field (the two dialects' words for it): keep one",
            )
        )
    return problems


def has_service_words(table: Mapping[str, Any]) -> bool:
    """Whether a deployment's table writes a word of the table in the service's spelling
    (asked for every deployment: plain dict look-ups, the tables a file parses to)."""
    source = table.get("source")
    if type(source) is str and source in SERVICE_WORDS:
        return True
    revision = table.get("source_revision_config")
    if isinstance(revision, dict) and not SERVICE_WORDS.isdisjoint(revision):
        return True
    config = table.get("source_config")
    spec = config.get("resource_spec") if isinstance(config, dict) else None
    return isinstance(spec, dict) and not SERVICE_WORDS.isdisjoint(spec)


def _placed_keys(table: Mapping[str, Any]) -> Iterator[tuple[Loc, str]]:
    for place in KEY_PLACES:
        for key in _at(table, place):
            if isinstance(key, str):
                yield place, key


def _at(table: Mapping[str, Any], place: Loc) -> Mapping[str, Any]:
    node: Any = table
    for part in place:
        node = node.get(part) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else {}
