"""`planner serve` as a real process: URL on stdout, keys, metrics, restart persistence."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from planner.cli.main import main
from tests.controlplane.conftest import ServeProcess
from tests.controlplane.core_fixtures import git_host_body

StartServe = Callable[..., ServeProcess]


@pytest.mark.slow
def test_serve_prints_url_and_serves_metrics_and_api(
    serve_process: StartServe, tmp_path: Path
) -> None:
    """On --port 0 it prints its real URL first; /metrics needs no key; the API needs one."""
    server = serve_process("--db", str(tmp_path / "cp.db"), "--api-key", "test-key")
    assert server.url.startswith("http://127.0.0.1:") and not server.url.endswith(":0")
    with httpx2.Client(base_url=server.url, timeout=10) as client:
        assert "controlplane_requests_total" in client.get("/metrics").text
        assert client.get("/v2/auth/providers").status_code == 401
        providers = client.get("/v2/auth/providers", headers={"X-Api-Key": "test-key"})
        assert providers.status_code == 200 and len(providers.json()) == 2
    assert server.stop() == 0
    assert not any("test-key" in line for line in server.rest_of_output())


@pytest.mark.slow
def test_serve_without_key_generates_and_prints_one(
    serve_process: StartServe, tmp_path: Path
) -> None:
    """With no --api-key a new key is printed after the URL, and it is the one that works."""
    server = serve_process("--db", str(tmp_path / "cp.db"))
    line = server.next_line()
    assert line.startswith("API key: ")
    key = line.removeprefix("API key: ")
    with httpx2.Client(base_url=server.url, timeout=10) as client:
        assert client.get("/v2/auth/providers", headers={"X-Api-Key": key}).status_code == 200
        assert (
            client.get("/v2/auth/providers", headers={"X-Api-Key": "local-dev-key"}).status_code
            == 401
        )
    assert server.stop() == 0


@pytest.mark.slow
def test_restart_keeps_deployments(serve_process: StartServe, tmp_path: Path) -> None:
    """A deployment created before a stop is still there after starting again on the same db."""
    args = ("--db", str(tmp_path / "cp.db"), "--api-key", "k", "--build-seconds", "0.1")
    first = serve_process(*args)
    with httpx2.Client(base_url=first.url, headers={"X-Api-Key": "k"}, timeout=10) as client:
        created = client.post("/v2/deployments", json=git_host_body(secrets=[]))
        assert created.status_code == 201, created.text
    assert first.stop() == 0
    second = serve_process(*args)
    with httpx2.Client(base_url=second.url, headers={"X-Api-Key": "k"}, timeout=10) as client:
        again = client.get(f"/v2/deployments/{created.json()['id']}")
    assert again.status_code == 200
    assert again.json()["name"] == "support-agent"
    assert second.stop() == 0


@pytest.mark.slow
def test_serve_speaks_the_dialect_it_is_given(serve_process: StartServe, tmp_path: Path) -> None:
    """`--dialect service` serves the real service's words and says so on stderr and in
    its document; without the flag it is the seed's."""
    args = ("--db", str(tmp_path / "cp.db"), "--api-key", "k")
    service = serve_process(*args, "--dialect", "service")
    with httpx2.Client(base_url=service.url, headers={"X-Api-Key": "k"}, timeout=10) as client:
        document = client.get("/openapi.json").json()
        install = client.get("/api-host/v1/integrations/github/install")
    assert document["info"]["x-planner-dialect"] == "service"
    assert install.status_code == 200 and install.json()[0]["installation_id"] == 41000001
    assert service.stop() == 0
    assert "service dialect" in service.process.stderr.read()  # type: ignore[union-attr]
    seed = serve_process(*args)
    with httpx2.Client(base_url=seed.url, timeout=10) as client:
        assert client.get("/openapi.json").json()["info"]["x-planner-dialect"] == "seed"
    assert seed.stop() == 0


def test_an_unknown_dialect_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """`--dialect` takes `seed` or `service`; anything else exits 1 naming the flag."""
    with pytest.raises(SystemExit) as caught:
        main(["serve", "--dialect", "github"])
    assert caught.value.code == 1
    assert "--dialect: invalid choice: 'github'" in capsys.readouterr().err


def test_bad_flag_value_exits_1_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    """An out-of-range flag is a usage error (exit 1) that names the flag."""
    with pytest.raises(SystemExit) as caught:
        main(["serve", "--error-rate", "1.5"])
    assert caught.value.code == 1
    assert "--error-rate: must be between 0 and 1" in capsys.readouterr().err


def test_bad_api_key_tenant_exits_1_without_echoing_the_key(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--api-key KEY:TENANT` with a non-uuid tenant is refused without printing the key."""
    with pytest.raises(SystemExit) as caught:
        main(["serve", "--api-key", "hunter2-secret:acme"])
    assert caught.value.code == 1
    err = capsys.readouterr().err
    assert "TENANT in KEY:TENANT must be a uuid" in err
    assert "hunter2" not in err


def test_bad_seed_file_exits_1_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad seed file stops serve before it listens, with an error naming file and field."""
    seed = tmp_path / "seed.toml"
    seed.write_text('[[oauth_providers]]\nid = "x"\n')
    code = main(["serve", "--port", "0", "--db", str(tmp_path / "cp.db"), "--seed", str(seed)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"Invalid seed file {seed}" in err
    assert "oauth_providers.0.client_id: Field required" in err


def test_db_whose_folder_cannot_be_created_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `--db` under a regular file is "Cannot open the database", not an internal error."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    db = blocker / "cp.db"
    code = main(["serve", "--port", "0", "--api-key", "k", "--db", str(db)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"Cannot open the database {db}" in err
    assert "internal error" not in err


def test_db_that_is_a_directory_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--db` naming a directory is "Cannot open the database", not IsADirectoryError."""
    code = main(["serve", "--port", "0", "--api-key", "k", "--db", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1
    assert err == f"Error: Cannot open the database {tmp_path}: Is a directory\n"


def test_serve_parses_http_with_the_compiled_parser() -> None:
    """`planner serve` asks uvicorn for httptools (a dependency), which uvicorn loads."""
    import uvicorn
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from planner.cli.cmd_serve import http_parser

    assert http_parser() == "httptools"
    config = uvicorn.Config(lambda *_: None, http=http_parser())
    config.load()
    assert config.http_protocol_class is HttpToolsProtocol


def test_serve_runs_on_uvloop() -> None:
    """`planner serve` runs its event loop on uvloop (a dependency), which runs coroutines."""
    import asyncio

    import uvloop

    from planner.cli.cmd_serve import event_loop_factory

    factory = event_loop_factory()
    assert factory is uvloop.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        assert runner.run(asyncio.sleep(0, result="ran")) == "ran"
        assert isinstance(runner.get_loop(), uvloop.Loop)
