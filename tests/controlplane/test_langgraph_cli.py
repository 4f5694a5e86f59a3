"""langgraph-cli's real `HostBackendClient` (the pinned dev dependency) against a local
control plane over loopback HTTP, in both dialects (`planner serve --dialect seed` and
`--dialect service`): every call its deploy, list, logs and delete commands make, in the
order `langgraph deploy` makes them.

Nothing of the client is faked: its own httpx transport, headers (`X-Api-Key`,
`X-Tenant-ID`), paging, error mapping, archive builder and upload PUT run as shipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_cli.archive import create_archive
from langgraph_cli.config import validate_config_file
from langgraph_cli.deploy import _upload_source_tarball
from langgraph_cli.host_backend import HostBackendClient, HostBackendError

from planner.api.rules import Mode
from planner.api.vocabulary import Dialect
from planner.controlplane.settings import SELF_HOSTED_PREFIX, ServerSettings
from tests.loopback import served

API_KEY = "cli-key"
TENANT = "6f1c2c1e-0000-4000-8000-00000000000a"
LISTENER = "5e1a7c00-0000-4000-8000-00000000c001"


def settings(tmp_path: Path, dialect: Dialect, mode: Mode = Mode.CLOUD) -> ServerSettings:
    return ServerSettings(
        db_path=tmp_path / f"cp-{mode}-{dialect}.db",
        api_keys={API_KEY: [TENANT]},
        build_seconds=0.3,
        deploy_seconds=0.3,
        delete_seconds=0.3,
        mode=mode,
        dialect=dialect,
    )


@pytest.fixture(params=list(Dialect))
def dialect(request: pytest.FixtureRequest) -> Dialect:
    """Each test runs against a server of each dialect."""
    return Dialect(request.param)


@pytest.fixture
def client(tmp_path: Path, dialect: Dialect) -> Iterator[HostBackendClient]:
    """The CLI's client of a cloud-mode local control plane, as `--host-url` makes it."""
    with served(settings(tmp_path, dialect)) as url:
        cli = HostBackendClient(url, API_KEY, TENANT)
        try:
            yield cli
        finally:
            cli._client.close()


def wait_for(read: Callable[[], Any], done: Callable[[Any], bool], timeout: float = 20.0) -> Any:
    """Poll as the CLI does until `done(value)`; the value, or a failed assertion."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value):
            return value
        assert time.monotonic() < deadline, f"still {value!r} after {timeout}s"
        time.sleep(0.05)


def revision_status(client: HostBackendClient, deployment_id: str, revision_id: str) -> str:
    return str(client.get_revision(deployment_id, revision_id)["status"])


def deployed(client: HostBackendClient, deployment_id: str, revision_id: str) -> None:
    status = wait_for(
        lambda: revision_status(client, deployment_id, revision_id),
        lambda s: s in ("DEPLOYED", "BUILD_FAILED", "DEPLOY_FAILED"),
    )
    assert status == "DEPLOYED"


def project(tmp_path: Path) -> Path:
    """A minimal agent project (what `langgraph deploy` archives)."""
    root = tmp_path / "agent"
    root.mkdir()
    (root / "langgraph.json").write_text(
        '{"dependencies": ["."], "graphs": {"agent": "./agent.py:graph"}}'
    )
    (root / "agent.py").write_text("graph = None\n")
    return root / "langgraph.json"


# langgraph-cli 0.4.40's archiver uses pathspec's deprecated 'gitwildmatch' name: its
# warning, not ours (the suite runs with warnings as errors).
@pytest.mark.filterwarnings("ignore:GitWildMatchPattern:DeprecationWarning")
def test_source_upload_deploy_builds_logs_and_deletes(
    client: HostBackendClient, tmp_path: Path, dialect: Dialect
) -> None:
    """create -> get -> list -> upload-url -> PUT tarball -> PATCH revision -> build logs ->
    revisions -> delete -> 404: `langgraph deploy` of a source tree, then `deploy delete`;
    the config path the CLI sends in the service's word is kept by the service dialect."""
    created = client.create_deployment(
        name="cli-source",
        source="internal_source",
        source_config={},
        source_revision_config={},
        secrets=[{"name": "LOG_LEVEL", "value": "info"}],
    )
    deployment_id = created["id"]
    assert client.get_deployment(deployment_id)["name"] == "cli-source"
    assert [d["id"] for d in client.list_deployments(name_contains="cli-")] == [deployment_id]

    config_path = project(tmp_path)
    upload = client.request_upload_url(deployment_id)
    with create_archive(config_path, validate_config_file(config_path)) as archive:
        archive_path, size, config_rel = archive
        _upload_source_tarball(upload["upload_url"], archive_path, size, upload["upload_headers"])
    updated = client.update_deployment_internal_source(
        deployment_id,
        source_tarball_path=upload["object_path"],
        config_path=config_rel,
        install_command="pip install -e .",
        tracked_packages=["langgraph"],
    )
    revision_id = updated["latest_revision_id"]
    assert updated["source_revision_config"]["source_tarball_path"] == upload["object_path"]
    kept = updated["source_revision_config"].get("langgraph_config_path")
    assert kept == (config_rel if dialect is Dialect.SERVICE else None)
    assert updated["source_config"]["install_command"] == "pip install -e ."
    deployed(client, deployment_id, revision_id)

    logs = client.get_build_logs(deployment_id, revision_id, {"order": "asc", "limit": 50})
    messages = [entry["message"] for entry in logs["logs"]]
    assert f"Fetched {upload['object_path']}: {size} bytes, sha256 " in "\n".join(messages)
    assert "Installing: pip install -e ." in messages
    later = client.get_build_logs(
        deployment_id, revision_id, {"order": "asc", "limit": 50, "offset": logs["next_offset"]}
    )
    assert later["logs"] == []

    revisions = client.list_revisions(deployment_id, limit=5)
    assert revisions[0]["id"] == revision_id
    assert [r["status"] for r in revisions] == ["DEPLOYED", "SKIPPED"]

    client.delete_deployment(deployment_id)  # 204: no body, the client returns None
    assert client.get_deployment(deployment_id)["status"] in (
        "AWAITING_DELETE",
        "AWAITING_FINAL_DELETE",
    )

    def is_gone() -> bool:
        try:
            client.get_deployment(deployment_id)
        except HostBackendError as error:
            assert error.status_code == 404
            return True
        return False

    wait_for(is_gone, bool)


def test_image_push_deploy_patches_the_pushed_image(client: HostBackendClient) -> None:
    """create -> push-token -> PATCH image_uri: `langgraph deploy` of a local image."""
    created = client.create_deployment(  # as `langgraph deploy` does: secrets always sent
        name="cli-image",
        source="internal_docker",
        source_config={"deployment_type": "dev"},
        source_revision_config={},
        secrets=[],
    )
    token = client.request_push_token(created["id"])
    assert token["token"] and token["registry_url"] and token["username"]
    image = f"{token['repository_url'].removeprefix('https://')}:1"
    updated = client.update_deployment(
        created["id"], image, revision_source="internal_docker", secrets=[]
    )
    assert updated["source_revision_config"]["image_uri"] == image
    deployed(client, created["id"], updated["latest_revision_id"])
    with pytest.raises(HostBackendError) as refused:
        client.request_upload_url(created["id"])
    assert refused.value.status_code == 409


def test_listeners_and_errors_come_back_as_the_cli_reads_them(
    client: HostBackendClient,
) -> None:
    """list_listeners pages to the end (each with its `compute_type`); get_listener reads
    one; an unknown deployment is the CLI's HostBackendError carrying our 404 detail."""
    listeners = client.list_listeners()
    assert [(item["id"], item["compute_type"]) for item in listeners] == [(LISTENER, "k8s")]
    assert client.get_listener(LISTENER)["compute_config"]["k8s_namespaces"] == ["agents"]
    missing = "00000000-0000-4000-8000-0000000000ff"
    with pytest.raises(HostBackendError) as raised:
        client.get_deployment(missing)
    assert raised.value.status_code == 404
    assert raised.value.detail == f"Deployment ID {missing} not found."


def test_a_self_hosted_base_url_ends_in_api_host(tmp_path: Path, dialect: Dialect) -> None:
    """Given `http://host:port/api-host`, the CLI sends every call under the prefix and
    the self-hosted server answers there."""
    with served(settings(tmp_path, dialect, Mode.SELF_HOSTED)) as url:
        cli = HostBackendClient(url + SELF_HOSTED_PREFIX, API_KEY, TENANT)
        try:
            assert cli.base_url.endswith(SELF_HOSTED_PREFIX)
            created = cli.create_deployment(
                name="hosted",
                source="external_docker",
                source_config={
                    "listener_id": LISTENER,
                    "listener_config": {"k8s_namespace": "agents"},
                },
                source_revision_config={"image_uri": "registry.example.com/agent:1"},
                secrets=[],
            )
            assert cli.list_listeners()[0]["id"] == LISTENER
            assert cli.get_deployment(created["id"])["source_config"]["listener_id"] == LISTENER
            cli.delete_deployment(created["id"])
        finally:
            cli._client.close()
