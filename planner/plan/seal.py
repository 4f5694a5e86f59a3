"""The seal of a saved plan: an HMAC-SHA256, under the state's plan key, of its content.

A plain hash would catch accidental edits only: whoever edits the file can recompute it.
The key lives beside the state (`planner.state.plan_key`), never in the plan file, so a
seal can be made only by someone who can already read the state. `key_id` (a hash of the
key, not the key) tells "sealed for another state" apart from "altered".
"""

from __future__ import annotations

import hashlib
import hmac
import os
from typing import Literal

from pydantic import BaseModel, ConfigDict

from planner.errors import PlanTamperedError

ALGORITHM: Literal["hmac-sha256"] = "hmac-sha256"
_CONTEXT = b"planner-saved-plan\0"
REPLAN_HINT = (
    "nothing was applied; run `planner plan --out FILE` again, review it, and apply that file"
)


class Seal(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    algorithm: Literal["hmac-sha256"] = ALGORITHM
    key_id: str
    digest: str


def key_id(key: bytes) -> str:
    """A short public name of KEY (16 hex digits of a hash; reveals nothing of it)."""
    return hashlib.sha256(b"planner-plan-key-id\0" + key).hexdigest()[:16]


def seal_digest(key: bytes, content: bytes) -> str:
    return f"{ALGORITHM}:{hmac.new(key, _CONTEXT + content, hashlib.sha256).hexdigest()}"


def make_seal(key: bytes, content: bytes) -> Seal:
    return Seal(key_id=key_id(key), digest=seal_digest(key, content))


def verify_seal(
    seal: Seal | None, key: bytes | None, content: bytes, source: str | os.PathLike[str]
) -> None:
    """Raise PlanTamperedError unless SEAL is KEY's HMAC of CONTENT (compared in constant time)."""
    if seal is None:
        raise PlanTamperedError(
            f"the plan file {source} has no seal (not written by `planner plan --out`, "
            "or by an older planner)",
            hint=REPLAN_HINT,
        )
    if key is None:
        raise PlanTamperedError(
            f"cannot verify the plan file {source}: no plan key beside the state "
            "(was it made against another state?)",
            hint=REPLAN_HINT,
        )
    if not hmac.compare_digest(seal.key_id, key_id(key)):
        raise PlanTamperedError(
            f"the plan file {source} was sealed with another state's plan key",
            hint="apply it with the state it was planned against (`--state PATH`), or "
            + REPLAN_HINT,
        )
    if not hmac.compare_digest(seal.digest, seal_digest(key, content)):
        raise PlanTamperedError(
            f"the plan file {source} was altered after `planner plan --out`", hint=REPLAN_HINT
        )
