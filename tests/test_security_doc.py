"""SECURITY.md names the test behind each promise: every test it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = re.compile(r"(tests/[\w/]+\.py)(?:::(\w+))?")


def test_every_test_security_md_names_exists() -> None:
    """A renamed or deleted test cannot leave a promise pointing at nothing."""
    text = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    references = REFERENCE.findall(text)
    assert len(references) > 20
    missing = [
        f"{path}::{name}" if name else path
        for path, name in references
        if not (ROOT / path).is_file()
        or (name and f"def {name}(" not in (ROOT / path).read_text(encoding="utf-8"))
    ]
    assert missing == []
