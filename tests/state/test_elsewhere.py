"""`managed_elsewhere`: the deployments the other states of the same config record."""

from __future__ import annotations

from pathlib import Path

from planner.state import LocalFileBackend, RecordedDeployment, StateDocument

ENDPOINT = "embedded:state/controlplane.db"


def write_state(path: Path, **ids: str) -> None:
    """A state file at PATH recording each address -> id of IDS."""
    doc = StateDocument.new(ENDPOINT, None)
    for address, deployment_id in ids.items():
        doc.record(RecordedDeployment(name=address, id=deployment_id))
    LocalFileBackend(path).write(doc)


def test_a_file_state_sees_the_files_of_the_same_config_stem(tmp_path: Path) -> None:
    """The other states are `<stem>.state.json` and `<stem>.<env>.state.json`, itself and other
    stems left out; each id is owned by the file that records it."""
    write_state(tmp_path / "planner.dev.state.json", api="id-dev")
    write_state(tmp_path / "planner.staging.state.json", api="id-staging")
    write_state(tmp_path / "planner.state.json", api="id-plain")
    write_state(tmp_path / "other.prod.state.json", api="id-other")
    owners = LocalFileBackend(tmp_path / "planner.dev.state.json").managed_elsewhere("planner")
    assert owners == {
        "id-staging": str(tmp_path / "planner.staging.state.json"),
        "id-plain": str(tmp_path / "planner.state.json"),
    }


def test_an_unreadable_other_state_is_passed_over(tmp_path: Path) -> None:
    """A corrupt other state records nothing this state can trust: it is left out, no error."""
    write_state(tmp_path / "planner.staging.state.json", api="id-staging")
    (tmp_path / "planner.prod.state.json").write_text("{not json", encoding="utf-8")
    backend = LocalFileBackend(tmp_path / "planner.dev.state.json")
    assert backend.managed_elsewhere("planner") == {
        "id-staging": str(tmp_path / "planner.staging.state.json")
    }
