"""`planner.pydantic_internals`: the pydantic storage it reads and writes is where pydantic
keeps it (a pydantic release that moves it fails here first), and it is the one module
of `planner/` that names that storage."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pydantic
import pytest
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from planner.pydantic_internals import (
    field_values,
    private_values,
    serializer,
    set_field_value,
    set_given_names,
    unvalidated,
)

PLANNER = Path(__file__).resolve().parent.parent / "planner"
# the storage names; `__dict__` of a model counts, `__dict__` of anything else does not
# occur in planner/ (a test below keeps it so)
_INTERNAL = re.compile(r"__pydantic_\w+__|\.__dict__\b")


class Part(BaseModel):
    model_config = ConfigDict(frozen=True)

    size: int
    label: str = "none"
    tags: list[str] = Field(default_factory=list)


class WithPrivate(BaseModel):
    name: str
    _count: int = PrivateAttr(default=3)


def test_the_pydantic_release_is_one_this_module_was_checked_against() -> None:
    """pydantic 2 keeps the storage this module names; a major release may not."""
    assert pydantic.VERSION.split(".")[0] == "2"


def test_field_values_are_the_models_fields_in_order() -> None:
    """`field_values` is every field of the model by name, in declaration order."""
    part = Part(size=2, tags=["a"])
    assert field_values(part) == {"size": 2, "label": "none", "tags": ["a"]}
    assert list(field_values(part)) == list(Part.model_fields)


def test_a_field_value_is_set_without_validation_on_a_frozen_model() -> None:
    """`set_field_value` replaces a field's value of a frozen model; the given names stay."""
    part = Part(size=2)
    shared = ["x"]
    set_field_value(part, "tags", shared)
    assert part.tags is shared
    assert part.model_fields_set == {"size"}
    with pytest.raises(pydantic.ValidationError):
        part.tags = []  # type: ignore[misc]  # the public way stays refused


def test_given_names_are_the_set_pydantic_reads() -> None:
    """`set_given_names` makes the set a dump with `exclude_unset` reads."""
    part = Part(size=2, label="l")
    names = {"size", "label"}
    set_given_names(part, names)
    assert part.model_fields_set is names
    assert part.model_dump(exclude_unset=True) == {"size": 2, "label": "l"}


def test_an_unvalidated_instance_is_the_validated_one() -> None:
    """`unvalidated` makes what validation makes of the same values: equal, the same JSON,
    the same given names, and a copy with an update works."""
    values: dict[str, Any] = {"size": 5, "label": "none", "tags": ["t"]}
    built = unvalidated(Part, dict(values), {"size", "tags"})
    checked = Part(size=5, tags=["t"])
    assert built == checked
    assert built.model_dump_json() == checked.model_dump_json()
    assert built.model_fields_set == checked.model_fields_set
    assert built.model_copy(update={"label": "x"}).label == "x"


def test_private_values_hold_the_private_attributes() -> None:
    """`private_values` is the dict pydantic keeps private attributes in, defaults set."""
    model = WithPrivate(name="n")
    assert private_values(model) == {"_count": 3}
    model._count = 4
    assert private_values(model)["_count"] == 4
    assert private_values(WithPrivate.model_construct(name="m")) == {"_count": 3}


def test_the_serializer_dumps_as_model_dump_does() -> None:
    """`serializer(cls).to_python` gives what `model_dump` gives, with the same options."""
    part = Part(size=1, tags=["a"])
    dump = serializer(Part).to_python(part, mode="json", exclude_unset=True)
    assert dump == part.model_dump(mode="json", exclude_unset=True)


def test_no_other_module_names_pydantic_storage() -> None:
    """Every `__pydantic_*__` and model `__dict__` of planner/ is in pydantic_internals.py."""
    named = [
        f"{path.relative_to(PLANNER)}:{number}"
        for path in sorted(PLANNER.rglob("*.py"))
        if path.name != "pydantic_internals.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _INTERNAL.search(line)
    ]
    assert named == []
