"""The two modes of a control plane (PRODUCT.md): a module of its own so that naming a
mode (`planner serve --mode`, the command-line parsers) imports no wire model."""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    CLOUD = "cloud"
    SELF_HOSTED = "self-hosted"
