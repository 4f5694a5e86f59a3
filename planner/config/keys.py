"""Walk raw config data against the models: unknown keys, nulls, duplicates, dates.

The wire models ignore unknown keys (real servers send extras), so the config layer walks
the raw data itself and reports each unknown key at its own path with a "did you mean"
suggestion. Free-form objects (labels, annotations, volume sources...) are not walked.
"""

from __future__ import annotations

import datetime as dt
import math
import types
import typing
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel

from planner.api.models import SourceRevisionConfig
from planner.config.diagnostics import Loc, Problem, did_you_mean
from planner.config.models import ControlPlaneConfig, DefaultsSpec, TemplateSpec

# Keys that are model fields but must not be written in a config, and why.
_NOT_CONFIGURABLE: dict[tuple[type[BaseModel], str], str] = {
    (SourceRevisionConfig, "repo_commit_sha"): (
        "is set by the service (response only) and cannot be configured"
    ),
}
_ONLY_DEPLOYMENTS_NAME = (
    "only a [deployments.<name>] table can give its own remote name (`name = ...`)"
)
# Keys people reach for that are deliberately absent, with the way out.
_HINTS: dict[tuple[type[BaseModel], str], str] = {
    (ControlPlaneConfig, "api_key"): "the API key is never read from the config file; "
    "set the PLANNER_API_KEY environment variable",
    (DefaultsSpec, "name"): _ONLY_DEPLOYMENTS_NAME,
    (TemplateSpec, "name"): _ONLY_DEPLOYMENTS_NAME,
}
_SECRET_KEYS = {"api_key", "apikey", "key", "token", "api_token", "password"}


class DuplicateKeys(dict[str, Any]):
    """A JSON object that remembers the keys it saw more than once (last value kept)."""

    duplicates: list[str]


def json_object(pairs: list[tuple[str, Any]]) -> DuplicateKeys:
    """`json.load` object_pairs_hook: keep the last value, remember repeated keys."""
    obj = DuplicateKeys()
    obj.duplicates = []
    for key, value in pairs:
        if key in obj:
            obj.duplicates.append(key)
        obj[key] = value
    return obj


def check_raw_values(data: Any, loc: Loc = ()) -> Iterator[Problem]:
    """Duplicate JSON keys, TOML dates/times, inf/nan anywhere (none has a wire form)."""
    if isinstance(data, Mapping):
        for key in getattr(data, "duplicates", ()):
            yield Problem((*loc, key), f"duplicate key '{key}' (each key may appear once)")
        for key, value in data.items():
            yield from check_raw_values(value, (*loc, key))
    elif isinstance(data, list):
        for index, item in enumerate(data):
            yield from check_raw_values(item, (*loc, index))
    elif isinstance(data, dt.date | dt.time):
        yield Problem(loc, "dates and times are not supported; write the value as a string")
    elif isinstance(data, float) and not math.isfinite(data):
        yield Problem(loc, "must be a finite number")


def check_keys(model: type[BaseModel], data: Any, loc: Loc) -> Iterator[Problem]:
    """Unknown keys and nulls in `data` (raw) against `model`, recursively."""
    if not isinstance(data, Mapping):
        return
    fields = _keys_of(model)
    for key, value in data.items():
        here = (*loc, key)
        annotation = fields.get(key)
        if annotation is None:
            yield Problem(here, _unknown_key_message(model, key, fields))
        elif (model, key) in _NOT_CONFIGURABLE:
            yield Problem(here, _NOT_CONFIGURABLE[(model, key)])
        elif value is None:
            yield Problem(here, "null is not allowed; leave the key out to leave it unmanaged")
        else:
            yield from _check_value(annotation, value, here)


def _unknown_key_message(model: type[BaseModel], key: str, fields: Mapping[str, Any]) -> str:
    hint = _HINTS.get((model, key))
    if hint is None and model is ControlPlaneConfig and key.lower() in _SECRET_KEYS:
        hint = _HINTS[(ControlPlaneConfig, "api_key")]
    if hint is not None:
        return f"unknown key: {hint}"
    options = [name for name in fields if (model, name) not in _NOT_CONFIGURABLE]
    return f"unknown key{did_you_mean(key, options)}"


@cache
def _keys_of(model: type[BaseModel]) -> dict[str, Any]:
    return {info.alias or name: info.annotation for name, info in model.model_fields.items()}


@cache
def _shape(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """`(origin, args)` of an annotation (asked for every value of every deployment)."""
    return typing.get_origin(annotation), typing.get_args(annotation)


def _check_value(annotation: Any, value: Any, loc: Loc) -> Iterator[Problem]:
    """Descend into the parts of `annotation` that are models (through unions and lists)."""
    origin, args = _shape(annotation)
    if origin is typing.Annotated:
        yield from _check_value(args[0], value, loc)
    elif origin in (typing.Union, types.UnionType):
        yield from _check_union(args, value, loc)
    elif origin in (list, tuple) and isinstance(value, list):
        for index, item in enumerate(value):
            yield from _check_value(args[0], item, (*loc, index))
    elif origin is dict and isinstance(value, Mapping):
        for key, item in value.items():
            yield from _check_value(args[1], item, (*loc, key))
    elif _is_model(annotation):
        yield from check_keys(annotation, value, loc)


def _check_union(options: tuple[Any, ...], value: Any, loc: Loc) -> Iterator[Problem]:
    present = [option for option in options if option is not type(None)]
    if len(present) == 1:
        yield from _check_value(present[0], value, loc)
        return
    models = [option for option in present if _is_model(option)]
    if models and isinstance(value, Mapping):
        yield from check_keys(models[0], value, loc)


@cache
def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)
