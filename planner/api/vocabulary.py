"""The one table of words the seed and the real service spell differently.

The seed is the real service's document with product names replaced by neutral words. The
pairs below are the whole difference in vocabulary; the server (`planner serve --dialect`),
the client (`[control_plane] dialect`) and the config (either spelling accepted) read them
from here, and no other module spells a dialect word. Inside `planner` (the state, plans,
saved plans, the store of the local control plane) the seed's word is the one kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Dialect(StrEnum):
    """Which words a server speaks: the seed's, or the real service's."""

    SEED = "seed"
    SERVICE = "service"


# The client's setting (`[control_plane] dialect`, PLANNER_DIALECT, --dialect): a dialect,
# or AUTO: ask the server (its OpenAPI document says which).
AUTO = "auto"
DIALECT_CHOICES: tuple[str, ...] = (AUTO, *Dialect)


def chosen_dialect(setting: str) -> Dialect | None:
    """The dialect a setting names; None for `auto`. ValueError for anything else."""
    if setting == AUTO:
        return None
    try:
        return Dialect(setting)
    except ValueError:
        raise ValueError(f"must be {', '.join(DIALECT_CHOICES)}, not {setting!r}") from None


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
# Every word of the table in the service's spelling (its source value and keys).
SERVICE_WORDS: frozenset[str] = frozenset(_SEED_OF)


def service_word(seed: str) -> str:
    """The real service's spelling of a seed word (any other word unchanged)."""
    return _SERVICE_OF.get(seed, seed)


def seed_word(word: str) -> str:
    """The seed's spelling of a word in either dialect (any other word unchanged)."""
    return _SEED_OF.get(word, word)


def seed_source(value: Any) -> Any:
    """A `source` value in the seed's word (`github` -> `git_host`); anything else as it is."""
    return _SEED_SOURCE.get(value, value) if isinstance(value, str) else value


_SEED_SOURCE: dict[str, str] = {service: seed for seed, service in SOURCE_WORDS}


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


def _renamed_keys(obj: Mapping[str, Any], word: Callable[[str], str]) -> dict[str, Any]:
    return {word(key): value for key, value in obj.items()}


def translate_body(body: Mapping[str, Any], to: Dialect) -> dict[str, Any]:
    """A deployment, revision or request body in `to`'s words (a new dict; what it does not
    name is kept as it is). The keys and values this table names are renamed: `source` and
    `revision_source`, `source_revision_config`'s keys, `source_config.resource_spec`'s
    keys."""
    names = _SERVICE_OF if to is Dialect.SERVICE else _SEED_OF
    return _respelled(body, lambda word: names.get(word, word))


def _respelled(body: Mapping[str, Any], word: Callable[[str], str]) -> dict[str, Any]:
    """BODY with the words of the table WORD spells (`translate_body`)."""
    out = dict(body)
    for key in ("source", "revision_source"):
        value = out.get(key)
        if isinstance(value, str):
            out[key] = word(value)
    return _with_nested_keys(out, lambda obj, _pairs: _renamed_keys(obj, word))


KeyMap = Callable[[Mapping[str, Any], tuple[tuple[str, str], ...]], dict[str, Any]]


def _with_nested_keys(out: dict[str, Any], keys: KeyMap) -> dict[str, Any]:
    """OUT with KEYS applied to the two objects whose keys the table names:
    `source_revision_config`, and `source_config.resource_spec` (a copy of `source_config`)."""
    revision = out.get("source_revision_config")
    if isinstance(revision, Mapping):
        out["source_revision_config"] = keys(revision, REVISION_CONFIG_KEYS)
    config = out.get("source_config")
    if isinstance(config, Mapping) and isinstance(config.get("resource_spec"), Mapping):
        config = dict(config)
        config["resource_spec"] = keys(config["resource_spec"], RESOURCE_SPEC_KEYS)
        out["source_config"] = config
    return out


# Where the table's keys are, as the parts of a field path from a deployment.
KEY_PLACES: tuple[tuple[str, ...], ...] = (
    ("source_revision_config",),
    ("source_config", "resource_spec"),
)


def dialect_of_document(document: Any) -> Dialect | None:
    """The dialect an OpenAPI document speaks, from the values its enums list: the seed's
    when one names the seed's git source (`git_host`), the service's when one names the
    service's (`github`); None when it names neither or both (it cannot tell)."""
    seed, service = SOURCE_WORDS[0]
    values = set(_enum_values(document))
    if (seed in values) == (service in values):
        return None
    return Dialect.SEED if seed in values else Dialect.SERVICE


def _enum_values(node: Any) -> Iterator[Any]:
    """Every value listed in an `enum` (or given as a `const`) anywhere in NODE."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            enum = item.get("enum")
            if isinstance(enum, list):
                yield from (value for value in enum if isinstance(value, str))
            if isinstance(item.get("const"), str):
                yield item["const"]
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


@dataclass(frozen=True)
class Spelling:
    """How a person wrote the words of the table (a config, or one deployment of it): what
    they read back is in their words. `written` holds the words they wrote (in either
    dialect); a word they did not write is spelled as the ones they did lean to (the
    service's as soon as they wrote one of its words, else the seed's)."""

    written: frozenset[str] = frozenset()

    @classmethod
    def of(cls, words: Iterable[str]) -> Spelling:
        """The spelling of a text that wrote WORDS (any words: only the table's count).
        Without a word of the service's, it is the seed's (`SEED_SPELLING`'s value)."""
        written = frozenset(word for word in words if other_spelling(word) is not None)
        return cls(written if not SERVICE_WORDS.isdisjoint(written) else frozenset())

    @property
    def leaning(self) -> Dialect:
        """The dialect of the words not written: the service's if any written word is."""
        return Dialect.SERVICE if any(w in _SEED_OF for w in self.written) else Dialect.SEED

    @classmethod
    def leaning_to(cls, dialect: Dialect) -> Spelling:
        """The spelling of one who wrote nothing yet and speaks DIALECT."""
        return cls.of([word_in(dialect, SOURCE_WORDS[0][0])])

    def word(self, word: str) -> str:
        """WORD (in either dialect) as this person spells it."""
        seed = _SEED_OF.get(word, word)
        service = _SERVICE_OF.get(seed)
        if service is None:
            return word
        if (seed in self.written) != (service in self.written):
            return seed if seed in self.written else service
        return word_in(self.leaning, seed)

    def loc(self, loc: Sequence[Any]) -> tuple[Any, ...]:
        """A field's location (the parts of its path from a deployment) in these words:
        the key right below one of the `KEY_PLACES` is the table's to spell."""
        return _spelled_loc(loc, self.word)

    def path(self, path: str) -> str:
        """A dotted field path (`source_revision_config.agent_config_path`) in these words."""
        if not self.written:
            return path
        return ".".join(self.loc(path.split(".")))

    def value(self, path: str, value: Any) -> Any:
        """The value of the field at PATH in these words (a `source`)."""
        if path == "source" and isinstance(value, str) and self.written:
            return self.word(value)
        return value

    def body(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """A deployment's table or body (`source`, the keys of `KEY_PLACES`) in these words."""
        return _respelled(body, self.word) if self.written else dict(body)

    def __or__(self, other: Spelling) -> Spelling:
        return Spelling(self.written | other.written)


SEED_SPELLING = Spelling()


def _spelled_loc(loc: Sequence[Any], word: Callable[[str], str]) -> tuple[Any, ...]:
    loc = tuple(loc)
    for place in KEY_PLACES:
        size = len(place)
        if len(loc) > size and loc[:size] == place and isinstance(loc[size], str):
            return (*place, word(loc[size]), *loc[size + 1 :])
    return loc


def seed_path(path: str) -> str:
    """A dotted field path written in either dialect's words, in the seed's."""
    return ".".join(_spelled_loc(path.split("."), seed_word))


def service_path(path: str) -> str:
    """A dotted field path in the service's words."""
    return ".".join(_spelled_loc(path.split("."), service_word))


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
    return translate_body(_with_nested_keys(dict(body), _only_service_keys), Dialect.SEED)


def _only_service_keys(
    obj: Mapping[str, Any], pairs: tuple[tuple[str, str], ...]
) -> dict[str, Any]:
    seed_keys = {seed for seed, _ in pairs}
    return {key: value for key, value in obj.items() if key not in seed_keys}


def is_seed_only_value(word: Any) -> bool:
    """WORD is a `source` value only the seed spells so (`git_host`): the service's enums
    refuse it."""
    return any(word == seed for seed, _ in SOURCE_WORDS)
