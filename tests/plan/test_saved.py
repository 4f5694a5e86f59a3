"""Saved plan files: round trip, absolute paths, clear read errors, the seal, the schema."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner.errors import PlanError, PlanTamperedError
from planner.plan.diff import PlanOptions, make_plan
from planner.plan.refresh import Observed
from planner.plan.saved import (
    SAVED_KEY,
    SavedOptions,
    SavedPlan,
    check_seal,
    make_saved_plan,
    plan_file_json_schema,
    read_saved_plan,
    seal_saved_plan,
    sealed_content,
    write_saved_plan,
)
from planner.render.json import render_json
from planner.state import StateDocument
from tests.plan.builders import KEY, git_desired, observed_from, recorded_from

ENDPOINT = "http://127.0.0.1:8123"
SECRET = "sk-saved-plan-secret"
PLAN_KEY = bytes(range(32))
SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "plan.schema.json"


def scene() -> tuple[SavedPlan, StateDocument, Observed]:
    """A plan that updates `api` (recorded, live) and creates `new` (with a secret)."""
    api = git_desired("api")
    new = git_desired("new", secrets={"TOKEN": SECRET})
    live = observed_from(api, build_on_push=True)
    doc = StateDocument.new(ENDPOINT, None)
    doc.record(recorded_from(api))
    doc.serial = 4
    observed = Observed(by_name={"api": live})
    options = PlanOptions(exclude=frozenset({"other"}))
    plan = make_plan({"api": api, "new": new}, doc.deployments, observed.by_name, digest_key=KEY)
    saved = make_saved_plan(
        plan,
        doc,
        observed,
        config_path="planner.toml",
        plan_path="plan.json",
        state_path="state/planner.state.json",
        state_dir="state",
        options=options,
    )
    return saved, doc, observed


def test_round_trip_and_file_mode(tmp_path: Path) -> None:
    """What is written reads back equal; the file is mode 0600 and has no secret value."""
    saved, _, _ = scene()
    path = tmp_path / "plans" / "plan.json"
    sealed = seal_saved_plan(saved, PLAN_KEY)
    write_saved_plan(path, sealed)
    assert read_saved_plan(path) == sealed
    check_seal(read_saved_plan(path), PLAN_KEY, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert SECRET not in path.read_text()
    assert saved.options == SavedOptions(exclude=["other"])
    assert saved.options.plan_options() == PlanOptions(exclude=frozenset({"other"}))


def test_seen_holds_each_live_deployment_of_the_plan() -> None:
    """`seen` has id, updated_at and latest revision of the live deployments planned."""
    saved, _, observed = scene()
    live = observed.by_name["api"]
    assert live is not None
    assert set(saved.seen) == {"api"}
    assert saved.seen["api"].id == live.id
    assert saved.seen["api"].updated_at == live.updated_at


def test_read_errors_name_the_file(tmp_path: Path) -> None:
    """Missing, non-JSON, plain `--format json` output and invalid files fail clearly."""
    missing = tmp_path / "missing.json"
    with pytest.raises(PlanError, match=r"plan file not found: .*missing\.json"):
        read_saved_plan(missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{nope")
    with pytest.raises(PlanError, match=r"broken\.json is not valid JSON"):
        read_saved_plan(broken)
    plain = tmp_path / "plain.json"
    saved, _, _ = scene()
    plain.write_text(render_json(saved.plan))
    with pytest.raises(PlanError, match=r"plain\.json is not a saved plan") as caught:
        read_saved_plan(plain)
    assert "--out" in (caught.value.hint or "")
    invalid = tmp_path / "invalid.json"
    invalid.write_text('{"saved": {"serial": "x"}}')
    with pytest.raises(PlanError, match=r"invalid\.json is not a valid saved plan"):
        read_saved_plan(invalid)


def test_unwritable_target_is_a_plan_error(tmp_path: Path) -> None:
    """A plan file that cannot be written is a PlanError naming it."""
    saved, _, _ = scene()
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(PlanError, match="cannot write the plan file"):
        write_saved_plan(blocker / "plan.json", seal_saved_plan(saved, PLAN_KEY))


def test_paths_are_recorded_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Config, state and state directory are recorded absolute, so apply needs no cwd."""
    monkeypatch.chdir(tmp_path)
    saved, _, _ = scene()
    assert saved.config_path == str(tmp_path / "planner.toml")
    assert saved.state_path == str(tmp_path / "state" / "planner.state.json")
    assert saved.state_dir == str(tmp_path / "state")


def written(tmp_path: Path) -> Path:
    """A sealed plan file (the `scene` plan) in TMP_PATH."""
    path = tmp_path / "plan.json"
    write_saved_plan(path, seal_saved_plan(scene()[0], PLAN_KEY))
    return path


def edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    raw = json.loads(path.read_text())
    change(raw)
    path.write_text(json.dumps(raw, indent=2))


def tamper_error(path: Path, key: bytes | None = PLAN_KEY) -> PlanTamperedError:
    with pytest.raises(PlanTamperedError) as caught:
        check_seal(read_saved_plan(path), key, path)
    assert caught.value.code == "plan-tampered"
    return caught.value


def _body(raw: dict[str, Any]) -> dict[str, Any]:
    api = next(c for c in raw["changes"] if c["name"] == "api")
    return api["request_body"]  # type: ignore[no-any-return]


EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "request body": lambda raw: _body(raw).update(source_config={"build_on_push": True}),
    "action": lambda raw: raw["changes"][0].update(action="delete"),
    "name": lambda raw: raw["changes"][0].update(name="other"),
    "deployment id": lambda raw: raw["changes"][0].update(
        deployment_id="00000000-0000-4000-8000-0000000000ff"
    ),
    "patch": lambda raw: raw["changes"][0].update(patch=[]),
    "secret digest": lambda raw: raw["changes"][1]["secret_digests"].update(TOKEN="hmac-sha256:0"),
    "lineage": lambda raw: raw["saved"].update(lineage="x"),
    "serial": lambda raw: raw["saved"].update(serial=99),
    "config path": lambda raw: raw["saved"].update(config_path="/elsewhere/planner.toml"),
    "state path": lambda raw: raw["saved"].update(state_path="/elsewhere/x.state.json"),
    "options": lambda raw: raw["saved"]["options"].update(destroy=True),
    "seen": lambda raw: raw["saved"].update(seen={}),
    "config digests": lambda raw: raw["saved"].update(config_digests={"api": "sha256:0"}),
    "endpoint": lambda raw: raw["saved"].update(endpoint="http://evil.example.com"),
}


def test_an_untouched_plan_verifies(tmp_path: Path) -> None:
    """The plan as written verifies with the key it was sealed with (whitespace is free)."""
    path = written(tmp_path)
    edit(path, lambda raw: None)  # re-indented: same content
    check_seal(read_saved_plan(path), PLAN_KEY, path)


@pytest.mark.parametrize("part", sorted(EDITS))
def test_any_edit_of_what_apply_uses_is_refused(tmp_path: Path, part: str) -> None:
    """Changing any part of the plan or its `saved` section breaks the seal."""
    path = written(tmp_path)
    edit(path, EDITS[part])
    error = tamper_error(path)
    assert error.message == f"the plan file {path} was altered after `planner plan --out`"
    assert "planner plan --out" in (error.hint or "")


def test_a_naively_recomputed_digest_is_refused(tmp_path: Path) -> None:
    """Editing a body and writing a plain sha256 of the new content as the digest fails:
    without the state's key nobody can compute a valid seal."""
    path = written(tmp_path)
    edit(path, EDITS["request body"])
    forged = read_saved_plan(path)
    naive = hashlib.sha256(sealed_content(forged)).hexdigest()
    edit(path, lambda raw: raw["saved"]["seal"].update(digest=f"hmac-sha256:{naive}"))
    tamper_error(path)


def test_a_digest_recomputed_with_another_key_is_refused(tmp_path: Path) -> None:
    """An HMAC under the editor's own key (even with the right key id copied) fails."""
    path = written(tmp_path)
    edit(path, EDITS["request body"])
    forged = read_saved_plan(path)
    mac = hmac.new(os.urandom(32), sealed_content(forged), hashlib.sha256).hexdigest()
    edit(path, lambda raw: raw["saved"]["seal"].update(digest=f"hmac-sha256:{mac}"))
    tamper_error(path)


def test_an_unsealed_plan_is_refused(tmp_path: Path) -> None:
    """A plan file without a seal (hand-made, or an older planner's) is refused."""
    path = written(tmp_path)
    edit(path, lambda raw: raw["saved"].pop("seal"))
    assert "has no seal" in tamper_error(path).message


def test_a_plan_sealed_for_another_state_says_so(tmp_path: Path) -> None:
    """Verifying with another state's key names that, not an edit."""
    path = written(tmp_path)
    error = tamper_error(path, os.urandom(32))
    assert "was sealed with another state's plan key" in error.message


def test_no_key_beside_the_state_is_refused(tmp_path: Path) -> None:
    """With no plan key to verify against, the plan is refused, never trusted."""
    path = written(tmp_path)
    assert "no plan key" in tamper_error(path, None).message


def test_an_unsealed_plan_is_never_written(tmp_path: Path) -> None:
    """write_saved_plan refuses a plan that was not sealed (a programming error)."""
    with pytest.raises(ValueError, match="sealed"):
        write_saved_plan(tmp_path / "plan.json", scene()[0])
    assert not (tmp_path / "plan.json").exists()


def test_the_plan_file_schema_spells_out_the_saved_section() -> None:
    """plan.schema.json admits `saved` beside the plan keys, field by field, seal required."""
    schema = plan_file_json_schema()
    saved = schema["properties"][SAVED_KEY]
    assert SAVED_KEY not in schema.get("required", [])  # `--format json` output is valid too
    assert saved["additionalProperties"] is False
    wanted = {"lineage", "serial", "endpoint", "config_path", "state_path", "state_dir", "seal"}
    assert wanted <= set(saved["required"])
    assert "plan" not in saved["properties"] and "Plan" not in schema["$defs"]
    assert schema["$defs"]["Seal"]["properties"]["algorithm"]["const"] == "hmac-sha256"


def test_the_checked_in_schema_is_current() -> None:
    """schemas/plan.schema.json equals plan_file_json_schema() (UPDATE_GOLDEN=1 rewrites it)."""
    expected = plan_file_json_schema()
    if os.environ.get("UPDATE_GOLDEN") == "1":
        SCHEMA.write_text(json.dumps(expected, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert json.loads(SCHEMA.read_text(encoding="utf-8")) == expected, (
        "schemas/plan.schema.json is stale: run `planner schema --write schemas` "
        "or UPDATE_GOLDEN=1 pytest tests/plan/test_saved.py"
    )
