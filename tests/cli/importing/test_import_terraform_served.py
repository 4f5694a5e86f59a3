"""`planner import --from-terraform` against `planner serve --dialect service` over
loopback HTTP (the words the provider and the real service speak), in both modes, and
into a PostgreSQL state."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest

from planner.api.models import Deployment
from planner.api.rules import Mode
from planner.api.vocabulary import Dialect
from planner.controlplane.settings import DEFAULT_TENANT_ID, EMBEDDED_API_KEY, ServerSettings
from planner.secrets import url_without_password
from planner.state.postgres import PostgresBackend
from tests.cli.conftest import Result, Scenario
from tests.loopback import served
from tests.postgres import unique_name
from tests.terraform_states import Instance, attributes, show_json, state_file

INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
LISTENER = "5e1a7c00-0000-4000-8000-00000000c001"  # the default seed's listener
PUBLIC_VALUE = "warning-level-kept-in-the-terraform-state"
SECRET = "model-key-only-on-the-server"


@contextmanager
def service(root: Path, mode: Mode = Mode.CLOUD) -> Iterator[httpx2.Client]:
    """`planner serve --dialect service` on loopback (fast revisions): a client in the
    service's words, its base URL the plane's."""
    settings = ServerSettings(
        db_path=root / f"service-{mode}.db",
        build_seconds=0.05,
        deploy_seconds=0.05,
        delete_seconds=0.05,
        dialect=Dialect.SERVICE,
        mode=mode,
    )
    headers = {"X-Api-Key": EMBEDDED_API_KEY, "X-Tenant-Id": DEFAULT_TENANT_ID}
    with served(settings) as url, httpx2.Client(base_url=url, headers=headers) as client:
        yield client


def created(api: httpx2.Client, body: dict[str, Any]) -> Deployment:
    """A deployment made as the provider makes one (the service's words), once deployed."""
    response = api.post("/v2/deployments", json=body)
    assert response.status_code == 201, response.text
    return Deployment.model_validate(response.json())


def cloud_fleet(api: httpx2.Client) -> list[Instance]:
    """A github deployment with cache sizes and its environment (a public variable and a
    secret), an image deployment with a display name, both as Terraform wrote them."""
    git = created(
        api,
        {
            "name": "tf-git",
            "source": "github",
            "source_config": {
                "integration_id": INTEGRATION,
                "repo_url": "https://git.example.com/acme/agent",
                "build_on_push": False,
                "resource_spec": {"cpu": 1, "redis_cpu": 0.5, "redis_memory_mb": 256},
            },
            "source_revision_config": {"repo_ref": "main", "langgraph_config_path": "lg.json"},
            "secrets": [
                {"name": "LOG_LEVEL", "value": PUBLIC_VALUE},
                {"name": "MODEL_KEY", "value": SECRET},
            ],
        },
    )
    image = created(
        api,
        {
            "name": "tf-image",
            "source": "internal_docker",
            "source_config": {"resource_spec": {"min_scale": 1, "max_scale": 2}},
            "source_revision_config": {"image_uri": "registry.example.com/agent:1"},
            "secrets": [],
        },
    )
    api.patch(f"/v2/deployments/{image.id}", json={"display_name": "Image agent"})
    image = Deployment.model_validate(api.get(f"/v2/deployments/{image.id}").json())
    git_attributes = attributes(git, environment_variables={"LOG_LEVEL": PUBLIC_VALUE})
    return [
        Instance("git", git_attributes, module="module.agents"),
        Instance("image", attributes(image), index_key="blue"),
    ]


def self_hosted_fleet(api: httpx2.Client) -> list[Instance]:
    """An image bound to the seed's listener, with a namespace and a custom URL."""
    hosted = created(
        api,
        {
            "name": "tf-hosted",
            "source": "external_docker",
            "source_config": {
                "listener_id": LISTENER,
                "listener_config": {"k8s_namespace": "agents"},
                "custom_url": "https://agent.example.com",
            },
            "source_revision_config": {"image_uri": "registry.example.com/agent:1"},
            "secrets": [{"name": "LOG_LEVEL", "value": PUBLIC_VALUE}],
        },
    )
    public = {"LOG_LEVEL": PUBLIC_VALUE}
    return [Instance("hosted", attributes(hosted, environment_variables=public), index_key=0)]


def adopt(scenario: Scenario, data: dict[str, Any], *argv: str) -> Result:
    (scenario.root / "terraform.tfstate").write_text(json.dumps(data), encoding="utf-8")
    return scenario.cli("import", "--from-terraform", "terraform.tfstate", *argv)


@pytest.fixture
def keyed(scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> Scenario:
    """The scenario with no config yet, the served planes' key and the environment set."""
    monkeypatch.setenv("PLANNER_API_KEY", EMBEDDED_API_KEY)
    monkeypatch.setenv("LOG_LEVEL", PUBLIC_VALUE)
    monkeypatch.setenv("MODEL_KEY", SECRET)
    scenario.config_path.unlink()
    return scenario


@pytest.mark.parametrize(
    ("mode", "fleet"),
    [(Mode.CLOUD, cloud_fleet), (Mode.SELF_HOSTED, self_hosted_fleet)],
    ids=["cloud", "self-hosted"],
)
def test_a_service_dialect_plane_gives_a_config_in_the_providers_words(
    keyed: Scenario, monkeypatch: pytest.MonkeyPatch, mode: Mode, fleet: Any
) -> None:
    """Against the service dialect the generated config keeps the words the provider
    wrote (`github`, `langgraph_config_path`), declares only what the Terraform state
    does, names the control plane, and the next plan is empty; no environment value is
    written."""
    with service(keyed.root, mode) as api:
        monkeypatch.setenv("PLANNER_BASE_URL", str(api.base_url).rstrip("/"))
        result = adopt(keyed, show_json(fleet(api)), "--generate-config", "planner.toml")
        assert result.code == 0, result.out + result.err
        text = keyed.config_path.read_text()
        planned = keyed.plan("--detailed-exitcode")
        assert planned.code == 0, planned.out + planned.err
    assert PUBLIC_VALUE not in text + result.out + result.err and SECRET not in text
    data = tomllib.loads(text)
    assert data["control_plane"]["base_url"] == str(api.base_url).rstrip("/")
    if mode is Mode.CLOUD:
        git = data["deployments"]["tf-git"]
        assert git["source"] == "github"
        assert git["source_revision_config"] == {
            "langgraph_config_path": "lg.json",
            "repo_ref": "main",
        }
        # the provider's resource_spec has no cache sizes: what Terraform does not
        # declare, the config does not either (and the plan leaves them be)
        assert git["source_config"]["resource_spec"] == {"cpu": 1.0}
        assert git["secrets"] == {
            "LOG_LEVEL": {"env": "LOG_LEVEL"},
            "MODEL_KEY": {"env": "MODEL_KEY"},
        }
        assert data["deployments"]["tf-image"]["display_name"] == "Image agent"
        assert "terraform state rm 'module.agents.langsmith_deployment.git'" in result.out
        assert "terraform state rm 'langsmith_deployment.image[\"blue\"]'" in result.out
    else:
        hosted = data["deployments"]["tf-hosted"]["source_config"]
        assert hosted["listener_config"] == {"k8s_namespace": "agents"}
        assert data["control_plane"]["mode"] == "self-hosted"


def test_adopts_into_a_postgresql_state_over_the_service_dialect(
    keyed: Scenario, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `-c`'s `[state] url` in PostgreSQL: the deployments are recorded there (under
    the generated config's name, or `-c`'s own without --generate-config), no local
    state file is written, and each config's next plan is empty."""
    monkeypatch.setenv("PGPASSWORD", urlsplit(postgres_url).password or "")
    url = url_without_password(postgres_url)
    with service(keyed.root) as api:
        base = str(api.base_url).rstrip("/")
        instances = cloud_fleet(api)
        own = unique_name("own")
        keyed.write_config(
            f'[control_plane]\nbase_url = "{base}"\n\n[state]\nurl = "{url}"\nname = "{own}"\n'
        )
        stem = unique_name("adopted")
        generated = adopt(keyed, state_file(instances[:1]), "--generate-config", f"{stem}.toml")
        assert generated.code == 0, generated.out + generated.err
        assert tomllib.loads((keyed.root / f"{stem}.toml").read_text())["state"] == {"url": url}
        assert keyed.plan("-c", f"{stem}.toml", "--detailed-exitcode").code == 0
        image = instances[1].attributes
        keyed.write_config(
            keyed.config_path.read_text()
            + '\n[deployments.tf-image]\nsource = "internal_docker"\ndisplay_name = "Image agent"\n'
            f'source_revision_config.image_uri = "{image["source_revision_config"]["image_uri"]}"\n'
        )
        into = adopt(keyed, state_file(instances))
        assert into.code == 1 and "already managed by the state" in into.err
        into = adopt(keyed, state_file(instances[1:]))
        assert into.code == 0, into.out + into.err
        assert keyed.plan("--detailed-exitcode").code == 0
    assert not list((keyed.root / "state").glob("*.state.json"))
    recorded = {}
    for name in (stem, own):
        backend = PostgresBackend(postgres_url, name=name)
        try:
            doc = backend.read()
        finally:
            backend.close()
        assert doc is not None
        recorded[name] = sorted(r.id for r in doc.deployments.values())
    ids = [instance.attributes["id"] for instance in instances]
    assert recorded == {stem: [ids[0]], own: [ids[1]]}
