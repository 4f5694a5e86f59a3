"""docs/guides/from-terraform.md is what happens: the guide's move is replayed against
`planner serve --dialect service` over loopback, with the Terraform state the provider
writes for the guide's resources (`tests/terraform_states.py`); each `$ planner ...` block
of the guide, the control plane's URL aside, is a run of consecutive lines of what the
command prints (its warnings first, as a terminal shows them), and the generated config
the guide shows is the file written.

The Terraform side of the move (apply, `show -json`, the printed `terraform state rm`
lines run, and the plan without the resources) is run with the real Terraform CLI by
`tests/clients/test_terraform.py::test_planner_takes_over_what_terraform_applied`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.api.models import Deployment
from planner.api.vocabulary import Dialect
from planner.cli.main import main
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from tests.loopback import served
from tests.terraform_states import Instance, attributes, state_file

ROOT = Path(__file__).parents[1]
GUIDE = ROOT / "docs" / "guides" / "from-terraform.md"
SAMPLE = re.compile(r"^```text\n\$ (planner [^\n]*)\n(.*?)^```", re.S | re.M)
CONFIG = re.compile(
    r"^```toml\n(# Written by `planner import --from-terraform`.*?)^```", re.S | re.M
)
IDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
GUIDE_URL = "https://langsmith.example.com/api-host"
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
LOG_LEVEL = "info"
OPENAI_API_KEY = "sk-guide-0123456789"


def guide_samples() -> list[tuple[str, list[str]]]:
    """Each `$ planner ...` block of the guide: the command and the lines shown."""
    text = GUIDE.read_text(encoding="utf-8")
    return [(command, lines(body)) for command, body in SAMPLE.findall(text)]


def lines(text: str) -> list[str]:
    return [IDS.sub("<id>", line).rstrip() for line in text.rstrip("\n").split("\n")]


def is_run_of(sample: list[str], output: list[str]) -> bool:
    return any(output[i : i + len(sample)] == sample for i in range(len(output)))


def terraform_applied(api: httpx2.Client) -> list[Instance]:
    """The guide's Terraform resources, created as the provider creates them, and the
    state it writes: `support` (github, a public variable and a secret) and `worker`
    under `for_each` (two images)."""

    def create(body: dict[str, Any]) -> Deployment:
        response = api.post("/v2/deployments", json=body)
        assert response.status_code == 201, response.text
        return Deployment.model_validate(response.json())

    support = create(
        {
            "name": "support-agent",
            "source": "github",
            "source_config": {
                "integration_id": INTEGRATION,
                "repo_url": "https://github.com/acme/support-agent",
            },
            "source_revision_config": {
                "repo_ref": "main",
                "langgraph_config_path": "langgraph.json",
            },
            "secrets": [
                {"name": "LOG_LEVEL", "value": LOG_LEVEL},
                {"name": "OPENAI_API_KEY", "value": OPENAI_API_KEY},
            ],
        }
    )
    instances = [
        Instance("support", attributes(support, environment_variables={"LOG_LEVEL": LOG_LEVEL}))
    ]
    for key in ("billing", "refunds"):
        worker = create(
            {
                "name": f"{key}-worker",
                "source": "internal_docker",
                "source_config": {"resource_spec": {"min_scale": 1, "max_scale": 3}},
                "source_revision_config": {"image_uri": "registry.example.com/acme/worker:1.4.0"},
                "secrets": [],
            }
        )
        instances.append(Instance("worker", attributes(worker), index_key=key))
    return instances


def test_every_sample_of_the_guide_is_what_its_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Replayed in order, each command the guide shows prints the guide's lines, and the
    generated config is the guide's."""
    monkeypatch.chdir(tmp_path)
    for variable in ("PLANNER_STATE_DIR", "PLANNER_ENV", "PLANNER_STATE", "NO_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    settings = ServerSettings(
        db_path=tmp_path / "service.db",
        build_seconds=0.05,
        deploy_seconds=0.05,
        delete_seconds=0.05,
        dialect=Dialect.SERVICE,
    )
    headers = {"X-Api-Key": EMBEDDED_API_KEY, "X-Tenant-Id": DEFAULT_TENANT_ID}
    story: list[tuple[str, str]] = []
    with served(settings) as url, httpx2.Client(base_url=url, headers=headers) as api:
        state = state_file(terraform_applied(api))
        Path("terraform.tfstate").write_text(json.dumps(state, indent=2), encoding="utf-8")
        for name, value in {
            "PLANNER_BASE_URL": url,
            "PLANNER_API_KEY": EMBEDDED_API_KEY,
            "PLANNER_TENANT_ID": DEFAULT_TENANT_ID,
            "LOG_LEVEL": LOG_LEVEL,
            "OPENAI_API_KEY": OPENAI_API_KEY,
        }.items():
            monkeypatch.setenv(name, value)

        def shown(*argv: str) -> None:
            capsys.readouterr()
            main(list(argv))
            captured = capsys.readouterr()
            printed = (captured.err + captured.out).replace(url, GUIDE_URL)
            story.append((" ".join(["planner", *argv]), printed))

        adopt = ("import", "--from-terraform", "terraform.tfstate", "--generate-config")
        shown(*adopt, "planner.toml")
        generated = Path("planner.toml").read_text(encoding="utf-8").replace(url, GUIDE_URL)
        shown("plan")
        shown(*adopt, "again.toml")
    samples = guide_samples()
    assert [command for command, _ in samples] == [command for command, _ in story]
    for (command, sample), (_, output) in zip(samples, story, strict=True):
        assert is_run_of(sample, lines(output)), f"`{command}` printed:\n{output}"
    (config,) = CONFIG.findall(GUIDE.read_text(encoding="utf-8"))
    assert config == generated
