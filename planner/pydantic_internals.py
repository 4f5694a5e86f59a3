"""Every read and write of pydantic's per-instance storage, in one place.

A pydantic model keeps its field values in `__dict__`, the names given to it in
`__pydantic_fields_set__`, its private attributes in `__pydantic_private__`, and its class
dumps through `__pydantic_serializer__`. The planner goes to them directly where the
public way costs what a large fleet multiplies (a wrapper call per dump, a validation per
built value, a set of names per instance, pydantic's `__getattr__` per private read; the
figures are in docs/guides/performance.md). Nothing else in `planner/` names them:
`tests/test_pydantic_internals.py` pins the storage this module relies on, so that a
pydantic release that moves it fails there first.

A root module (as `planner.files`): config, plan and state all use it, and config may not
import the state package.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import SchemaSerializer

_Model = TypeVar("_Model", bound=BaseModel)


def field_values(model: BaseModel) -> dict[str, Any]:
    """MODEL's field values by name, as stored (read them, never change them through this:
    see `set_field_value`)."""
    values: dict[str, Any] = model.__dict__
    return values


def set_field_value(model: BaseModel, name: str, value: Any) -> None:
    """Put VALUE (already of the field's type, equal to what is there: a shared copy) in
    MODEL's field NAME without validation, frozen model or not; what MODEL was given is
    unchanged."""
    model.__dict__[name] = value


def set_given_names(model: BaseModel, names: set[str]) -> None:
    """Make NAMES (equal to MODEL's `model_fields_set`, shared with other instances) the
    set MODEL counts as given."""
    object.__setattr__(model, "__pydantic_fields_set__", names)


def unvalidated(cls: type[_Model], values: dict[str, Any], given: set[str]) -> _Model:
    """An instance of CLS holding VALUES (every field, in order, of its type) as they are,
    GIVEN as its set of given names: what `model_construct` makes, without its per-field
    work. No extra fields, no private attributes (the classes it builds have none)."""
    instance = cls.__new__(cls)
    set_attribute = object.__setattr__  # as `model_construct` does: the model may be frozen
    set_attribute(instance, "__dict__", values)
    set_attribute(instance, "__pydantic_fields_set__", given)
    set_attribute(instance, "__pydantic_extra__", None)
    set_attribute(instance, "__pydantic_private__", None)
    return instance


def private_values(model: BaseModel) -> dict[str, Any]:
    """MODEL's private attributes by name (read without pydantic's `__getattr__`); a model
    with private attributes always has them set, however it was made."""
    private = model.__pydantic_private__
    assert private is not None
    return private


def serializer(cls: type[BaseModel]) -> SchemaSerializer:
    """CLS's serializer: `serializer(cls).to_python(model, ...)` is `model.model_dump(...)`
    without its wrapper (a model of CLS)."""
    return cls.__pydantic_serializer__
