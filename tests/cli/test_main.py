"""The entry point's error boundary, run as a real process."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planner.cli.main import COMMANDS, build_parser, main


@pytest.mark.slow
def test_a_closed_stdout_is_not_reported_as_an_internal_error(tmp_path: Path):
    """Output piped to a reader that is gone (`... | head`) exits 1 without an error line."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away before anything was written
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
    env["PLANNER_STATE_DIR"] = str(tmp_path / "state")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "planner", "providers", "--format", "json"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 1
    assert "Error" not in done.stderr and "Traceback" not in done.stderr
    assert "Exception ignored" not in done.stderr


def every_parser(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """PARSER and all its subparsers, at every depth."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found.extend(every_parser(child))
    return found


def test_no_parser_accepts_an_abbreviated_option() -> None:
    """`--dest` must not run `--destroy`: abbreviation is off on every parser."""
    parsers = every_parser(build_parser())
    assert len(parsers) > 12
    assert all(p.allow_abbrev is False for p in parsers)


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "--dest"],
        ["plan", "--detailed"],
        ["apply", "--auto"],
        ["destroy", "--auto-app"],
        ["state", "list", "--sta", "x"],
    ],
)
def test_an_abbreviated_option_is_a_usage_error(argv: list[str], capsys) -> None:
    """An abbreviation is refused as an unrecognized argument (exit 1, nothing run)."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 1
    assert "unrecognized arguments" in capsys.readouterr().err


def test_the_command_table_has_each_commands_own_help_line() -> None:
    """`planner --help` lists each command with the help line its module registers."""
    full = build_parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    registered = {action.dest: action.help for action in sub._choices_actions}
    assert registered == {name: help_line for name, (_, help_line) in COMMANDS.items()}


@pytest.mark.slow
def test_help_imports_no_command_module(tmp_path: Path) -> None:
    """`planner --help` lists every command without importing one; `planner COMMAND --help`
    imports that command's arguments module and no run module."""
    probe = (
        "import sys\n"
        "from planner.cli.main import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('planner.cli.commands.',"
        " 'planner.cli.run.'))))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}

    def loaded(*argv: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", probe, *argv],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=60,
        )
        return done.stdout.strip().splitlines()[-1]

    assert loaded("--help") == "[]"
    assert loaded("schema", "--help") == "['planner.cli.commands.schema']"


def test_a_failing_json_command_prints_its_error_as_json(tmp_path: Path, monkeypatch, capsys):
    """With --format json, a failure also prints {"error": {code, ...}} on stdout; the
    human lines on stderr are unchanged."""
    monkeypatch.delenv("PLANNER_STATE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["state", "show", "api", "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out) == {
        "error": {
            "code": "state-invalid",
            "message": "no state file at state/planner.state.json",
            "details": [],
            "hint": "nothing is managed yet (`planner apply` creates the state), "
            "or pass --state PATH / -c FILE to point at another one",
        }
    }
    assert err.startswith("Error: no state file at state/planner.state.json\nHint: ")


def test_a_failing_text_command_prints_no_json(tmp_path: Path, monkeypatch, capsys):
    """Without --format json, an error goes to stderr only."""
    monkeypatch.delenv("PLANNER_STATE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["state", "show", "api"]) == 1
    assert capsys.readouterr().out == ""


def test_version_is_the_installed_distributions(capsys) -> None:
    """`planner --version` prints the version importlib.metadata knows for the distribution
    `deployment-planner`, on stdout."""
    import importlib.metadata

    import planner

    assert planner.__version__ == importlib.metadata.version("deployment-planner")
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"planner {planner.__version__}\n"


def test_version_without_an_installed_distribution(monkeypatch) -> None:
    """From a source tree that is not installed, the version says it is unknown."""
    import importlib.metadata

    import planner

    def not_installed(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert planner.installed_version.__wrapped__() == planner.UNKNOWN_VERSION


def test_a_usage_error_exits_1_never_the_changes_code(capsys) -> None:
    """`plan --detailed-exitcode` with a bad option exits 1: argparse's 2 would tell CI
    "the plan has changes"."""
    with pytest.raises(SystemExit) as exited:
        main(["plan", "--detailed-exitcode", "--detailed-exitcod"])
    assert exited.value.code == 1
    assert "unrecognized arguments: --detailed-exitcod" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["plan", "-out=p.json"], "planner plan: error: unknown option -out: did you mean --out?"),
        (["apply", "-auto-approve"], "unknown option -auto-approve: did you mean --auto-approve?"),
        (["plan", "-var", "a=b"], "unknown option -var: did you mean --var?"),
        (
            ["apply", "-lock-timeout=5s"],
            "unknown option -lock-timeout: did you mean --lock-timeout?",
        ),
        (["plan", "-json"], "unknown option -json: did you mean --format json?"),
        (["plan", "-chdir=infra"], "unknown option -chdir: did you mean -c DIR/planner.toml?"),
        (["-debug", "plan"], "planner: error: unknown option -debug: did you mean --debug?"),
    ],
)
def test_terraform_single_dash_spellings_get_did_you_mean(argv: list[str], said: str, capsys):
    """Terraform's one-dash options get one line naming the planner spelling, exit 1."""
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert said in err
    assert err.count("\n") == 1 and "unrecognized arguments" not in err


def test_words_after_double_dash_and_unknown_names_are_left_to_argparse(capsys):
    """Words after `--`, and one-dash names that are no option anywhere, are argparse's."""
    with pytest.raises(SystemExit):
        main(["plan", "-input=false"])
    assert "unrecognized arguments: -input=false" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["plan", "--", "-out"])
    assert "did you mean" not in capsys.readouterr().err


# Every command of `planner --help`, and each action of the commands that have actions.
EVERY_COMMAND_LINE = [
    *([name] for name in COMMANDS),
    *(["state", action] for action in ("list", "show", "rm", "history", "rollback", "pull")),
    ["state", "push"],
    ["state", "mv"],
    ["policy", "test"],
]


@pytest.mark.slow
@pytest.mark.parametrize("command", EVERY_COMMAND_LINE, ids=" ".join)
def test_help_of_a_command_imports_neither_pydantic_nor_the_engine(
    tmp_path: Path, command: list[str]
) -> None:
    """`planner plan --help` (every command, every action) parses its command line without
    pydantic, the config loader, the plan engine, the HTTP client, rich or asyncio: a
    command imports those when it runs, not to start."""
    probe = (
        "import sys\n"
        "from planner.cli.main import main\n"
        "try:\n"
        f"    main([*{command!r}, '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('pydantic', 'planner.config.loader', 'planner.plan.diff', 'httpx2', 'rich',"
        " 'asyncio', 'planner.state.document', 'planner.api.models', 'uvicorn')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert f"usage: planner {' '.join(command)}" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_every_command_and_action_is_in_the_help_check() -> None:
    """A command (or action) added later is checked for its start-up imports too."""
    checked = {tuple(line) for line in EVERY_COMMAND_LINE}
    for parser in every_parser(build_parser()):
        words = tuple(parser.prog.split()[1:])
        if words:
            assert words in checked, words


@pytest.mark.slow
def test_the_plan_and_apply_modules_leave_out_what_they_never_use(tmp_path: Path):
    """What `planner plan` and `planner apply` import to talk to a control plane URL and
    write a plain log leaves out sqlite3 (the embedded control plane's), rich's tables (a
    terminal's), the wire models of routes they never call, the saved plan's module (a
    plan without --out, an apply without a plan file) and jsonpatch (an update's diff):
    each is imported where it is used."""
    probe = (
        "import sys\n"
        "import planner.cli.run.plan, planner.cli.run.apply, planner.cli.target\n"
        "import planner.cli.endpoint, planner.cli.workspace, planner.plan.diff\n"
        "import planner.render.text, planner.render.output, planner.render.apply_text\n"
        "import planner.render.markdown, planner.apply.executor, planner.plan.stale\n"
        "unused = ('sqlite3', 'rich.table', 'planner.api.support_models', 'planner.plan.saved',"
        " 'jsonpatch')\n"
        "print(sorted(m for m in unused if m in sys.modules))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLANNER_")}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
