"""tests/ stays browsable: no folder holds more than 40 test files (issue 32).

A newcomer finds the test of a behaviour from its command or module name
(`tests/cli/plan/` for `planner plan`, `tests/plan/test_diff.py` for `planner/plan/diff.py`);
a folder past 40 files is split by command or by module, not grown.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).parent
MOST_TEST_FILES_A_FOLDER = 40


def count_test_files(tests: Path) -> Counter[str]:
    """How many `test_*.py` files each folder under TESTS holds (itself included)."""
    return Counter(str(path.parent.relative_to(tests.parent)) for path in tests.rglob("test_*.py"))


def test_no_folder_holds_more_than_40_test_files() -> None:
    """Every folder of tests/ holds at most 40 `test_*.py` files."""
    crowded = {
        folder: count
        for folder, count in count_test_files(TESTS).items()
        if count > MOST_TEST_FILES_A_FOLDER
    }
    assert crowded == {}, f"split these folders by command or module: {crowded}"


def test_the_count_sees_each_folder_apart(tmp_path: Path) -> None:
    """Test files are counted per folder, nested folders apart, other files not at all."""
    for relative in ("test_a.py", "test_b.py", "helpers.py", "cli/test_c.py", "cli/golden/x.txt"):
        (tmp_path / "tests" / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tests" / relative).write_text("")
    assert count_test_files(tmp_path / "tests") == {"tests": 2, "tests/cli": 1}
