"""examples/reconcile: the Kubernetes Deployment, the Compose file and the systemd unit are
valid against their published schemas (offline, from the packages that ship them) and
run `planner reconcile` the way the status page and the probes expect."""

from __future__ import annotations

import configparser
import copy
import json
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema_rs
import kubernetes_validate
import pytest
import yaml

from planner.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "reconcile"
PORT = 9108


def kubernetes_documents() -> list[dict[str, Any]]:
    documents: list[dict[str, Any]] = list(
        yaml.safe_load_all((EXAMPLES / "kubernetes.yaml").read_text())
    )
    return documents


def compose_file() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((EXAMPLES / "compose.yaml").read_text())
    return loaded


def compose_errors(document: dict[str, Any]) -> list[str]:
    """What the Compose Specification's schema (vendored by check-jsonschema) rejects."""
    vendored = resources.files("check_jsonschema.builtin_schemas.vendor")
    schema = json.loads((vendored / "compose-spec.json").read_text(encoding="utf-8"))
    return [error.message for error in jsonschema_rs.validator_for(schema).iter_errors(document)]


def kubernetes_error(document: dict[str, Any]) -> str | None:
    """What the Kubernetes schema (kubernetes-validate's, strict: no unknown field) rejects."""
    try:
        kubernetes_validate.validate(document, kubernetes_validate.latest_version(), strict=True)
    except kubernetes_validate.ValidationError as error:
        return str(error)
    return None


def listen_port(args: list[str]) -> int:
    """The port of `--listen HOST:PORT` in a `planner reconcile` command line."""
    assert args[0] == "reconcile", args
    return int(args[args.index("--listen") + 1].rpartition(":")[2])


def test_the_kubernetes_manifests_are_valid() -> None:
    """Each document validates strictly against the newest Kubernetes schema shipped."""
    documents = kubernetes_documents()
    assert [d["kind"] for d in documents] == ["Deployment", "Service"]
    assert [kubernetes_error(d) for d in documents] == [None, None]


def test_the_kubernetes_check_rejects_a_broken_manifest() -> None:
    """The same check fails on a misspelt field and on a wrong type (so passing means something)."""
    deployment = kubernetes_documents()[0]
    misspelt = copy.deepcopy(deployment)
    misspelt["spec"]["replica"] = 2
    wrong_type = copy.deepcopy(deployment)
    wrong_type["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"] = "/"
    assert kubernetes_error(misspelt) is not None
    assert kubernetes_error(wrong_type) is not None


def test_the_deployment_runs_two_replicas_on_a_postgres_state_with_probes() -> None:
    """Two replicas; PLANNER_STATE and the API key from a Secret, never inline; liveness on
    /healthz and readiness on /readyz at the --listen port; time to wind down on SIGTERM."""
    deployment = kubernetes_documents()[0]
    assert deployment["spec"]["replicas"] == 2
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    env = {variable["name"]: variable for variable in container["env"]}
    for name in ("PLANNER_STATE", "PLANNER_API_KEY"):
        assert "value" not in env[name]
        assert env[name]["valueFrom"]["secretKeyRef"]["name"] == "planner"
    (port,) = container["ports"]
    assert port == {"name": "http", "containerPort": PORT, "protocol": "TCP"}
    assert listen_port(container["args"]) == PORT
    assert container["args"][container["args"].index("--listen") + 1] == f"0.0.0.0:{PORT}"
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert pod["terminationGracePeriodSeconds"] >= 60
    service = kubernetes_documents()[1]
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]


def test_the_compose_file_is_valid() -> None:
    """compose.yaml validates against the Compose Specification schema; a broken one does not."""
    document = compose_file()
    assert compose_errors(document) == []
    broken = copy.deepcopy(document)
    broken["services"]["reconcile"]["ports"] = {"http": PORT}
    broken["services"]["reconcile"]["restrat"] = "always"
    errors = compose_errors(broken)
    assert any("not of type" in e for e in errors) and any("restrat" in e for e in errors)


def test_the_compose_service_serves_probes_on_its_listen_port() -> None:
    """The --listen port is the one published (on 127.0.0.1 only) and health-checked on
    /readyz; the state's password and the API key come from the environment (.env)."""
    service = compose_file()["services"]["reconcile"]
    assert listen_port(service["command"]) == PORT
    assert service["ports"] == [f"127.0.0.1:{PORT}:{PORT}"]
    assert f"http://127.0.0.1:{PORT}/readyz" in service["healthcheck"]["test"][-1]
    environment = service["environment"]
    assert environment["PLANNER_API_KEY"].startswith("${PLANNER_API_KEY:?")
    assert "${POSTGRES_PASSWORD:?" in environment["PLANNER_STATE"]
    assert environment["PLANNER_STATE"].startswith("postgresql://")
    assert service["stop_signal"] == "SIGTERM"


def systemd_unit() -> configparser.ConfigParser:
    unit = configparser.ConfigParser(interpolation=None, strict=True)
    unit.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    unit.read_string((EXAMPLES / "planner-reconcile.service").read_text())
    return unit


def test_the_systemd_unit_runs_reconcile_with_its_secrets_in_a_file() -> None:
    """Three sections; ExecStart runs `planner reconcile` listening on loopback; the secrets
    come from an EnvironmentFile, none is in the unit; SIGTERM with time to wind down."""
    unit = systemd_unit()
    assert unit.sections() == ["Unit", "Service", "Install"]
    service = unit["Service"]
    command = shlex.split(service["ExecStart"])
    assert command[0] == "/opt/planner/bin/planner"
    assert listen_port(command[1:]) == PORT
    assert command[command.index("--listen") + 1] == f"127.0.0.1:{PORT}"
    assert service["EnvironmentFile"] == "/etc/planner/reconcile.env"
    assert "Environment" not in service
    assert service["KillSignal"] == "SIGTERM" and int(service["TimeoutStopSec"]) >= 60
    assert unit["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.slow  # runs systemd-analyze
def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    """`systemd-analyze verify` has nothing to say about the unit (the planner's path is
    this interpreter's, which exists here); it does complain about a broken copy."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd)")
    text = (EXAMPLES / "planner-reconcile.service").read_text()
    unit = tmp_path / "planner-reconcile.service"
    unit.write_text(text.replace("/opt/planner/bin/planner", sys.executable))
    verified = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True)
    assert (verified.returncode, verified.stdout + verified.stderr) == (0, "")
    unit.write_text(text.replace("Restart=on-failure", "Restart=sometimes\nRestrat=always"))
    broken = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True)
    assert "Restrat" in broken.stderr and "sometimes" in broken.stderr


def test_every_example_command_line_is_one_planner_accepts() -> None:
    """The three command lines parse as `planner reconcile` and agree with each other:
    the config, the environment, the interval, the JSON events."""
    container = kubernetes_documents()[0]["spec"]["template"]["spec"]["containers"][0]
    unit = shlex.split(systemd_unit()["Service"]["ExecStart"])[1:]
    parsed = [
        vars(build_parser().parse_args(args))
        for args in (container["args"], compose_file()["services"]["reconcile"]["command"], unit)
    ]
    for options in parsed:
        assert options["config"] == "/etc/planner/planner.toml" and options["env"] == "prod"
        assert (options["interval"], options["mode"], options["format"]) == (300, "heal", "json")
    assert [options["listen"] for options in parsed] == [
        f"0.0.0.0:{PORT}",
        f"0.0.0.0:{PORT}",
        f"127.0.0.1:{PORT}",
    ]
