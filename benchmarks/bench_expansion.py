"""Benchmark the expansion bound of `planner validate` (prints a table; not a test).

    python benchmarks/bench_expansion.py

Each case is a config written to a temporary directory and one `planner validate`
process; per case: the config's size, the exit code, the wall time of the process
(Python start-up included) and its peak RSS (wait4). The cases:
- `nested-vars`: a 100 KB variable repeated 40,000 times in one string (a 0.4 MB file
  that expanded to 4 GB before the bound): refused at 1 MiB;
- `spread-vars`: a 50 KB variable ten times in each of 400 deployments (each value under
  1 MiB, 200 MB in all): refused when the whole passes 16 MiB;
- `template-2000`: one template picked by 2,000 deployments, valid;
- `template-60k-200`: a template with a 60 KB label picked by 200 deployments (12 MB),
  valid: the largest kind of expansion the bound lets through;
- `template-60k-2000`: the same template picked by 2,000 deployments (120 MB): refused
  at 16 MiB.
The last column is the first line of the error (the place the bound names).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DOCKER = (
    'source = "internal_docker"\nsource_revision_config.image_uri = "registry.example.com/a:1"\n'
)
TEMPLATE = "[templates.t]\n" + DOCKER + "\n"


def nested_vars() -> str:
    big = "x" * 100_000
    refs = "${var.a}" * 40_000
    body = f'source = "internal_docker"\nsource_revision_config.image_uri = "{refs}"\n'
    return f'[variables.a]\ndefault = "{big}"\n[deployments.d]\n{body}'


def spread_vars() -> str:
    lines = [f'[variables.a]\ndefault = "{"y" * 50_000}"\n']
    refs = "${var.a}" * 10
    for index in range(400):
        lines.append(f'[deployments.d{index}]\nsource = "internal_docker"\n')
        lines.append(f'source_revision_config.image_uri = "{refs}"\n')
    return "".join(lines)


def template(count: int, note: str = "") -> str:
    labels = f'[templates.t.source_config.resource_spec.labels]\nnote = "{note}"\n'
    head = TEMPLATE + (labels if note else "")
    return head + "".join(f'[deployments.d{i}]\ntemplate = "t"\n' for i in range(count))


CASES = {
    "nested-vars": nested_vars,
    "spread-vars": spread_vars,
    "template-2000": lambda: template(2000),
    "template-60k-200": lambda: template(200, "z" * 60_000),
    "template-60k-2000": lambda: template(2000, "z" * 60_000),
}


def measure(name: str, text: str, workdir: Path) -> str:
    """One `planner validate` of TEXT: a table row."""
    path = workdir / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    errors = workdir / f"{name}.err"
    # a file, not a pipe: a pipe nobody reads during wait4 blocks a chatty child for good
    with open(os.devnull, "wb") as sink, errors.open("wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "planner", "validate", "-c", str(path)],
            stdout=sink, stderr=err,
        )  # fmt: skip
        _, status, usage = os.wait4(process.pid, 0)
    lines = errors.read_text(encoding="utf-8").splitlines()
    first = lines[1].split(": ", 1)[-1][:80] if len(lines) > 1 else ""
    seconds = time.perf_counter() - start
    size = len(text.encode()) / 1e6
    code = os.waitstatus_to_exitcode(status)
    peak = usage.ru_maxrss / 1024
    return f"{name:<18} {size:>5.2f} MB  exit {code}  {seconds:>5.2f} s  {peak:>6.1f} MB  {first}"


def main() -> None:
    print(f"{'case':<18} {'config':>8}  {'':6}  {'time':>7}  {'peak RSS':>9}  first problem")
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in CASES.items():
            print(measure(name, build(), Path(tmp)), flush=True)


if __name__ == "__main__":
    main()
