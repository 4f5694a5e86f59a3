"""Routes under /v2/deployments (placeholder until they land)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
