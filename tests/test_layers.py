"""The import graph: no module of planner/ imports a layer above its own.

Layers, low to high (ARCHITECTURE.md, "Layers"; tests/test_architecture.py holds its
table to ALLOWED):

    root (planner/__init__.py, command_lines.py, errors.py, files.py,
          pydantic_internals.py, secrets.py)
    state                      the state file, lock, store
    api                        wire models, rules, the httpx2 client: knows neither the
                               server, nor the state, nor the config
    config                     may use api's wire models and rules
    controlplane               the local server: may use api's shared wire models and
                               rules, nothing of the client side (no state, config, plan,
                               apply, render or cli)
    plan < apply < render < cli
                               cli composes: it alone picks the endpoint (embedded
                               control plane or remote) and the state backend

Every import counts, at any depth (inside functions too), absolute or relative.

Inside cli, a command's arguments module (`planner/cli/commands/`) imports only the
standard library and the light helpers (`ARGUMENT_HELPERS`): `planner COMMAND --help` then
loads nothing of the engine, by construction.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PLANNER = Path(__file__).resolve().parent.parent / "planner"

ROOT = "root"
ROOT_MODULES = {
    "planner",
    "planner.command_lines",
    "planner.errors",
    "planner.files",
    "planner.pydantic_internals",
    "planner.secrets",
}
BELOW_PLAN = {ROOT, "state", "api", "config"}
ALLOWED: dict[str, set[str]] = {
    ROOT: {ROOT},
    "state": {ROOT},
    "api": {ROOT},
    "config": {ROOT, "api"},
    "controlplane": {ROOT, "api"},
    "plan": BELOW_PLAN,
    "apply": BELOW_PLAN | {"plan"},
    "render": BELOW_PLAN | {"plan", "apply"},
    "reconcile": BELOW_PLAN | {"plan", "apply", "render"},
    "cli": BELOW_PLAN | {"plan", "apply", "render", "reconcile", "controlplane"},
}


# What an arguments module may import of planner: the other arguments modules, the option
# helpers, the exit codes, the errors, and the constants and enums its parser shows as
# defaults and choices (the lock's lease, the server's settings, modes and dialects).
ARGUMENT_HELPERS = {
    "planner.cli.options",
    "planner.cli.exits",
    "planner.errors",
    "planner.state.lease",
    "planner.api.modes",
    "planner.api.vocabulary",
    "planner.controlplane.settings",
}


def module_name(path: Path, package_dir: Path) -> str:
    parts = path.relative_to(package_dir.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> str:
    """The layer of a planner module (`planner.__main__` runs the cli)."""
    if module in ROOT_MODULES:
        return ROOT
    second = module.split(".")[1]
    return "cli" if second == "__main__" else second


def imported_modules(path: Path, module: str, package_dir: Path) -> list[str]:
    """Every planner module PATH imports, anywhere in it, made absolute."""
    is_package = path.name == "__init__.py"
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                found.append(".".join(base + ([node.module] if node.module else [])))
            else:
                found.append(node.module or "")
            # `from planner import cli` names a module, not a name in planner/__init__.
            found += [
                f"{found[-1]}.{alias.name}"
                for alias in node.names
                if (package_dir.parent / f"{found[-1]}.{alias.name}".replace(".", "/")).is_dir()
            ]
    return [name for name in found if name == "planner" or name.startswith("planner.")]


def layer_violations(package_dir: Path) -> list[str]:
    """`importer -> imported` for every import of a layer the importer may not use."""
    violations = []
    for path in sorted(package_dir.rglob("*.py")):
        module = module_name(path, package_dir)
        layer = layer_of(module)
        assert layer in ALLOWED, f"{module}: layer {layer!r} is not in the layer table"
        for imported in imported_modules(path, module, package_dir):
            target = layer_of(imported)
            if target != layer and target not in ALLOWED[layer]:
                violations.append(f"{module} ({layer}) -> {imported} ({target})")
    return violations


def heavy_argument_imports(package_dir: Path) -> list[str]:
    """`importer -> imported` for every import of an arguments module (cli/commands) that
    is neither the standard library, another arguments module nor an `ARGUMENT_HELPERS`."""
    found = []
    for path in sorted((package_dir / "cli" / "commands").rglob("*.py")):
        module = module_name(path, package_dir)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                package = module.split(".")[: -node.level] if node.level else []
                names = [".".join([*package, *([node.module] if node.module else [])])]
            else:
                continue
            found += [f"{module} -> {name}" for name in names if not is_argument_helper(name)]
    return sorted(set(found))


def is_argument_helper(name: str) -> bool:
    top = name.split(".")[0]
    if top != "planner":
        return top in sys.stdlib_module_names
    return name in ARGUMENT_HELPERS or name.startswith("planner.cli.commands")


def test_arguments_modules_import_only_light_helpers() -> None:
    """A command's arguments module imports the standard library and the light helpers
    only: no engine, no third-party library (so `--help` stays fast)."""
    assert (PLANNER / "cli" / "commands" / "apply.py").is_file()
    assert heavy_argument_imports(PLANNER) == []


@pytest.mark.parametrize(
    ("source", "offender"),
    [
        ("import httpx\n", "httpx"),
        ("def f():\n    from planner.plan.diff import PlanOptions\n", "planner.plan.diff"),
        ("from planner.cli import workspace\n", "planner.cli"),
        ("from .. import target\n", "planner.cli"),
    ],
)
def test_the_arguments_check_sees_a_heavy_import(
    tmp_path: Path, source: str, offender: str
) -> None:
    """A third-party or engine import in an arguments module is reported, wherever it is."""
    commands = tmp_path / "planner" / "cli" / "commands"
    commands.mkdir(parents=True)
    (commands / "x.py").write_text(
        "import argparse\nfrom planner.cli.options import seconds\n" + source
    )
    assert heavy_argument_imports(tmp_path / "planner") == [f"planner.cli.commands.x -> {offender}"]


def test_only_render_formats_for_people() -> None:
    """rich (the display library) is imported in planner/render only; the cli's error
    boundary reaches it through render too."""
    importers = []
    for path in sorted(PLANNER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            if any(name.split(".")[0] == "rich" for name in names):
                importers.append(module_name(path, PLANNER))
    assert importers and all(layer_of(m) == "render" for m in importers), importers


def test_no_module_imports_a_higher_layer() -> None:
    """No module imports a layer above its own (or beside it, where the table forbids)."""
    assert layer_violations(PLANNER) == []


@pytest.mark.parametrize(
    ("source", "violation"),
    [
        ("from planner.cli.main import main\n", "planner.api.x (api) -> planner.cli.main (cli)"),
        ("def f():\n    import planner.state.document\n", "-> planner.state.document (state)"),
        ("from ..controlplane import app\n", "-> planner.controlplane (controlplane)"),
        ("from planner import render\n", "-> planner.render (render)"),
    ],
)
def test_the_check_sees_every_kind_of_import(tmp_path: Path, source: str, violation: str) -> None:
    """Imports inside functions, relative imports and `from planner import pkg` all count."""
    package = tmp_path / "planner"
    for sub in ("api", "cli", "state", "controlplane", "render"):
        (package / sub).mkdir(parents=True)
        (package / sub / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "api" / "x.py").write_text(source)
    found = layer_violations(package)
    assert len(found) == 1 and violation in found[0], found
