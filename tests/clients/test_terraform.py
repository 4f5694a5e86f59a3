"""The real Terraform CLI and the official provider's `langsmith_deployment` against
`planner serve --dialect service`, configured with the provider blocks of the clients
docs page (docs/local-control-plane/clients.md), in cloud and self-hosted mode.

The scenario is what a team's Terraform does: create a deployment of every source the
provider supports in the mode, re-plan to nothing, change a field in place, roll a new
revision, import deployments made outside Terraform, refresh after an outside change, and
destroy, the provider polling until the server answers 404. The provider polls every 5 s:
the server's timings are short enough that the provider waits at most once per step.
"""

from __future__ import annotations

import copy
import io
import json
import re
import shlex
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.cli.main import main
from tests.clients.conftest import StartServer
from tests.clients.terraform import REPOSITORY, Terraform, provider_blocks, require_provider

PAGE = REPOSITORY / "docs" / "local-control-plane" / "clients.md"
DOC_URL = "http://127.0.0.1:8123"  # the address the page's blocks name
KEY = "terraform-sandbox-key"
SECRET = "model-key-value-never-in-state"
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"  # the default seed's integration
REPO_URL = "https://git.example.com/acme/support-agent"
LISTENER = "5e1a7c00-0000-4000-8000-00000000c001"  # the default seed's listener
TEMPLATE = "react-agent"
# The provider polls right after its request, then every 5 s: with ROLLING a step whose
# revisions build (git, template) and a destroy wait once, an image revision not at all;
# with QUICK only a destroy waits; INSTANT never waits.
ROLLING = ("--build-seconds", "0.5", "--deploy-seconds", "0", "--delete-seconds", "0.5")
QUICK = ("--build-seconds", "0", "--deploy-seconds", "0", "--delete-seconds", "0.5")
INSTANT = ("--build-seconds", "0", "--deploy-seconds", "0", "--delete-seconds", "0")
Resources = dict[str, dict[str, Any]]
OpenSandbox = Callable[[str, str, tuple[str, ...]], "Sandbox"]


@dataclass
class Sandbox:
    """A server, the provider block that points at it, and a client for outside changes."""

    terraform: Terraform
    provider: str
    variables: str
    api: httpx2.Client

    def declare(self, resources: Resources) -> None:
        """The configuration: the page's blocks and RESOURCES as `langsmith_deployment`s."""
        self.terraform.configure(self.variables, self.provider)
        self.terraform.declare({"resource": {"langsmith_deployment": resources}})

    def ids(self) -> dict[str, str]:
        """Deployment id by resource name, from the state."""
        return {
            address.removeprefix("langsmith_deployment."): values["id"]
            for address, values in self.terraform.resources().items()
        }

    def deployment(self, deployment_id: str) -> dict[str, Any]:
        response = self.api.get(f"/v2/deployments/{deployment_id}")
        assert response.status_code == 200, response.text
        return dict(response.json())

    def create(self, body: dict[str, Any]) -> str:
        """A deployment made outside Terraform; its id."""
        response = self.api.post("/v2/deployments", json=body)
        assert response.status_code == 201, response.text
        return str(response.json()["id"])

    def is_gone(self, deployment_id: str) -> bool:
        return self.api.get(f"/v2/deployments/{deployment_id}").status_code == 404


@pytest.fixture
def sandbox(
    terraform: Terraform, start_server: StartServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[OpenSandbox]:
    """`sandbox(block, mode, timings)`: a `planner serve --dialect service` process and a
    working directory whose provider is the page's BLOCK pointed at that server."""
    clients: list[httpx2.Client] = []
    blocks = provider_blocks(PAGE)
    variable = re.search(r'variable "(\w+)"', blocks["variables"])
    assert variable, f"the page's key variable changed:\n{blocks['variables']}"
    monkeypatch.setenv(f"TF_VAR_{variable[1]}", KEY)

    def open_sandbox(block: str, mode: str, timings: tuple[str, ...]) -> Sandbox:
        provider = blocks[block]
        tenant = re.search(r'workspace_id\s*=\s*"([^"]+)"', provider)
        assert tenant and DOC_URL in provider, f"the page's {block!r} block changed:\n{provider}"
        args = ("--api-key", f"{KEY}:{tenant[1]}", "--mode", mode, "--dialect", "service")
        server = start_server(*args, *timings)
        headers = {"X-Api-Key": KEY, "X-Tenant-Id": tenant[1]}
        clients.append(httpx2.Client(base_url=server.url, headers=headers, timeout=10))
        pointed = provider.replace(DOC_URL, server.url)
        return Sandbox(terraform, pointed, blocks["variables"], clients[-1])

    yield open_sandbox
    for client in clients:
        client.close()


def cloud_resources() -> Resources:
    """One deployment of each source the provider can create in cloud mode."""
    return {
        "git": {
            "name": "tf-git",
            "source": "github",
            "source_config": {
                "integration_id": INTEGRATION,
                "repo_url": REPO_URL,
                "deployment_type": "dev_zero",
                "build_on_push": False,
            },
            "source_revision_config": {
                "repo_ref": "main",
                "langgraph_config_path": "langgraph.json",
            },
            "secrets": {"MODEL_KEY": SECRET},
        },
        "quiet": {
            "name": "tf-template",
            "source": "internal_template",
            "source_config": {"template_id": TEMPLATE},
            "source_revision_config": {},
        },
        "image": {
            "name": "tf-image",
            "source": "internal_docker",
            "display_name": "Image agent",
            "source_config": {"resource_spec": {"min_scale": 1, "max_scale": 2, "cpu": 1}},
            "source_revision_config": {"image_uri": "registry.example.com/agent:1"},
            "environment_variables": {"LOG_LEVEL": "info"},
        },
    }


def self_hosted_resources() -> Resources:
    """The source of self-hosted mode, bound to the seed's listener."""
    return {
        "image": {
            "name": "tf-hosted",
            "source": "external_docker",
            "display_name": "Hosted agent",
            "source_config": {
                "listener_id": LISTENER,
                "listener_config": {"k8s_namespace": "agents"},
                "custom_url": "https://agent.example.com",
            },
            "source_revision_config": {"image_uri": "registry.example.com/agent:1"},
            "environment_variables": {"LOG_LEVEL": "info"},
        },
        "quiet": {
            "name": "tf-hosted-quiet",
            "source": "external_docker",
            "source_config": {"listener_id": LISTENER},
            "secrets": {"MODEL_KEY": SECRET},
            "source_revision_config": {"image_uri": "registry.example.com/other:1"},
        },
    }


def outside_deployment(mode: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(create body, the same deployment as a resource) of a deployment made through the
    API: a git deployment in cloud mode, an image bound to the listener when self-hosted."""
    if mode == "cloud":
        source_config = {"integration_id": INTEGRATION, "repo_url": REPO_URL}
        revision = {"repo_ref": "main", "langgraph_config_path": "agents/langgraph.json"}
        body: dict[str, Any] = {"name": "made-outside", "source": "github"}
    else:
        source_config = {"listener_id": LISTENER}
        revision = {"image_uri": "registry.example.com/outside:3"}
        body = {"name": "made-outside", "source": "external_docker"}
    body |= {"source_config": source_config, "source_revision_config": revision, "secrets": []}
    resource = {k: copy.deepcopy(v) for k, v in body.items() if k != "secrets"}
    return body, resource


def tarball() -> bytes:
    """A source tree as `langgraph deploy` uploads it: a gzipped tar archive."""
    config = b'{"dependencies": ["."], "graphs": {"agent": "./agent.py:graph"}}'
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as archive:
        entry = tarfile.TarInfo("langgraph.json")
        entry.size = len(config)
        archive.addfile(entry, io.BytesIO(config))
    return packed.getvalue()


def uploaded_outside(sandbox: Sandbox) -> tuple[str, dict[str, Any]]:
    """(id, the same deployment as a resource) of an `internal_source` deployment made as
    `langgraph deploy` makes one: created empty, its tarball PUT to an upload URL, then a
    PATCH naming the uploaded object."""
    made = sandbox.create(
        {
            "name": "uploaded-outside",
            "source": "internal_source",
            "source_config": {},
            "source_revision_config": {},
            "secrets": [],
        }
    )
    upload = sandbox.api.post(f"/v2/deployments/{made}/upload-url").json()
    put = sandbox.api.put(upload["upload_url"], content=tarball(), headers=upload["upload_headers"])
    assert put.status_code < 300, put.text
    revision = {
        "source_tarball_path": upload["object_path"],
        "langgraph_config_path": "langgraph.json",
    }
    patched = sandbox.api.patch(
        f"/v2/deployments/{made}",
        json={"revision_source": "internal_source", "source_revision_config": revision},
    )
    assert patched.status_code == 200, patched.text
    resource = {
        "name": "uploaded-outside",
        "source": "internal_source",
        "source_config": {},
        "source_revision_config": revision,
    }
    return made, resource


def assert_plans_nothing(sandbox: Sandbox) -> None:
    run = sandbox.terraform.plan_exit_code()
    assert run.code == 0, f"expected an empty plan\n{run}"


def create_every_source(sandbox: Sandbox, resources: Resources) -> dict[str, str]:
    """Step: apply creates them all; the server holds them with the service's words."""
    sandbox.declare(resources)
    sandbox.terraform.init()
    run = sandbox.terraform.apply()
    assert f"{len(resources)} added, 0 changed, 0 destroyed" in run.stdout, run
    ids = sandbox.ids()
    state = sandbox.terraform.resources()
    for name, resource in resources.items():
        live = sandbox.deployment(ids[name])
        assert live["source"] == resource["source"]
        for key, value in resource["source_revision_config"].items():
            assert live["source_revision_config"][key] == value, (name, key)
        for key, value in resource["source_config"].items():
            if isinstance(value, str | bool):  # the round trip: sent, stored, read back
                assert live["source_config"][key] == value, (name, key)
                assert state[f"langsmith_deployment.{name}"]["source_config"][key] == value
    return ids


def change_in_place(sandbox: Sandbox, resources: Resources, ids: dict[str, str]) -> None:
    """Step: a new display name is one PATCH: the same latest revision, the new value."""
    before = sandbox.deployment(ids["image"])["latest_revision_id"]
    resources["image"]["display_name"] = "Image agent, renamed"
    sandbox.declare(resources)
    run = sandbox.terraform.apply()
    assert "0 added, 1 changed, 0 destroyed" in run.stdout, run
    live = sandbox.deployment(ids["image"])
    assert live["display_name"] == "Image agent, renamed"
    assert live["latest_revision_id"] == before


def roll_new_revision(sandbox: Sandbox, resources: Resources, ids: dict[str, str]) -> None:
    """Step: a new image (and, for the git deployment, a new ref) is a new revision each,
    deployed before apply returns, the rest of the revision config carried along."""
    changes = {"image": ("image_uri", "registry.example.com/agent:2")}
    if "git" in resources:
        changes["git"] = ("repo_ref", "release")
    before = {name: sandbox.deployment(ids[name])["latest_revision_id"] for name in changes}
    for name, (key, value) in changes.items():
        resources[name]["source_revision_config"][key] = value
    sandbox.declare(resources)
    run = sandbox.terraform.apply()
    assert f"0 added, {len(changes)} changed, 0 destroyed" in run.stdout, run
    for name in changes:
        live = sandbox.deployment(ids[name])
        wanted = resources[name]["source_revision_config"]
        assert {key: live["source_revision_config"].get(key) for key in wanted} == wanted
        assert live["latest_revision_id"] != before[name]
        revision = sandbox.api.get(
            f"/v2/deployments/{ids[name]}/revisions/{live['latest_revision_id']}"
        )
        assert revision.json()["status"] == "DEPLOYED", name


def import_outside(sandbox: Sandbox, resources: Resources, mode: str) -> dict[str, str]:
    """Step: deployments made through the API import by id, with the source the server
    spells, and then plan nothing (`assert_plans_nothing` after this step)."""
    body, resource = outside_deployment(mode)
    made = {"outside": sandbox.create(body)}
    resources["outside"] = resource
    if mode == "cloud":
        made["uploaded"], resources["uploaded"] = uploaded_outside(sandbox)
    sandbox.declare(resources)
    for name, deployment_id in made.items():
        address = f"langsmith_deployment.{name}"
        sandbox.terraform.ok("import", "-input=false", address, deployment_id)
        assert sandbox.terraform.resources()[address]["source"] == resources[name]["source"]
    return made


def refresh_outside_change(sandbox: Sandbox, ids: dict[str, str]) -> None:
    """Step: a display name set outside reaches the state on a refresh-only apply."""
    patched = sandbox.api.patch(
        f"/v2/deployments/{ids['quiet']}", json={"display_name": "Named elsewhere"}
    )
    assert patched.status_code == 200, patched.text
    sandbox.terraform.ok("apply", "-refresh-only", "-auto-approve", "-input=false")
    state = sandbox.terraform.resources()["langsmith_deployment.quiet"]
    assert state["display_name"] == "Named elsewhere"


def destroy_all(sandbox: Sandbox, ids: list[str]) -> None:
    """Step: destroy returns once the server answers 404 for every deployment."""
    run = sandbox.terraform.destroy()
    assert f"{len(ids)} destroyed" in run.stdout, run
    assert [i for i in ids if not sandbox.is_gone(i)] == []


def test_a_missing_provider_binary_skips_and_fails_under_ci(tmp_path: Path) -> None:
    """Without the ../shared binary the Terraform tests skip with the reason; under CI
    (`CI=true`) they fail instead."""
    with pytest.raises(pytest.skip.Exception, match="no Terraform provider binary"):
        require_provider({}, tmp_path)
    with pytest.raises(pytest.fail.Exception, match="required under CI"):
        require_provider({"CI": "true"}, tmp_path)


def test_the_page_gives_a_block_per_provider_and_mode() -> None:
    """The page's blocks: the key variable, the current provider's (`control_plane_url`)
    for each mode, and the older provider's (`api_url` only), all naming the server."""
    blocks = provider_blocks(PAGE)
    assert sorted(blocks) == ["current-cloud", "current-self-hosted", "older", "variables"]

    def url_of(block: str, setting: str) -> str | None:
        found = re.search(rf'\b{setting}\s*=\s*"([^"]*)"', blocks[block])
        return found[1] if found else None

    assert url_of("current-cloud", "control_plane_url") == DOC_URL
    assert url_of("current-self-hosted", "control_plane_url") == f"{DOC_URL}/api-host"
    assert (url_of("older", "api_url"), url_of("older", "control_plane_url")) == (DOC_URL, None)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("block", "mode", "resources", "timings"),
    [
        pytest.param("current-cloud", "cloud", cloud_resources, ROLLING, id="cloud"),
        pytest.param(
            "current-self-hosted", "self-hosted", self_hosted_resources, QUICK, id="self-hosted"
        ),
    ],
)
def test_the_whole_terraform_flow_with_the_pages_provider_block(
    sandbox: OpenSandbox,
    block: str,
    mode: str,
    resources: Callable[[], Resources],
    timings: tuple[str, ...],
) -> None:
    """create every source, re-plan empty, change in place, new revision, import, refresh,
    destroy: every step passes with the current provider's block for the mode."""
    box = sandbox(block, mode, timings)
    wanted = resources()
    ids = create_every_source(box, wanted)
    assert_plans_nothing(box)
    change_in_place(box, wanted, ids)
    assert_plans_nothing(box)
    roll_new_revision(box, wanted, ids)
    assert_plans_nothing(box)
    ids |= import_outside(box, wanted, mode)
    assert_plans_nothing(box)
    refresh_outside_change(box, ids)
    assert_plans_nothing(box)
    destroy_all(box, list(ids.values()))
    state_file = box.terraform.workdir / "terraform.tfstate"
    assert SECRET not in state_file.read_text()
    assert SECRET not in "".join(box.terraform.printed)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["cloud", "self-hosted"])
def test_the_older_providers_block_reaches_the_api_under_api_host(
    sandbox: OpenSandbox, mode: str
) -> None:
    """The block for providers without `control_plane_url` (deployment calls go to
    `<api_url>/api-host`) creates, re-plans empty and destroys in either mode."""
    box = sandbox("older", mode, INSTANT)
    wanted = {"image": (cloud_resources() if mode == "cloud" else self_hosted_resources())["image"]}
    ids = create_every_source(box, wanted)
    assert_plans_nothing(box)
    destroy_all(box, list(ids.values()))


def counted_fleet() -> Resources:
    """Every source the cloud mode has, the image under `count` and the template under
    `for_each`: instance addresses with both kinds of key."""
    resources = cloud_resources()
    resources["image"] |= {"count": 2, "name": "tf-image-${count.index}"}
    resources["quiet"] |= {"for_each": {"eu": "eu"}, "name": "tf-template-${each.key}"}
    return resources


@pytest.mark.slow
def test_planner_takes_over_what_terraform_applied(
    sandbox: OpenSandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The state the real Terraform wrote, as its state file and as `terraform show
    -json`: `planner import --from-terraform` adopts every deployment (no environment
    value copied), the next plan is empty, and the `terraform state rm` lines it prints
    hand the deployments over: Terraform, its configuration without them, plans nothing
    and the deployments run on."""
    box = sandbox("current-cloud", "cloud", INSTANT)
    box.declare(counted_fleet())
    box.terraform.init()
    assert "4 added" in box.terraform.apply().stdout
    (tmp_path / "show.json").write_text(box.terraform.ok("show", "-json").stdout)
    tenant = re.search(r'workspace_id\s*=\s*"([^"]+)"', box.provider)
    assert tenant is not None
    for name, value in {
        "PLANNER_BASE_URL": str(box.api.base_url).rstrip("/"),
        "PLANNER_API_KEY": KEY,
        "PLANNER_TENANT_ID": tenant[1],
        "MODEL_KEY": SECRET,
        "LOG_LEVEL": "info",
    }.items():
        monkeypatch.setenv(name, value)
    printed = ""
    for source in (box.terraform.workdir / "terraform.tfstate", tmp_path / "show.json"):
        folder = tmp_path / f"planner-{source.name}"
        folder.mkdir()
        monkeypatch.chdir(folder)
        monkeypatch.setenv("PLANNER_STATE_DIR", str(folder / "state"))
        argv = ["import", "--from-terraform", str(source), "--generate-config", "planner.toml"]
        assert main(argv) == 0, capsys.readouterr()
        printed = capsys.readouterr().out
        assert main(["plan", "--detailed-exitcode"]) == 0, capsys.readouterr()
        states = (path.read_text() for path in (folder / "state").glob("*.json"))
        assert SECRET not in (folder / "planner.toml").read_text() + "".join(states)
    handover = [line.strip() for line in printed.splitlines() if "terraform state rm" in line]
    assert len(handover) == 4 and "terraform state rm 'langsmith_deployment.image[1]'" in handover
    assert """terraform state rm 'langsmith_deployment.quiet["eu"]'""" in handover
    state = json.loads((box.terraform.workdir / "terraform.tfstate").read_text())
    ids = [i["attributes"]["id"] for r in state["resources"] for i in r["instances"]]
    # one command for the four lines (each spawns Terraform): the words each line's
    # shell quoting gives
    box.terraform.ok("state", "rm", *(shlex.split(line)[3] for line in handover))
    box.terraform.declare({})
    assert_plans_nothing(box)
    assert not [i for i in ids if box.is_gone(i)]
