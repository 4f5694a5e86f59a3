"""The packages that import their members on first use: every exported name resolves to
the object its home module defines, an unknown one is an AttributeError."""

from __future__ import annotations

import importlib

import pytest

LAZY_PACKAGES = ["planner.apply", "planner.config", "planner.state"]


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_exported_name_is_its_home_modules_object(package: str) -> None:
    """`from planner.state import StateDocument` gives planner.state.document's class."""
    module = importlib.import_module(package)
    for name in module.__all__:
        found = getattr(module, name)
        assert found.__module__.startswith(f"{package}.")
        home = importlib.import_module(found.__module__)
        assert getattr(home, name) is found


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_an_unknown_name_is_an_attribute_error(package: str) -> None:
    """A name the package does not export fails as any missing attribute does."""
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # noqa: B018
    assert not hasattr(module, "no_such_name")
