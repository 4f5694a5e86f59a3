"""examples/ci and the action (action.yml): the workflows and the action validate against
the published schemas and pass zizmor, and their shell steps (examples/ci/scripts, the
action's steps as action.yml lists them) work against the local control plane on loopback
(tests/loopback.py: the `planner serve` app in a thread, so no test pays a server process's
start), with `gh`, `curl` and the install step's `python3` stubbed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from planner.controlplane.settings import ServerSettings
from planner.errors import PlanStaleError
from tests.ci_stubs import install_python_stub, install_stubs
from tests.loopback import served
from tests.postgres import unique_name, with_a_password

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / "examples" / "ci"
SCRIPTS = CI / "scripts"
WORKFLOWS = sorted((CI / "github").glob("*.yml"))
GITLAB = CI / "gitlab" / ".gitlab-ci.yml"
ACTION = ROOT / "action.yml"  # the composite action, at the repository root
DEV_TENANT = "11111111-1111-4111-8111-111111111111"
KEY = "ci-key"
CONFIG = "examples/fleet/planner.toml"
MARKER = f"<!-- planner-plan: {CONFIG}#dev -->"


pytestmark = pytest.mark.slow  # they start planner, bash, check-jsonschema and zizmor


@pytest.mark.parametrize(
    ("schema", "files"),
    [("vendor.github-workflows", WORKFLOWS), ("vendor.gitlab-ci", [GITLAB])],
    ids=["github", "gitlab"],
)
def test_workflows_are_valid_against_the_vendored_schemas(schema: str, files: list[Path]) -> None:
    """check-jsonschema's built-in (vendored, offline) schemas accept every workflow."""
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema]
    result = subprocess.run(
        [*command, *map(str, files)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(WORKFLOWS) == 3


def zizmor_command() -> list[str]:
    """zizmor (the `dev` extra) from this interpreter's scripts directory, else PATH."""
    scripts = sysconfig.get_path("scripts")
    found = shutil.which("zizmor", path=os.pathsep.join([scripts, os.environ.get("PATH", "")]))
    assert found, "zizmor is not installed: pip install -e '.[dev]'"
    return [found, "--offline", "--no-config", "--no-progress", "--format", "json"]


def test_github_workflows_have_no_zizmor_finding() -> None:
    """zizmor, offline and with its strictest persona, finds nothing in the shipped GitHub
    workflows and the action: actions pinned to a commit, no persisted token, per-job
    permissions, no expression expanded in a script."""
    command = [*zizmor_command(), "--persona", "auditor", *map(str, [*WORKFLOWS, ACTION])]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(result.stdout) == []


def test_zizmor_finds_what_the_workflows_avoid(tmp_path: Path) -> None:
    """The same zizmor run reports a workflow with an unpinned action, a checkout that keeps
    its token and a workflow-wide write permission, and an action that expands an input in
    its script and writes GITHUB_PATH (so the clean result above means something)."""
    workflow = tmp_path / "bad.yml"
    workflow.write_text(
        "name: bad\non: push\npermissions:\n  pull-requests: write\njobs:\n  one:\n"
        "    name: one\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n"
    )
    action = tmp_path / "bad-action" / "action.yml"
    action.parent.mkdir()
    action.write_text(
        "name: bad\ndescription: bad\ninputs:\n  config:\n    description: c\n"
        "runs:\n  using: composite\n  steps:\n    - shell: bash\n"
        '      run: |\n        planner plan -c "${{ inputs.config }}"\n'
        '        echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"\n'
    )
    result = subprocess.run(
        [*zizmor_command(), "--persona", "auditor", str(workflow), str(action)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    found = {finding["ident"] for finding in json.loads(result.stdout)}
    expected = {"unpinned-uses", "artipacked", "excessive-permissions"}
    assert expected | {"template-injection", "github-env"} <= found


def test_every_script_a_workflow_runs_exists_and_parses() -> None:
    """Each examples/ci/scripts/*.sh a workflow or the action names (or a script they run
    runs as `"$here/NAME.sh"`) is there, executable, valid bash."""
    named: set[str] = set()
    for workflow in [*WORKFLOWS, GITLAB, ACTION]:
        named |= set(re.findall(r"examples/ci/scripts/([\w-]+\.sh)", workflow.read_text()))
    size = 0
    while size != len(named):  # the scripts those scripts run, until no new one appears
        size = len(named)
        for name in list(named):
            run = r'(?<!\. )"\$here/([\w-]+\.sh)"'  # run, not sourced (`. "$here/…"`)
            named |= set(re.findall(run, (SCRIPTS / name).read_text()))
    expected = {"plan.sh", "apply.sh", "drift.sh", "github-comment.sh", "gitlab-comment.sh"}
    assert expected | {"github-action.sh", "marker.sh"} <= named
    for name in named:
        script = SCRIPTS / name
        assert os.access(script, os.X_OK), f"{name} is not executable"
        check = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr


@dataclass
class Job:
    """A CI job's workspace: the repo checkout, its environment, the stubs' call log."""

    repo: Path
    env: dict[str, str]
    log: Path
    responses: Path

    def run(self, script: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(SCRIPTS / script), *args],
            cwd=self.repo,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=120,
        )

    def answer(self, responses: dict[str, Any]) -> None:
        self.responses.write_text(json.dumps(responses))
        self.log.write_text("")

    def calls(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def output(self) -> str:
        return Path(self.env["GITHUB_OUTPUT"]).read_text()

    def planner(self, *argv: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "planner", *argv]
        return subprocess.run(
            command, cwd=self.repo, env=self.env, capture_output=True, text=True, timeout=120
        )


@pytest.fixture
def ci_server(tmp_path: Path) -> Iterator[str]:
    """The control plane on loopback with the fleet's dev workspace and short timings; its URL."""
    settings = ServerSettings(
        db_path=tmp_path / "cp.db",
        api_keys={KEY: [DEV_TENANT]},
        build_seconds=0.05,
        deploy_seconds=0.05,
    )
    with served(settings) as url:
        yield url


@pytest.fixture
def job(tmp_path: Path, ci_server: str) -> Job:
    """A checkout holding the fleet example, PLANNER_* and fake GITHUB_*/GitLab variables."""
    repo = tmp_path / "repo"
    (repo / "examples" / "fleet").mkdir(parents=True)
    shutil.copy(ROOT / CONFIG, repo / CONFIG)
    install_stubs(tmp_path / "bin")
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("PLANNER_", "GITHUB_"))}
    path = os.pathsep.join([str(tmp_path / "bin"), str(Path(sys.executable).parent), keep["PATH"]])
    env = {
        **keep,
        "PATH": path,
        "PLANNER_BASE_URL": ci_server,
        "PLANNER_API_KEY": KEY,
        "PLANNER_ENV": "dev",
        "PLANNER_CONFIG": CONFIG,
        "PLANNER_STATE_DIR": str(tmp_path / "state"),
        "PLAN_DIR": "plan-out",
        "GITHUB_OUTPUT": str(tmp_path / "github-output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "step-summary.md"),
        "GITHUB_REPOSITORY": "acme/agents",
        "GITHUB_SHA": "merge-sha",
        "GH_TOKEN": "not-a-token",
        "PR_NUMBER": "7",
        "GITLAB_TOKEN": "not-a-token",
        "CI_API_V4_URL": "https://gitlab.example.com/api/v4",
        "CI_PROJECT_ID": "42",
        "CI_MERGE_REQUEST_IID": "5",
        "CI_COMMIT_SHA": "merge-sha",
        "STUB_LOG": str(tmp_path / "stub-log.jsonl"),
        "STUB_RESPONSES": str(tmp_path / "stub-responses.json"),
        "STUB_ARTIFACT": str(tmp_path / "artifact"),
    }
    made = Job(repo, env, tmp_path / "stub-log.jsonl", tmp_path / "stub-responses.json")
    made.answer({})
    return made


def run_plan_step(job: Job) -> str:
    """Run plan.sh; return its markdown."""
    result = job.run("plan.sh")
    assert result.returncode == 0, result.stdout + result.stderr
    return (job.repo / "plan-out" / "plan.md").read_text()


def test_plan_step_saves_the_plan_and_comments_once_per_environment(job: Job) -> None:
    """plan.sh saves plan.json and its markdown; the comment is created, then edited."""
    markdown = run_plan_step(job)
    assert MARKER in markdown
    assert "changes=true" in job.output()
    assert MARKER in Path(job.env["GITHUB_STEP_SUMMARY"]).read_text()
    assert json.loads((job.repo / "plan-out" / "plan.json").read_text())["saved"]
    result = job.run("github-comment.sh", "plan-out/plan.md")
    assert result.returncode == 0, result.stderr
    listed, created = job.calls()
    assert listed["path"] == "repos/acme/agents/issues/7/comments"
    assert (created["method"], created["path"]) == ("POST", "repos/acme/agents/issues/7/comments")
    assert created["fields"]["body"] == markdown
    job.answer(
        {
            "GET repos/acme/agents/issues/7/comments": [
                {"id": 1, "body": "unrelated"},
                {"id": 99, "body": f"old plan\n{MARKER}"},
            ]
        }
    )
    assert job.run("github-comment.sh", "plan-out/plan.md").returncode == 0
    edited = job.calls()[-1]
    assert (edited["method"], edited["path"]) == ("PATCH", "repos/acme/agents/issues/comments/99")


def test_gitlab_note_is_sticky_too(job: Job) -> None:
    """gitlab-comment.sh creates the MR note, then edits the one holding the marker."""
    run_plan_step(job)
    assert job.run("gitlab-comment.sh", "plan-out/plan.md").returncode == 0
    assert [(c["method"], c["path"].split("?")[0]) for c in job.calls()] == [
        ("GET", "merge_requests/5/notes"),
        ("POST", "merge_requests/5/notes"),
    ]
    job.answer({"GET merge_requests/5/notes": [{"id": 3, "body": MARKER}]})
    assert job.run("gitlab-comment.sh", "plan-out/plan.md").returncode == 0
    assert job.calls()[-1]["method"] == "PUT"
    assert job.calls()[-1]["path"] == "merge_requests/5/notes/3"


def test_find_plan_downloads_the_reviewed_artifact(job: Job, tmp_path: Path) -> None:
    """The merged PR's plan run artifact lands in plan-out (GitHub and GitLab)."""
    run_plan_step(job)
    shutil.copy(job.repo / "plan-out" / "plan.json", tmp_path / "artifact")
    shutil.rmtree(job.repo / "plan-out")
    job.answer(
        {
            "GET repos/acme/agents/commits/merge-sha/pulls": [{"number": 7}],
            "GET repos/acme/agents/pulls/7": {"head": {"sha": "head-sha"}},
            "GET repos/acme/agents/actions/workflows/planner-plan.yml/runs?head_sha=head-sha": {
                "workflow_runs": [{"id": 555}]
            },
        }
    )
    result = job.run("github-find-plan.sh", "dev")
    assert result.returncode == 0, result.stderr
    assert job.calls()[-1] == {
        "tool": "gh",
        "method": "DOWNLOAD",
        "path": "555",
        "fields": {"name": "plan-dev"},
    }
    assert "pr=7" in job.output()
    assert (job.repo / "plan-out" / "plan.json").read_bytes() == (
        tmp_path / "artifact"
    ).read_bytes()
    job.answer({})
    missing = job.run("github-find-plan.sh", "dev")
    assert missing.returncode == 1 and "no reviewed plan" in missing.stderr


def test_gitlab_find_plan_unpacks_the_job_artifacts(job: Job, tmp_path: Path) -> None:
    """The `plan: [dev]` job's artifacts archive of the MR pipeline is unpacked."""
    run_plan_step(job)
    saved = (job.repo / "plan-out" / "plan.json").read_bytes()
    shutil.rmtree(job.repo / "plan-out")
    with zipfile.ZipFile(tmp_path / "artifact", "w") as archive:
        archive.writestr("plan-out/plan.json", saved)
    job.answer(
        {
            "GET repository/commits/merge-sha/merge_requests": [{"iid": 5}],
            "GET merge_requests/5/pipelines": [
                {"id": 8, "status": "failed"},
                {"id": 9, "status": "success"},
            ],
            "GET pipelines/9/jobs": [
                {"id": 11, "name": "plan: [prod]"},
                {"id": 12, "name": "plan: [dev]"},
            ],
        }
    )
    result = job.run("gitlab-find-plan.sh", "dev")
    assert result.returncode == 0, result.stderr
    assert job.calls()[-1]["path"] == "jobs/12/artifacts"
    assert (job.repo / "plan-out" / "plan.json").read_bytes() == saved
    assert (job.repo / "plan-out" / "merge-request").read_text().strip() == "5"


def outside_change(job: Job, name: str = "support-agent", **spec: int) -> None:
    """Resize NAME by hand on the control plane (default max_scale 7), as someone would."""
    headers = {"X-Api-Key": KEY, "X-Tenant-Id": DEV_TENANT}
    with httpx2.Client(base_url=job.env["PLANNER_BASE_URL"], headers=headers) as client:
        found = client.get("/v2/deployments", params={"name_contains": name})
        deployment = found.json()["resources"][0]
        merged = {**deployment["source_config"]["resource_spec"], **(spec or {"max_scale": 7})}
        client.patch(
            f"/v2/deployments/{deployment['id']}",
            json={"source_config": {"resource_spec": merged}},
        ).raise_for_status()


def promote(job: Job) -> None:
    """Apply the current plan, then change dev's image tag (the docker agents change)."""
    run_plan_step(job)
    assert job.planner("apply", "plan-out/plan.json").returncode == 0
    config = job.repo / CONFIG
    config.write_text(config.read_text().replace('image_tag = "1.4.0"', 'image_tag = "1.5.0"'))
    run_plan_step(job)


def test_drift_check_opens_then_updates_one_issue(job: Job) -> None:
    """No drift after an apply; a change by hand opens an issue, then edits that issue."""
    run_plan_step(job)
    applied = job.planner("apply", "plan-out/plan.json")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    quiet = job.run("drift.sh")
    assert quiet.returncode == 0, quiet.stderr
    assert "drift=false" in job.output()
    assert not (job.repo / "plan-out" / "drift-detected").exists()
    outside_change(job)
    assert job.run("drift.sh").returncode == 0
    assert "drift=true" in job.output()
    assert (job.repo / "plan-out" / "drift-detected").exists()
    for script, path in (
        ("github-issue.sh", "repos/acme/agents/issues"),
        ("gitlab-issue.sh", "issues"),
    ):
        job.answer({})
        result = job.run(script, "plan-out/drift.md")
        assert result.returncode == 0, result.stderr
        opened = job.calls()[-1]
        assert (opened["method"], opened["path"]) == ("POST", path)
        assert f"Drift in {CONFIG}#dev" in json.dumps(opened["fields"])
        body = opened["fields"].get("body") or opened["fields"]["description"]
        assert body.startswith(f"<!-- planner-drift: {CONFIG}#dev -->")
    job.answer(
        {
            "GET repos/acme/agents/issues": [
                {"number": 12, "body": f"<!-- planner-drift: {CONFIG}#dev -->"}
            ]
        }
    )
    assert job.run("github-issue.sh", "plan-out/drift.md").returncode == 0
    assert job.calls()[-1]["path"] == "repos/acme/agents/issues/12"


def test_apply_step_applies_the_reviewed_plan(job: Job) -> None:
    """apply.sh applies plan.json; the next plan of the environment has no changes."""
    run_plan_step(job)
    result = job.run("apply.sh", "plan-out/plan.json")
    assert result.returncode == 0, result.stdout + result.stderr
    run_plan_step(job)
    assert job.output().splitlines()[-1] == "changes=false"


def test_apply_step_replans_a_stale_plan_but_never_applies_unreviewed_changes(job: Job) -> None:
    """A reviewed plan gone stale with other changes is planned again, left for review."""
    promote(job)
    outside_change(job, "hello-agent")  # a managed field: the new plan differs
    result = job.run("apply.sh", "plan-out/plan.json")
    assert result.returncode == 1
    if PlanStaleError.code == "stale_plan":
        assert "not applying unreviewed changes" in result.stderr
        assert MARKER in (job.repo / "plan-out" / "replan.md").read_text()


def test_apply_step_applies_a_stale_plan_whose_changes_are_the_reviewed_ones(job: Job) -> None:
    """Stale only by an unmanaged field: the new plan's changes are the same, so it applies."""
    promote(job)
    outside_change(job, "hello-agent", min_scale=1)  # not in the config: same changes
    result = job.run("apply.sh", "plan-out/plan.json")
    if PlanStaleError.code == "stale_plan":
        assert result.returncode == 0, result.stdout + result.stderr
        assert "exactly the reviewed changes" in result.stderr
        run_plan_step(job)
        assert job.output().splitlines()[-1] == "changes=false"


def test_the_drift_issue_is_closed_once_the_drift_clears(job: Job) -> None:
    """No drift: `--close` comments on the open drift issue and closes it (GitHub, GitLab);
    with no open issue it only looks."""
    run_plan_step(job)
    assert job.planner("apply", "plan-out/plan.json").returncode == 0
    assert job.run("drift.sh").returncode == 0
    assert "drift=false" in job.output()
    marker = f"<!-- planner-drift: {CONFIG}#dev -->"
    job.answer({"GET repos/acme/agents/issues": [{"number": 12, "body": f"{marker}\nold"}]})
    result = job.run("github-issue.sh", "--close", "plan-out/drift.md", GITHUB_RUN_ID="31")
    assert result.returncode == 0, result.stderr
    listed, commented, closed = job.calls()
    assert listed["path"] == "repos/acme/agents/issues?state=open&labels=planner-drift"
    assert (commented["method"], commented["path"]) == (
        "POST",
        "repos/acme/agents/issues/12/comments",
    )
    assert f"no drift in `{CONFIG}#dev` any more" in commented["fields"]["body"]
    assert commented["fields"]["body"].endswith("/acme/agents/actions/runs/31")
    assert (closed["method"], closed["path"]) == ("PATCH", "repos/acme/agents/issues/12")
    assert closed["fields"] == {"state": "closed", "state_reason": "completed"}
    job.answer({"GET issues": [{"iid": 4, "description": marker}]})
    assert job.run("gitlab-issue.sh", "--close", "plan-out/drift.md").returncode == 0
    noted, gl_closed = job.calls()[1:]
    assert (noted["method"], noted["path"]) == ("POST", "issues/4/notes")
    assert (gl_closed["method"], gl_closed["path"]) == ("PUT", "issues/4")
    assert gl_closed["fields"] == {"state_event": "close"}
    for script in ("github-issue.sh", "gitlab-issue.sh"):
        job.answer({})
        quiet = job.run(script, "--close", "plan-out/drift.md")
        assert quiet.returncode == 0 and "no open drift issue" in quiet.stdout
        assert [call["method"] for call in job.calls()] == ["GET"]


# The action (action.yml at the repository root): its steps run here as the runner runs a
# composite action's, with `${{ }}` expressions evaluated from the inputs, the steps'
# outputs and a `github` context; the install step's `python3` is a stub (pip and its
# registry are outside the project) whose venv holds this checkout's `planner`.

EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


@dataclass
class ActionRun:
    """What a run of the action left: the exit status of its last step, the steps' output
    (stdout and stderr) and the action's outputs."""

    returncode: int
    log: str
    outputs: dict[str, str]


def read_outputs(path: Path) -> dict[str, str]:
    """A $GITHUB_OUTPUT file's `name=value` and `name<<DELIMITER` entries."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text().splitlines() if path.exists() else [])
    for line in lines:
        name, sep, value = line.partition("=")
        if sep:
            outputs[name] = value
            continue
        name, _, delimiter = line.partition("<<")
        outputs[name] = "\n".join(iter(lambda: next(lines), delimiter))
    return outputs


def evaluate(text: str, contexts: dict[str, Any]) -> str:
    """TEXT with each `${{ a.b.c }}` replaced by that property of CONTEXTS (missing: empty,
    as on GitHub); any other expression fails the test rather than guess."""

    def value(match: re.Match[str]) -> str:
        path = match.group(1)
        assert re.fullmatch(r"[a-z_]+(\.[\w-]+)+", path), f"unsupported expression: {path}"
        found: Any = contexts
        for key in path.split("."):
            found = found.get(key, "") if isinstance(found, dict) else ""
        return str(found)

    return EXPRESSION.sub(value, text)


def run_action(job: Job, tmp_path: Path, **inputs: str) -> ActionRun:
    """Run the action's steps in JOB's checkout with INPUTS (the `with:` of a workflow),
    on pull request #7 unless `pull-request` is given."""
    import yaml

    action = yaml.safe_load(ACTION.read_text())
    unknown = set(inputs) - set(action["inputs"])
    assert not unknown, f"not inputs of the action: {unknown}"
    github = {
        "action_path": str(ROOT),
        "token": "not-a-token",
        "event": {"pull_request": {"number": 7}},
    }
    declared = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    contexts: dict[str, Any] = {"github": github, "steps": {}}
    contexts["inputs"] = {k: evaluate(v, contexts) for k, v in {**declared, **inputs}.items()}
    # What the caller's job would not set: the action's inputs and its own variables give them.
    drop = ("PLANNER_ENV", "PLANNER_CONFIG", "PLAN_DIR", "PR_NUMBER", "GH_TOKEN")
    base = {k: v for k, v in job.env.items() if k not in drop}
    base |= {"GITHUB_ACTION_PATH": str(ROOT), "RUNNER_TEMP": str(tmp_path / "runner-temp")}
    (tmp_path / "runner-temp").mkdir(exist_ok=True)
    install_python_stub(tmp_path / "bin")
    log, returncode = [], 0
    for number, step in enumerate(action["runs"]["steps"]):
        assert set(step) <= {"name", "id", "shell", "env", "run"}, step  # no `if:`, no `uses:`
        assert step["shell"] == "bash" and "${{" not in step["run"], step
        script = tmp_path / f"step-{number}.sh"
        script.write_text(step["run"])
        output = tmp_path / f"step-{number}.output"
        env = {k: evaluate(str(v), contexts) for k, v in step.get("env", {}).items()}
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=job.repo,
            env={**base, **env, "GITHUB_OUTPUT": str(output)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        log.append(result.stdout + result.stderr)
        contexts["steps"][step.get("id", f"step{number}")] = {"outputs": read_outputs(output)}
        returncode = result.returncode
        if returncode != 0:
            break
    outputs = {k: evaluate(v["value"], contexts) for k, v in action["outputs"].items()}
    return ActionRun(returncode, "".join(log), outputs)


def comment_calls(job: Job) -> list[tuple[str, str]]:
    """The (method, path) of each GitHub API call since the last `job.answer`."""
    return [(c["method"], c["path"]) for c in job.calls() if c["tool"] == "gh"]


def test_action_is_valid_against_the_vendored_action_schema(tmp_path: Path) -> None:
    """check-jsonschema's built-in action-metadata schema accepts action.yml, and rejects
    it without its `runs` (so the check above means something)."""
    command = [
        sys.executable,
        "-m",
        "check_jsonschema",
        "--builtin-schema",
        "vendor.github-actions",
    ]
    ok = subprocess.run([*command, str(ACTION)], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    text = ACTION.read_text()
    broken = tmp_path / "action.yml"
    broken.write_text(text[: text.index("\nruns:")])
    bad = subprocess.run([*command, str(broken)], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "runs" in bad.stdout, bad.stdout + bad.stderr


def test_action_installs_the_planner_from_its_own_checkout(job: Job, tmp_path: Path) -> None:
    """The install step pip-installs the action's own directory (its pinned ref, with the
    PostgreSQL extra) into a fresh venv under RUNNER_TEMP, and hands that venv's bin on;
    nothing else is installed."""
    run = run_action(job, tmp_path, config=CONFIG, environment="dev")
    assert run.returncode == 0, run.log
    (install,) = [call for call in job.calls() if call["tool"] == "pip"]
    assert install["path"] == f"{ROOT}[postgres]"
    assert all(not arg.startswith(("http", "git+")) for arg in install["fields"]["args"])
    assert run.outputs["bin"] == str(tmp_path / "runner-temp" / "deployment-planner" / "bin")
    assert "planner " in run.log  # `planner --version` ran from that bin


def test_action_plan_saves_the_plan_and_keeps_one_sticky_comment(job: Job, tmp_path: Path) -> None:
    """`plan`: the inputs pick config and environment; the plan is saved, the outputs name
    it, and the pull request's comment is created, then edited on the next run."""
    run = run_action(job, tmp_path, config=CONFIG, environment="dev")
    assert run.returncode == 0, run.log
    assert run.outputs["changes"] == "true"
    assert run.outputs["plan-file"] == "plan-out/plan.json"
    markdown = (job.repo / run.outputs["markdown-file"]).read_text()
    assert markdown.startswith(MARKER)
    assert json.loads((job.repo / run.outputs["plan-file"]).read_text())["saved"]
    created = [c for c in job.calls() if c["tool"] == "gh"][-1]
    assert (created["method"], created["path"]) == ("POST", "repos/acme/agents/issues/7/comments")
    assert created["fields"]["body"] == markdown
    job.answer({"GET repos/acme/agents/issues/7/comments": [{"id": 99, "body": MARKER}]})
    again = run_action(job, tmp_path, config=CONFIG, environment="dev", **{"plan-dir": "out"})
    assert again.returncode == 0, again.log
    assert again.outputs["plan-file"] == "out/plan.json"
    assert comment_calls(job)[-1] == ("PATCH", "repos/acme/agents/issues/comments/99")


def test_action_plan_without_a_pull_request_or_with_comment_off_only_plans(
    job: Job, tmp_path: Path
) -> None:
    """No pull request (a push or a schedule) or `comment: false`: the plan is made and
    saved, and the GitHub API is never called."""
    for inputs in ({"pull-request": ""}, {"comment": "false"}):
        job.answer({})
        run = run_action(job, tmp_path, config=CONFIG, environment="dev", **inputs)
        assert run.returncode == 0, run.log
        assert run.outputs["changes"] == "true"
        assert comment_calls(job) == []


def test_action_plan_with_errors_still_comments_and_fails(job: Job, tmp_path: Path) -> None:
    """A plan with errors (a deployment the state forgot still exists) fails the step, and
    reviewers still see the errors in the comment."""
    run_plan_step(job)
    assert job.planner("apply", "plan-out/plan.json").returncode == 0
    assert job.planner("state", "rm", "-c", CONFIG, "hello-agent").returncode == 0
    job.answer({})
    run = run_action(job, tmp_path, config=CONFIG, environment="dev")
    assert run.returncode == 1, run.log
    markdown = (job.repo / "plan-out" / "plan.md").read_text()
    assert "[!CAUTION]" in markdown and "hello-agent" in markdown
    posted = [c for c in job.calls() if c["tool"] == "gh"][-1]
    assert (posted["method"], posted["fields"]["body"]) == ("POST", markdown)


def test_action_apply_applies_the_reviewed_plan(job: Job, tmp_path: Path) -> None:
    """`apply`: the saved plan is applied; the next plan has no changes, and no comment is
    made on the way."""
    assert run_action(job, tmp_path, config=CONFIG, environment="dev").returncode == 0
    job.answer({})
    applied = run_action(job, tmp_path, command="apply", **{"plan-file": "plan-out/plan.json"})
    assert applied.returncode == 0, applied.log
    assert applied.outputs["plan-file"] == "plan-out/plan.json"
    assert comment_calls(job) == []
    again = run_action(job, tmp_path, config=CONFIG, environment="dev", comment="false")
    assert again.outputs["changes"] == "false", again.log


def test_action_apply_posts_a_stale_plan_that_changed_for_review(job: Job, tmp_path: Path) -> None:
    """A reviewed plan gone stale with other changes is not applied: the step fails and
    the new plan replaces the pull request's comment (same marker)."""
    promote(job)
    outside_change(job, "hello-agent")
    job.answer({"GET repos/acme/agents/issues/7/comments": [{"id": 99, "body": MARKER}]})
    run = run_action(job, tmp_path, command="apply", environment="dev")
    assert run.returncode == 1, run.log
    if PlanStaleError.code == "stale_plan":
        assert "not applying unreviewed changes" in run.log
        edited = [c for c in job.calls() if c["tool"] == "gh"][-1]
        assert (edited["method"], edited["path"]) == (
            "PATCH",
            "repos/acme/agents/issues/comments/99",
        )
        assert edited["fields"]["body"] == (job.repo / "plan-out" / "replan.md").read_text()


def test_action_refuses_an_unknown_command(job: Job, tmp_path: Path) -> None:
    """A command other than plan or apply fails before the planner runs or anything is posted."""
    run = run_action(job, tmp_path, command="destroy", config=CONFIG)
    assert run.returncode == 1
    assert "Unknown command destroy" in run.log
    assert comment_calls(job) == []
    assert not (job.repo / "plan-out").exists()


def postgres_state(job: Job, postgres_url: str) -> tuple[str, str]:
    """A state URL with a password, and the password; the checkout's config names a state
    of its own in that (session-wide) database."""
    config = job.repo / CONFIG
    config.write_text(config.read_text() + f'\n[state]\nname = "{unique_name()}"\n')
    return with_a_password(postgres_url)


def test_action_with_a_postgres_state_never_shows_its_password(
    job: Job, tmp_path: Path, postgres_url: str
) -> None:
    """`state` as a PostgreSQL URL with a password: plan and apply use it, and the password
    is in no log line, output, comment or file the action writes."""
    url, password = postgres_state(job, postgres_url)
    state = {"state": url}
    run = run_action(job, tmp_path, config=CONFIG, environment="dev", **state)
    assert run.returncode == 0, run.log
    applied = run_action(job, tmp_path, command="apply", **state)
    assert applied.returncode == 0, applied.log
    again = run_action(job, tmp_path, config=CONFIG, environment="dev", **state)
    assert again.outputs["changes"] == "false", again.log
    written = [p.read_text() for p in (job.repo / "plan-out").iterdir()]
    written += [p.read_text() for p in tmp_path.glob("step-*.output")]
    written.append(Path(job.env["GITHUB_STEP_SUMMARY"]).read_text())
    written.append(job.log.read_text())
    for text in [run.log, applied.log, again.log, *written]:
        assert password not in text
    assert not list((tmp_path / "state").glob("*.state.json"))  # the URL's state, not a file


def test_action_applies_a_stale_plan_with_a_postgres_state(
    job: Job, tmp_path: Path, postgres_url: str
) -> None:
    """A reviewed plan made with a PostgreSQL state that went stale by an unmanaged field is
    planned again with that state (the plan records its URL without the password) and
    applied; the password shows nowhere."""
    url, password = postgres_state(job, postgres_url)
    job.env["PLANNER_STATE"] = url
    promote(job)
    outside_change(job, "hello-agent", min_scale=1)
    del job.env["PLANNER_STATE"]
    run = run_action(job, tmp_path, command="apply", environment="dev", state=url)
    assert run.returncode == 0, run.log
    if PlanStaleError.code == "stale_plan":
        assert "exactly the reviewed changes" in run.log
    assert password not in run.log
    for written in (job.repo / "plan-out").iterdir():
        assert password not in written.read_text()
