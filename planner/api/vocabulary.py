"""The one table of words the seed and the real service spell differently.

The seed is the real service's document with product names replaced by neutral words. The
pairs below are the whole difference in vocabulary; the server (`planner serve --dialect`),
the client (`[control_plane] dialect`) and the config (either spelling accepted) read them
from here, and no other module spells a dialect word. Inside `planner` (the state, plans,
saved plans, the store of the local control plane) the seed's word is the one kept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class Dialect(StrEnum):
    """Which words a server speaks: the seed's, or the real service's."""

    SEED = "seed"
    SERVICE = "service"


# (seed word, service word), by where the word appears.
SOURCE_WORDS: tuple[tuple[str, str], ...] = (("git_host", "github"),)
REVISION_CONFIG_KEYS: tuple[tuple[str, str], ...] = (
    ("agent_config_path", "langgraph_config_path"),
)
RESOURCE_SPEC_KEYS: tuple[tuple[str, str], ...] = (
    ("cache_cpu", "redis_cpu"),
    ("cache_cpu_limit", "redis_cpu_limit"),
    ("cache_memory_mb", "redis_memory_mb"),
    ("cache_memory_limit_mb", "redis_memory_limit_mb"),
)
# The path segment of the repository-integration routes (`/v1/integrations/<word>/...`).
INTEGRATION_SEGMENT: tuple[str, str] = ("git_host", "github")

# The seed's git source and agent-config key, for code that must name them (rules, the
# local control plane): spelled once, here.
GIT_SOURCE = SOURCE_WORDS[0][0]
AGENT_CONFIG_KEY = REVISION_CONFIG_KEYS[0][0]

_SERVICE_OF: dict[str, str] = {
    seed: service
    for seed, service in (
        *SOURCE_WORDS,
        *REVISION_CONFIG_KEYS,
        *RESOURCE_SPEC_KEYS,
    )
}
_SEED_OF: dict[str, str] = {service: seed for seed, service in _SERVICE_OF.items()}


def service_word(seed: str) -> str:
    """The real service's spelling of a seed word (any other word unchanged)."""
    return _SERVICE_OF.get(seed, seed)


def seed_word(word: str) -> str:
    """The seed's spelling of a word in either dialect (any other word unchanged)."""
    return _SEED_OF.get(word, word)


def word_in(dialect: Dialect, seed: str) -> str:
    """`seed` as `dialect` spells it."""
    return seed if dialect is Dialect.SEED else service_word(seed)


def other_spelling(word: str) -> str | None:
    """The same word in the other dialect, or None when both spell it alike."""
    return _SERVICE_OF.get(word) or _SEED_OF.get(word)


def key_pairs(where: str) -> tuple[tuple[str, str], ...]:
    """The (seed, service) key pairs of one object: `source_revision_config` or
    `resource_spec`."""
    return {"source_revision_config": REVISION_CONFIG_KEYS, "resource_spec": RESOURCE_SPEC_KEYS}[
        where
    ]


def integration_path(dialect: Dialect, tail: str, *, forge: bool = False) -> str:
    """`/v1/integrations/<segment>/<tail>` in `dialect`'s segment (FORGE: the service's
    `/v1/integrations/forge/<segment>/<tail>` twin)."""
    segment = INTEGRATION_SEGMENT[0] if dialect is Dialect.SEED else INTEGRATION_SEGMENT[1]
    return f"/v1/integrations/{'forge/' if forge else ''}{segment}/{tail}"


def _renamed_keys(obj: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    return {names.get(key, key): value for key, value in obj.items()}


def translate_body(body: Mapping[str, Any], to: Dialect) -> dict[str, Any]:
    """A deployment, revision or request body in `to`'s words (a new dict; what it does not
    name is kept as it is). The keys and values this table names are renamed: `source` and
    `revision_source`, `source_revision_config`'s keys, `source_config.resource_spec`'s
    keys."""
    names = _SERVICE_OF if to is Dialect.SERVICE else _SEED_OF
    out = dict(body)
    for key in ("source", "revision_source"):
        value = out.get(key)
        if isinstance(value, str):
            out[key] = names.get(value, value)
    revision = out.get("source_revision_config")
    if isinstance(revision, Mapping):
        out["source_revision_config"] = _renamed_keys(revision, names)
    config = out.get("source_config")
    if isinstance(config, Mapping) and isinstance(config.get("resource_spec"), Mapping):
        config = dict(config)
        config["resource_spec"] = _renamed_keys(config["resource_spec"], names)
        out["source_config"] = config
    return out


def _word_pattern(words: Mapping[str, str]) -> re.Pattern[str]:
    """The table's words where they stand alone in a text: not inside a longer name
    (`cache_cpu` is not renamed inside `cache_cpu_limit`); a `_` before one still counts
    as a border, so a schema's name built from a word (`PatchBody_git_host`) follows it."""
    alternatives = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9])({alternatives})(?![A-Za-z0-9_])")


_SERVICE_WORD = _word_pattern(_SERVICE_OF)
_SEED_WORD = _word_pattern(_SEED_OF)


def translate_text(text: str, to: Dialect) -> str:
    """TEXT (a message, a path, a schema's name) with every word of the table in `to`'s
    spelling."""
    if to is Dialect.SERVICE:
        return _SERVICE_WORD.sub(lambda found: _SERVICE_OF[found.group(1)], text)
    return _SEED_WORD.sub(lambda found: _SEED_OF[found.group(1)], text)


def seed_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """A request body the real service's words were written in, in the seed's words, as the
    service reads it: a key spelled the seed's way is not one of its keys, so it is dropped
    (the service ignores keys it does not know) before the service's keys are renamed.
    Values of `source` and `revision_source` are renamed; a seed word there is the caller's
    to refuse (`is_seed_only_value`)."""
    out = dict(body)
    revision = out.get("source_revision_config")
    if isinstance(revision, Mapping):
        out["source_revision_config"] = _only_service_keys(revision, REVISION_CONFIG_KEYS)
    config = out.get("source_config")
    if isinstance(config, Mapping) and isinstance(config.get("resource_spec"), Mapping):
        config = dict(config)
        config["resource_spec"] = _only_service_keys(config["resource_spec"], RESOURCE_SPEC_KEYS)
        out["source_config"] = config
    return translate_body(out, Dialect.SEED)


def _only_service_keys(
    obj: Mapping[str, Any], pairs: tuple[tuple[str, str], ...]
) -> dict[str, Any]:
    seed_keys = {seed for seed, _ in pairs}
    return {key: value for key, value in obj.items() if key not in seed_keys}


def is_seed_only_value(word: Any) -> bool:
    """WORD is a `source` value only the seed spells so (`git_host`): the service's enums
    refuse it."""
    return any(word == seed for seed, _ in SOURCE_WORDS)
