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
from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import AliasChoices, BaseModel

from planner.api.models import SourceRevisionConfig
from planner.config.diagnostics import Loc, Problem
from planner.config.models import ControlPlaneConfig, DefaultsSpec, TemplateSpec
from planner.errors import did_you_mean

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


def check_raw_values(data: Any, loc: Loc = ()) -> list[Problem]:
    """Duplicate JSON keys, TOML dates/times, inf/nan anywhere (none has a wire form)."""
    found: list[Problem] = []
    _check_raw(data, loc, found)
    return found


def _check_raw(data: Any, loc: Loc, found: list[Problem]) -> None:
    kind = type(data)  # exact types first: most values are strings and plain tables
    if kind is str:
        return
    if kind is dict or (kind is not list and isinstance(data, Mapping)):
        for key in () if kind is dict else getattr(data, "duplicates", ()):
            found.append(Problem((*loc, key), f"duplicate key '{key}' (each key may appear once)"))
        for key, value in data.items():
            if type(value) is not str:
                _check_raw(value, (*loc, key), found)
    elif kind is list:
        for index, item in enumerate(data):
            _check_raw(item, (*loc, index), found)
    elif isinstance(data, dt.date | dt.time):
        found.append(Problem(loc, "dates and times are not supported; write the value as a string"))
    elif isinstance(data, float) and not math.isfinite(data):
        found.append(Problem(loc, "must be a finite number"))


def check_keys(model: type[BaseModel], data: Any, loc: Loc) -> list[Problem]:
    """Unknown keys and nulls in `data` (raw) against `model`, recursively."""
    found: list[Problem] = []
    _check_keys(model, data, loc, found)
    return found


def _check_keys(model: type[BaseModel], data: Any, loc: Loc, found: list[Problem]) -> None:
    if type(data) is not dict and not isinstance(data, Mapping):
        return
    targets = _targets_of(model)
    for key, value in data.items():
        target = targets.get(key, _UNKNOWN)
        if target is None and value is not None:
            continue  # most keys: a scalar's value has no keys to check
        if target is _UNKNOWN:
            found.append(Problem((*loc, key), _unknown_key_message(model, key, _keys_of(model))))
        elif target is _BLOCKED:
            found.append(Problem((*loc, key), _NOT_CONFIGURABLE[(model, key)]))
        elif value is None:
            message = "null is not allowed; leave the key out to leave it unmanaged"
            found.append(Problem((*loc, key), message))
        elif _is_model(target):
            _check_keys(target, value, (*loc, key), found)
        else:
            _check_value(target, value, (*loc, key), found)


# What a field's value is walked as (`_targets_of`), besides its annotation or model.
_UNKNOWN: Any = object()  # no such field
_BLOCKED: Any = object()  # a field that cannot be configured (`_NOT_CONFIGURABLE`)


@cache
def _targets_of(model: type[BaseModel]) -> dict[str, Any]:
    """MODEL's keys, each with what its value is walked against: None for a value with no
    keys to check, `_BLOCKED`, the model a table must match (through `Annotated` and
    `| None`), or the annotation to descend into (lists, dicts, other unions)."""
    targets: dict[str, Any] = {}
    for key, annotation in _keys_of(model).items():
        if (model, key) in _NOT_CONFIGURABLE:
            targets[key] = _BLOCKED
        elif not _has_models(annotation):
            targets[key] = None
        else:
            targets[key] = _the_model(annotation) or annotation
    return targets


def _the_model(annotation: Any) -> type[BaseModel] | None:
    """The one model ANNOTATION is (`M`, `Annotated[M, ...]`, `M | None`), if it is one."""
    origin, args = _shape(annotation)
    if origin is typing.Annotated:
        return _the_model(args[0])
    if origin in (typing.Union, types.UnionType):
        present = [option for option in args if option is not type(None)]
        return _the_model(present[0]) if len(present) == 1 else None
    return annotation if _is_model(annotation) else None


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
    """MODEL's keys (a field's alias, else its name; each spelling it reads, when the
    dialects spell it differently), each with its field's annotation."""
    keys = {}
    for name, info in model.model_fields.items():
        keys[info.alias or name] = info.annotation
        if isinstance(info.validation_alias, AliasChoices):
            for choice in info.validation_alias.choices:
                if isinstance(choice, str):
                    keys[choice] = info.annotation
    return keys


@cache
def _shape(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """`(origin, args)` of an annotation (asked for every value of every deployment)."""
    return typing.get_origin(annotation), typing.get_args(annotation)


def _check_value(annotation: Any, value: Any, loc: Loc, found: list[Problem]) -> None:
    """Descend into the parts of `annotation` that are models (through unions and lists)."""
    origin, args = _shape(annotation)
    if origin is typing.Annotated:
        _check_value(args[0], value, loc, found)
    elif origin in (typing.Union, types.UnionType):
        _check_union(args, value, loc, found)
    elif origin in (list, tuple) and isinstance(value, list):
        for index, item in enumerate(value):
            _check_value(args[0], item, (*loc, index), found)
    elif origin is dict and isinstance(value, Mapping):
        for key, item in value.items():
            _check_value(args[1], item, (*loc, key), found)
    elif _is_model(annotation):
        _check_keys(annotation, value, loc, found)


def _check_union(options: tuple[Any, ...], value: Any, loc: Loc, found: list[Problem]) -> None:
    present = [option for option in options if option is not type(None)]
    if len(present) == 1:
        _check_value(present[0], value, loc, found)
        return
    models = [option for option in present if _is_model(option)]
    if models and isinstance(value, Mapping):
        _check_keys(models[0], value, loc, found)


@cache
def _has_models(annotation: Any) -> bool:
    """Whether `_check_value` could reach a model in `annotation` (else a value of it has
    no keys to check)."""
    origin, args = _shape(annotation)
    if origin is typing.Annotated or origin in (list, tuple):
        return _has_models(args[0])
    if origin in (typing.Union, types.UnionType):
        return any(_has_models(option) for option in args if option is not type(None))
    if origin is dict:
        return _has_models(args[1])
    return _is_model(annotation)


@cache
def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)
