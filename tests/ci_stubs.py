"""Stand-ins for `gh` and `curl` in the CI example tests: the GitHub and GitLab APIs are
outside the project, so their calls are recorded and answered from a canned table.

Each stub appends one JSON line per call to $STUB_LOG: {"tool", "method", "path",
"fields"} (a field given as `@FILE` or `name@FILE` holds the file's text). Answers come
from $STUB_RESPONSES, a JSON object "METHOD path" -> response body; the first key whose
path is a prefix of the call's path wins; no match answers `[]`. `gh run download`
copies $STUB_ARTIFACT into `--dir`; `curl --output FILE` writes $STUB_ARTIFACT there.

`install_python_stub` stands in for the runner's `python3` in the action's install step
(pip and its registry are outside the project): `python3 -m venv DIR` makes DIR/bin/python,
whose `-m pip install ARGS` is logged as {"tool": "pip", "method": "INSTALL", "path": the
last argument, "fields": {"args": ARGS}}, and DIR/bin/planner, this interpreter's planner;
any other call runs this interpreter.
"""

from __future__ import annotations

import shlex
import stat
import sys
from pathlib import Path

_COMMON = r"""
import json, os, shutil, sys
from urllib.parse import urlsplit


def field(text):
    name, sep, value = text.partition("=")
    if value.startswith("@"):
        value = open(value[1:], encoding="utf-8").read()
    elif "@" in text and not sep:
        name, _, path = text.partition("@")
        value = open(path, encoding="utf-8").read()
    elif not sep:
        name, value = text, ""
    return name, value


def answer(tool, method, path, fields):
    with open(os.environ["STUB_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"tool": tool, "method": method, "path": path, "fields": fields}))
        log.write("\n")
    responses = json.loads(open(os.environ["STUB_RESPONSES"], encoding="utf-8").read())
    for key, body in responses.items():
        want_method, _, want_path = key.partition(" ")
        if want_method == method and path.startswith(want_path):
            return json.dumps(body)
    return "[]"
"""

GH = (
    _COMMON
    + r"""
args = sys.argv[1:]
if args[:2] == ["run", "download"]:
    target = args[args.index("--dir") + 1]
    os.makedirs(target, exist_ok=True)
    shutil.copy(os.environ["STUB_ARTIFACT"], os.path.join(target, "plan.json"))
    answer("gh", "DOWNLOAD", args[2], {"name": args[args.index("--name") + 1]})
    sys.exit(0)
assert args[0] == "api", args
method, path, fields = "GET", None, {}
rest = iter(args[1:])
for arg in rest:
    if arg in ("--method", "-X"):
        method = next(rest)
    elif arg in ("-f", "-F", "--field", "--raw-field"):
        name, value = field(next(rest))
        fields[name] = value
    elif arg == "--paginate":
        continue
    else:
        path = arg
print(answer("gh", method, path, fields))
"""
)

CURL = (
    _COMMON
    + r"""
args = sys.argv[1:]
method, url, output, fields = "GET", None, None, {}
rest = iter(args)
for arg in rest:
    if arg == "--request":
        method = next(rest)
    elif arg == "--header":
        next(rest)
    elif arg == "--output":
        output = next(rest)
    elif arg == "--data-urlencode":
        name, value = field(next(rest))
        fields[name] = value
    elif arg.startswith("http"):
        url = arg
parts = urlsplit(url)
path = parts.path.split("/projects/", 1)[-1].split("/", 1)[-1]
path += ("?" + parts.query) if parts.query else ""
body = answer("curl", method, path, fields)
if output:
    shutil.copy(os.environ["STUB_ARTIFACT"], output)
else:
    print(body)
"""
)

PYTHON = (
    _COMMON
    + r"""
args = sys.argv[1:]
if args[:2] != ["-m", "venv"]:
    os.execv(REAL_PYTHON, [REAL_PYTHON, *args])
bin_dir = os.path.join(args[2], "bin")
os.makedirs(bin_dir, exist_ok=True)
for name, body in (("python", PIP), ("planner", PLANNER)):
    with open(os.path.join(bin_dir, name), "w", encoding="utf-8") as tool:
        tool.write(body)
    os.chmod(os.path.join(bin_dir, name), 0o755)
"""
)

PIP = (
    _COMMON
    + r"""
args = sys.argv[1:]
assert args[:3] == ["-m", "pip", "install"], args
answer("pip", "INSTALL", args[-1], {"args": args[3:]})
"""
)


def install_stubs(bin_dir: Path) -> None:
    """Write `gh` and `curl` into BIN_DIR (put it first on PATH)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name, source in (("gh", GH), ("curl", CURL)):
        path = bin_dir / name
        path.write_text(f"#!{sys.executable}\n{source}", encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)


def install_python_stub(bin_dir: Path) -> None:
    """Write `python3` into BIN_DIR (put it first on PATH)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    shebang = f"#!{sys.executable}\n"
    planner = f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m planner "$@"\n'
    source = (
        f"REAL_PYTHON = {sys.executable!r}\n"
        f"PIP = {shebang + PIP!r}\n"
        f"PLANNER = {planner!r}\n"
        f"{PYTHON}"
    )
    path = bin_dir / "python3"
    path.write_text(shebang + source, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
