"""Day-2 operations end to end: `planner serve` and the CLI as real processes."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time

import pytest

from planner.api.client import ControlPlaneClient
from planner.api.models import Deployment, DeploymentCreate, DeploymentPatch
from tests.cli.apply.test_apply_loopback import API_KEY, StartWorkdir, Workdir, config_text
from tests.cli.apply.test_apply_loopback import serve as serve  # the fixture, re-exported

pytestmark = pytest.mark.slow


def outside(work: Workdir, action: str, body: dict[str, object]) -> Deployment:
    """A change made outside the planner (the web console, another tool)."""

    async def go() -> Deployment:
        async with ControlPlaneClient(work.server.url, API_KEY) as client:
            if action == "create":
                return await client.create_deployment(DeploymentCreate.model_validate(body))
            found = await client.find_by_name(str(body.pop("name")))
            assert found is not None
            return await client.patch_deployment(found.id, DeploymentPatch.model_validate(body))

    return asyncio.run(go())


def digest(work: Workdir) -> str:
    return hashlib.sha256((work.root / "state" / "day2.state.json").read_bytes()).hexdigest()


def test_failed_rollout_drift_check_and_adoption_end_to_end(serve: StartWorkdir) -> None:
    """fail-deploy -> plan exit 2 naming the revision; a hand-made deployment listed with
    its import command; two refresh-only checks exit 2 without writing; apply
    --refresh-only records; fixing the config and applying leaves an empty plan."""
    work = serve("--build-seconds", "0.1", "--deploy-seconds", "0.1", "--delete-seconds", "0.1")
    config = work.write(
        "day2.toml",
        config_text("ok", 1) + config_text("bad", 1, "registry.example.com/app:fail-deploy"),
    )
    assert work.run("apply", "-c", config, "--auto-approve")[0] == 1
    time.sleep(0.5)
    code, out, err = work.run("plan", "-c", config, "--detailed-exitcode")
    assert code == 2, out + err
    assert "↻ bad0 will get a new revision" in out and "DEPLOY_FAILED" in out
    made = outside(work, "create", {"name": "by-hand", "source": "internal_docker"})
    outside(work, "patch", {"name": "ok0", "source_revision_config": {"image_uri": "img:2"}})
    time.sleep(0.5)
    code, out, _ = work.run("plan", "-c", config, "--format", "json")
    [unmanaged] = json.loads(out)["unmanaged"]
    assert unmanaged["import_command"] == f"planner import -c day2.toml by-hand {made.id}"
    before = digest(work)
    for _ in range(2):
        code, out, err = work.run("plan", "-c", config, "--refresh-only", "--detailed-exitcode")
        assert code == 2, out + err
        assert "ok0: source_revision_config.image_uri" in out
        assert digest(work) == before
    assert work.run("apply", "-c", config, "--refresh-only", "--auto-approve")[0] == 0
    assert digest(work) != before
    assert work.run("plan", "-c", config, "--refresh-only", "--detailed-exitcode")[0] == 0
    work.write(
        "day2.toml",
        config_text("ok", 1) + config_text("bad", 1, "registry.example.com/app:2"),
    )
    code, out, err = work.run("apply", "-c", config, "--auto-approve")
    assert code == 0, out + err
    time.sleep(0.5)
    code, out, err = work.run("plan", "-c", config, "--detailed-exitcode")
    assert code == 0, out + err
    assert "No changes. The deployments match the configuration." in out
    assert "by-hand" in out  # still listed, nothing sent for it
    code, out, _ = work.run("status", "-c", config, "--format", "json")
    rows = {row["name"]: row for row in json.loads(out)}
    assert set(rows) == {"ok0", "bad0"}
    assert all(r["latest_status"] == "DEPLOYED" and not r["drift"] for r in rows.values())
