"""The key that seals saved plans: 32 random bytes beside the state file, mode 0600.

`X.plan-key` sits next to the state `X`, so whoever can apply against a state (and must
read and write it) holds the key, while a plan file alone (a CI artifact, a PR
attachment) gives no way to forge a seal. One key per state file, made by the first
`plan --out`; a key others may read or write is refused, as is a malformed one.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from planner.errors import StateError

KEY_SUFFIX = ".plan-key"
KEY_BYTES = 32
KEY_MODE = 0o600


def plan_key_path(state_path: str | os.PathLike[str]) -> Path:
    path = Path(state_path)
    return path.with_name(path.name + KEY_SUFFIX)


def ensure_plan_key(state_path: str | os.PathLike[str]) -> bytes:
    """The state's plan key, created (exclusively, mode 0600) if there is none yet."""
    existing = read_plan_key(state_path)
    if existing is not None:
        return existing
    path = plan_key_path(state_path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, KEY_MODE)
    except FileExistsError:  # another run made it meanwhile: use theirs
        return _required(read_plan_key(state_path), path)
    except OSError as error:
        raise StateError(f"cannot create the plan key {path}: {error.strerror or error}") from None
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        os.fchmod(fd, KEY_MODE)  # exact, whatever the umask
        handle.write(secrets.token_hex(KEY_BYTES) + "\n")
        handle.flush()
        os.fsync(fd)
    return _required(read_plan_key(state_path), path)


def read_plan_key(state_path: str | os.PathLike[str]) -> bytes | None:
    """The state's plan key, or None when there is none."""
    path = plan_key_path(state_path)
    try:
        info = path.stat()
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise StateError(f"cannot read the plan key {path}: {error}") from None
    _check_private(path, info)
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise StateError(
            f"{path} is not a valid plan key",
            hint="delete it and run `planner plan --out FILE` again (plans sealed with "
            "it can no longer be applied)",
        )
    return key


def _check_private(path: Path, info: os.stat_result) -> None:
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077 or info.st_uid != os.geteuid():
        raise StateError(
            f"the plan key {path} is not private (mode {mode:04o}, owner uid {info.st_uid}): "
            "anyone who can read it can forge saved plans",
            hint=f"chmod 600 {path} (owned by the user who runs the planner), or delete it "
            "and plan again",
        )


def _required(key: bytes | None, path: Path) -> bytes:
    if key is None:
        raise StateError(f"the plan key {path} disappeared while it was being created")
    return key
