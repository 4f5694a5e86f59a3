"""Every test that starts a subprocess is marked `slow`, found by reading the test sources.

A test starts one when its body calls `subprocess`/`sys.executable`, or names (calls, or
takes as a fixture) a function or class of `tests/` that does, directly or through others.
Names are matched across all of `tests/`, so a fixture in a conftest counts where it is used.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).parent
SPAWNS = re.compile(
    r"\bsubprocess\.(run|Popen|call|check_call|check_output)\s*\("
    r"|\bsys\.executable\b|\bcreate_subprocess_(exec|shell)\b"
)
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def names_used(node: ast.AST) -> set[str]:
    """Names a definition loads or takes as parameters (fixtures are parameters)."""
    names = {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}
    return names | {sub.arg for sub in ast.walk(node) if isinstance(sub, ast.arg)}


def top_level_definitions() -> Iterator[tuple[Path, str, Definition]]:
    """(path, module source, definition) for every top-level def and class in tests/."""
    for path in sorted(TESTS.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.parse(source).body:
            if isinstance(node, Definition):
                yield path, source, node


def spawning_names() -> set[str]:
    """Non-test functions and classes of tests/ that start a subprocess, transitively."""
    helpers = {
        node.name: node
        for _, _, node in top_level_definitions()
        if not node.name.startswith(("test_", "Test"))
    }
    spawning = {name for name, node in helpers.items() if SPAWNS.search(ast.unparse(node))}
    grew = True
    while grew:
        more = {name for name, node in helpers.items() if names_used(node) & spawning}
        grew = not more <= spawning
        spawning |= more
    return spawning


def is_marked_slow(node: Definition, module: str) -> bool:
    decorators = [ast.unparse(decorator) for decorator in node.decorator_list]
    module_mark = re.search(r"^pytestmark\s*=.*\bslow\b", module, re.MULTILINE)
    return bool(module_mark) or any(re.search(r"\bmark\.slow\b", d) for d in decorators)


def unmarked_spawning_tests() -> list[str]:
    spawning = spawning_names()
    found = []
    for path, module, node in top_level_definitions():
        tests = [node] if node.name.startswith("test_") else []
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            if is_marked_slow(node, module):
                continue
            tests = [sub for sub in node.body if isinstance(sub, Definition)]
        for test in tests:
            starts = SPAWNS.search(ast.unparse(test)) or names_used(test) & spawning
            if starts and not is_marked_slow(test, module):
                found.append(f"{path.relative_to(TESTS.parent)}:{test.lineno} {test.name}")
    return found


def test_every_test_that_starts_a_subprocess_is_marked_slow() -> None:
    """A test that starts a process (directly, or through a helper or fixture of tests/)
    carries `@pytest.mark.slow`, or its module sets `pytestmark = pytest.mark.slow`."""
    unmarked = unmarked_spawning_tests()
    assert not unmarked, "start a subprocess but are not marked slow:\n" + "\n".join(unmarked)


def test_the_check_finds_what_it_looks_for() -> None:
    """The check sees the known spawners (not vacuously empty)."""
    assert {"start_serve", "serve_process"} <= spawning_names()
