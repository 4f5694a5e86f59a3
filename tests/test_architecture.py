"""ARCHITECTURE.md is the map: it names every module of planner/ in its folder's section,
and its layer table is the one tests/test_layers.py enforces (issue 32: 38 modules were
named nowhere and the pictures differed).
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_layers import ALLOWED

REPO = Path(__file__).resolve().parents[1]
ARCHITECTURE = REPO / "ARCHITECTURE.md"
FOLDER_HEADING = re.compile(r"^### `(planner/(?:[\w/]+/)?)`\s*$")
TABLE_ROW = re.compile(r"^\| (\w+) \| ([\w, ]+) \|$")


def folder_sections(text: str) -> dict[str, str]:
    """Folder (`planner/plan/`) -> the text of its `### \\`planner/plan/\\`` section."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(("# ", "## ", "### ")):
            heading = FOLDER_HEADING.match(line)
            current = sections.setdefault(heading.group(1), []) if heading else None
        elif current is not None:
            current.append(line)
    return {folder: "\n".join(lines) for folder, lines in sections.items()}


def unnamed_modules(package_dir: Path, text: str) -> list[str]:
    """Module files of PACKAGE_DIR (`__init__.py` aside) its folder's section does not name."""
    sections = folder_sections(text)
    missing = []
    for path in sorted(package_dir.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        module = path.relative_to(package_dir.parent).as_posix()
        folder = module.rsplit("/", 1)[0] + "/"
        if f"`{module}`" not in sections.get(folder, ""):
            missing.append(module)
    return missing


def layer_table(text: str) -> dict[str, set[str]]:
    """The `| layer | may import |` table of the Layers section, as test_layers' ALLOWED."""
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    rows = (TABLE_ROW.match(line) for line in section.splitlines())
    return {
        row.group(1): {name.strip() for name in row.group(2).split(",")}
        for row in rows
        if row and row.group(1) != "layer"
    }


def test_every_module_is_named_in_its_folders_section() -> None:
    """Each module file of planner/ is named, as `planner/x/y.py`, in the section
    `### planner/x/` of ARCHITECTURE.md (a new module gets its line there)."""
    missing = unnamed_modules(REPO / "planner", ARCHITECTURE.read_text(encoding="utf-8"))
    assert missing == [], "name these in their folder's section of ARCHITECTURE.md: " + ", ".join(
        missing
    )


def test_the_layer_table_is_the_one_the_layering_test_enforces() -> None:
    """ARCHITECTURE.md's layer table says, row for row, what tests/test_layers.py allows."""
    assert layer_table(ARCHITECTURE.read_text(encoding="utf-8")) == ALLOWED


def test_the_check_sees_a_module_named_only_in_another_section(tmp_path: Path) -> None:
    """A module named outside its folder's section counts as unnamed; one named inside
    its own section, or in the root's, does not."""
    for module in ("planner/errors.py", "planner/plan/diff.py", "planner/plan/moves.py"):
        (tmp_path / module).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / module).write_text("")
    (tmp_path / "planner" / "__init__.py").write_text("")
    text = (
        "## Modules\n\n### `planner/`\n\n`planner/errors.py` and `planner/plan/moves.py`\n\n"
        "### `planner/plan/`\n\n`planner/plan/diff.py`\n\n## Later\n\n`planner/plan/moves.py`\n"
    )
    assert unnamed_modules(tmp_path / "planner", text) == ["planner/plan/moves.py"]
