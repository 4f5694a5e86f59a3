"""The composition root holds: argparse stays in the CLI, and one resolver per target part."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PLANNER = Path(__file__).resolve().parents[2] / "planner"
CLI = PLANNER / "cli"
ENDPOINT_VARIABLES = {"PLANNER_BASE_URL", "PLANNER_API_KEY", "PLANNER_TENANT_ID"}


def modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(PLANNER.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def takes_a_namespace(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    return any(a.annotation and "Namespace" in ast.unparse(a.annotation) for a in arguments)


def parser_methods(tree: ast.Module) -> set[ast.AST]:
    """The methods of argparse.ArgumentParser subclasses (argparse's own signatures)."""
    return {
        node
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        and any("ArgumentParser" in ast.unparse(base) for base in cls.bases)
        for node in cls.body
    }


def test_only_the_arguments_modules_take_a_namespace() -> None:
    """No function outside planner/cli takes an argparse Namespace; inside, only the
    arguments modules' `register` and `parse` (planner/cli/commands: the arguments value is
    built once, in `parse`) and the dispatcher's `run_command` do, besides the overrides of
    argparse's own parser methods. A run takes its arguments value, never a Namespace."""
    commands = CLI / "commands"
    offenders = []
    for path, tree in modules():
        allowed = parser_methods(tree) if path.is_relative_to(CLI) else set()
        entries = {
            commands: ("register", "parse"),
            CLI / "main.py": ("run_command",),
        }
        names = next((v for k, v in entries.items() if path.is_relative_to(k)), ())
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if takes_a_namespace(node) and node.name not in names and node not in allowed:
                offenders.append(f"{path.relative_to(PLANNER.parent)}:{node.lineno} {node.name}")
    assert offenders == []


def test_argparse_is_imported_only_by_the_cli() -> None:
    """No module outside planner/cli imports argparse."""
    importers = []
    for path, tree in modules():
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            if "argparse" in names and not path.is_relative_to(CLI):
                importers.append(str(path.relative_to(PLANNER.parent)))
    assert importers == []


def test_the_endpoint_is_read_from_the_environment_in_one_place() -> None:
    """PLANNER_BASE_URL, PLANNER_API_KEY and PLANNER_TENANT_ID are read by the one
    resolver, `planner/cli/target.py`, and nowhere else."""
    readers = {
        str(path.relative_to(PLANNER.parent))
        for path, tree in modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in ENDPOINT_VARIABLES
    }
    assert readers == {"planner/cli/target.py"}


def test_the_old_resolvers_are_gone() -> None:
    """The endpoint and state resolvers the composition root replaced are not defined."""
    gone = {"from_environment", "resolve_state_path", "state_backend", "open_cli_client"}
    defined = {
        node.name
        for _, tree in modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    assert defined & gone == set()
