"""Routes for OAuth providers, repository integrations and tracing projects (placeholder)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
