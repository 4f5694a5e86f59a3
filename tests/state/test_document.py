"""The state document: checksum, parsing errors, ownership, intents, adopt, secret guard."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from planner.errors import StateError
from planner.state import RecordedDeployment, StateDocument, adopt
from planner.state.document import IntentOp, PendingIntent, dump_state, parse_state, sealed
from tests.state.contract import ENDPOINT, SECRET_VALUE, TENANT, sample_recorded


def _text(doc: StateDocument) -> str:
    return dump_state(sealed(doc, doc.serial + 1))


def test_checksum_is_sha256_of_canonical_body() -> None:
    """The checksum is sha256 over the sorted, compact, non-ASCII-escaped body."""
    doc = StateDocument.new(ENDPOINT, "workspace-é")
    written = json.loads(_text(doc))
    stored = written.pop("checksum")
    canonical = json.dumps(written, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert stored == "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def test_parse_round_trip() -> None:
    """Dumped text parses back to the same document."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    doc.record(sample_recorded())
    sealed_doc = sealed(doc, 7)
    assert parse_state(dump_state(sealed_doc), source="s.json") == sealed_doc
    assert sealed_doc.serial == 7


def test_missing_checksum_is_corrupt() -> None:
    """A state without a checksum is treated as edited by hand."""
    raw = json.loads(_text(StateDocument.new(ENDPOINT, TENANT)))
    del raw["checksum"]
    with pytest.raises(StateError, match="checksum mismatch") as caught:
        parse_state(json.dumps(raw), source="s.json", backup="s.json.backup")
    assert "s.json.backup" in (caught.value.hint or "")


@pytest.mark.parametrize("version", [None, 0, 3, "1", "2"])
def test_unknown_format_version_refused(version: object) -> None:
    """Only format_version 1 and 2 are read; anything else (or nothing) is a StateError."""
    raw = json.loads(_text(StateDocument.new(ENDPOINT, TENANT)))
    raw["format_version"] = version
    with pytest.raises(StateError, match="format_version"):
        parse_state(json.dumps(raw), source="s.json")


def test_not_an_object_refused() -> None:
    """A JSON value that is not an object is refused with the file named."""
    with pytest.raises(StateError, match=r"s\.json is not a JSON object"):
        parse_state("[1, 2]", source="s.json")


def test_schema_problem_listed_without_values() -> None:
    """A well-sealed body of the wrong shape lists the paths, not the values."""
    raw = json.loads(_text(StateDocument.new(ENDPOINT, TENANT)))
    del raw["checksum"]
    raw["serial"] = "secret-looking-value"
    from planner.state.document import compute_checksum

    raw["checksum"] = compute_checksum(raw)
    with pytest.raises(StateError) as caught:
        parse_state(json.dumps(raw), source="s.json")
    assert any(line.startswith("serial:") for line in caught.value.details)
    assert "secret-looking-value" not in " ".join(caught.value.details)


def test_check_belongs_to_accepts_own_endpoint() -> None:
    """The endpoint and workspace it was written for pass (a trailing slash is no change)."""
    StateDocument.new(ENDPOINT, TENANT).check_belongs_to(ENDPOINT + "/", TENANT)


@pytest.mark.parametrize(
    ("endpoint", "tenant"),
    [("http://127.0.0.1:9999", TENANT), (ENDPOINT, "other-workspace"), (ENDPOINT, None)],
)
def test_check_belongs_to_refuses_foreign(endpoint: str, tenant: str | None) -> None:
    """Another endpoint or workspace is refused, and both are named."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    with pytest.raises(StateError, match="another control plane or workspace") as caught:
        doc.check_belongs_to(endpoint, tenant)
    details = "\n".join(caught.value.details)
    assert ENDPOINT in details and TENANT in details
    assert endpoint in details
    assert (tenant or "no tenant id: the API key's own workspace") in details
    assert "workspace -" not in details


def test_intents_added_and_cleared() -> None:
    """add_intent journals an entry with its start time; clear_intent drops only it."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    create = doc.add_intent("create", "a", now=when)
    delete = doc.add_intent("delete", "b", deployment_id="id-b")
    assert create.started_at == "2026-01-02T03:04:05Z"
    assert [entry.op for entry in doc.intents_for("b")] == ["delete"]
    doc.clear_intent(create)
    assert doc.pending == [delete]
    doc.clear_intent(delete.id)
    doc.clear_intent("unknown")
    assert doc.pending == []


def test_adopt_records_new_deployment() -> None:
    """adopt adds a deployment the state did not have."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    adopt(doc, sample_recorded())
    assert doc.get("support-agent").id == sample_recorded().id


def test_adopt_refuses_taken_name_or_id() -> None:
    """adopt refuses a name already managed, and an id managed under another name."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    adopt(doc, sample_recorded())
    with pytest.raises(StateError, match="already in the state") as caught:
        adopt(doc, sample_recorded())
    assert "planner state rm support-agent" in (caught.value.hint or "")
    with pytest.raises(StateError, match="already in the state as support-agent"):
        adopt(doc, sample_recorded("other-name"))


def test_forget_and_get_unknown_name() -> None:
    """forget returns what it dropped; an unknown name lists the known ones."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    doc.record(sample_recorded())
    with pytest.raises(StateError, match="nope is not in the state") as caught:
        doc.get("nope")
    assert "support-agent" in (caught.value.hint or "")
    assert doc.forget("support-agent").name == "support-agent"
    assert doc.deployments == {}


def test_plain_secret_value_refused() -> None:
    """A secret recorded as anything but a keyed digest is refused, without echoing it."""
    plain = RecordedDeployment(name="a", id="x", secret_digests={"KEY": SECRET_VALUE})
    doc = StateDocument.new(ENDPOINT, TENANT)
    with pytest.raises(ValueError, match="not a keyed digest") as caught:
        doc.record(plain)
    assert SECRET_VALUE not in str(caught.value)
    bare_hash = hashlib.sha256(SECRET_VALUE.encode()).hexdigest()
    with pytest.raises(ValidationError):
        StateDocument(
            endpoint=ENDPOINT,
            deployments={
                "a": RecordedDeployment(name="a", id="x", secret_digests={"K": bare_hash})
            },
        )


def test_secrets_in_managed_refused_at_write() -> None:
    """A document whose managed values carry `secrets` cannot be sealed for writing."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    doc.deployments["a"] = RecordedDeployment(
        name="a", id="x", managed={"secrets": [{"name": "K", "value": SECRET_VALUE}]}
    )
    with pytest.raises(StateError, match="invalid state") as caught:
        sealed(doc, 1)
    assert SECRET_VALUE not in " ".join(caught.value.details)


def test_written_text_never_holds_secret_value() -> None:
    """The file text for a state with a secret digest has no trace of the secret."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    doc.record(sample_recorded())
    text = _text(doc)
    assert SECRET_VALUE not in text
    assert hashlib.sha256(SECRET_VALUE.encode()).hexdigest() not in text
    assert "hmac-sha256:" in text


def test_read_or_create_new_and_foreign() -> None:
    """read_or_create gives a new document when absent and refuses a foreign one, naming it."""
    from planner.state import InMemoryBackend, read_or_create

    backend = InMemoryBackend(name="mem.state.json")
    fresh = read_or_create(backend, ENDPOINT, TENANT)
    assert (fresh.serial, fresh.endpoint, fresh.tenant_id) == (0, ENDPOINT, TENANT)
    backend.write(fresh)
    assert read_or_create(backend, ENDPOINT, TENANT).lineage == fresh.lineage
    with pytest.raises(StateError, match=r"^state mem\.state\.json belongs to another"):
        read_or_create(backend, "embedded:state/local-control-plane.db", TENANT)


def test_embedded_endpoint_names_the_database() -> None:
    """The embedded control plane is recorded as `embedded:<db path>`, told apart by path."""
    from pathlib import Path

    from planner.state import embedded_endpoint

    local = embedded_endpoint(Path("state/local-control-plane.db"))
    assert local == f"embedded:{Path('state/local-control-plane.db').resolve().as_posix()}"
    doc = StateDocument.new(local, TENANT)
    with pytest.raises(StateError, match="another control plane"):
        doc.check_belongs_to(embedded_endpoint("other.db"), TENANT)


def test_docs_example_is_a_valid_state() -> None:
    """The example of the State reference (docs/) parses, checksum included (it is kept real)."""
    import re
    from pathlib import Path

    docs = Path(__file__).resolve().parents[2] / "docs" / "reference" / "state.md"
    section = docs.read_text().split("\n## Format (`format_version` 2)\n", 1)[1]
    match = re.search(r"```json\n(.*?)```", section, re.S)
    assert match is not None
    example = parse_state(match.group(1), source=str(docs))
    assert sorted(example.deployments) == ["support-agent"]


@pytest.mark.parametrize(
    ("spelled", "canonical"),
    [
        ("HTTP://Example.COM:80/api-host/", "http://example.com/api-host"),
        ("https://example.com:443", "https://example.com"),
        ("https://example.com:8443/", "https://example.com:8443"),
        ("http://[::1]:8123/", "http://[::1]:8123"),
        ("http://user@example.com/x", "http://example.com/x"),
    ],
)
def test_canonical_endpoint_normalizes_urls(spelled: str, canonical: str) -> None:
    """Scheme and host are lowercased, a default port and a trailing slash are dropped."""
    from planner.state.endpoints import canonical_endpoint

    assert canonical_endpoint(spelled) == canonical


def test_canonical_endpoint_resolves_the_embedded_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative (to the config's directory, the base), a symlinked and an absolute
    spelling of one database are one endpoint; without a base a relative one is kept
    relative (the spelling a state records)."""
    from planner.state.endpoints import canonical_endpoint

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    monkeypatch.chdir("/")
    real = f"embedded:{(tmp_path / 'real' / 'db').resolve().as_posix()}"
    for spelled in ("embedded:real/db", "embedded:./link/db", f"embedded:{tmp_path}/real/db"):
        assert canonical_endpoint(spelled, tmp_path) == real
    assert canonical_endpoint(f"embedded:{tmp_path}/link/db") == real
    assert canonical_endpoint("embedded:./state//local.db") == "embedded:state/local.db"


def test_a_relative_state_belongs_to_the_absolute_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A state recorded with `embedded:state/...` (relative to the config's directory) is
    accepted by a run that names the same database absolutely, or relatively, and an old
    absolute record by a run that names it relatively; a new state keeps the relative
    spelling it is given."""
    monkeypatch.chdir("/")
    relative = StateDocument(endpoint="embedded:state/local-control-plane.db", tenant_id=TENANT)
    absolute = f"embedded:{tmp_path}/state/local-control-plane.db"
    relative.check_belongs_to(absolute, TENANT, base=tmp_path)
    relative.check_belongs_to("embedded:./state//local-control-plane.db", TENANT, base=tmp_path)
    old = StateDocument(endpoint=absolute, tenant_id=TENANT)
    old.check_belongs_to("embedded:state/local-control-plane.db", TENANT, base=tmp_path)
    with pytest.raises(StateError, match="belongs to another control plane"):
        old.check_belongs_to("embedded:state/local-control-plane.db", TENANT, base=Path("/x"))
    assert StateDocument.new("embedded:./state/local-control-plane.db", TENANT).endpoint == (
        "embedded:state/local-control-plane.db"
    )
    StateDocument(endpoint="HTTPS://Example.com:443/", tenant_id=TENANT).check_belongs_to(
        "https://example.com", TENANT
    )


def test_tracked_changes_are_the_deltas_of_each_change() -> None:
    """With tracking on, each record, forget, intent and clear is noted once, in order,
    and `take_changes` hands them over only once."""
    doc = StateDocument.new("http://127.0.0.1:8123", None)
    doc.record(RecordedDeployment(name="old", id="00000000-0000-4000-8000-0000000000a1"))
    doc.track_changes()
    intent = doc.add_intent("create", "new")
    doc.forget("old")
    assert doc.clear_intents("absent", IntentOp.UPDATE) is False
    assert doc.clear_intents("new", IntentOp.CREATE) is True
    kinds = [next(iter(delta)) for delta in doc.take_changes()]
    assert kinds == ["intent", "forget", "clear"]
    assert doc.take_changes() == [] and doc.pending == [] and intent.name == "new"


def test_clear_intents_sees_intents_added_behind_its_back() -> None:
    """The per-name count is rebuilt when the pending list was replaced or appended to
    directly, so no intent is missed."""
    doc = StateDocument.new("http://127.0.0.1:8123", None)
    assert doc.clear_intents("a", IntentOp.DELETE) is False
    doc.pending.append(PendingIntent(op="delete", name="a", started_at="2026-01-01T00:00:00Z"))
    assert doc.clear_intents("a", IntentOp.DELETE) is True
    doc.pending = [PendingIntent(op="delete", name="b", started_at="2026-01-01T00:00:00Z")]
    assert doc.clear_intents("b", IntentOp.DELETE) is True and doc.pending == []


def test_intent_index_stays_in_step_with_pending() -> None:
    """Clearing intents of one name, out of order and by kind, leaves exactly the others,
    and `intents_for` sees the same as a scan of `pending`."""
    doc = StateDocument.new("http://127.0.0.1:8123", None)
    creates = [doc.add_intent(IntentOp.CREATE, f"d{n}") for n in range(6)]
    doc.add_intent(IntentOp.UPDATE, "d2", deployment_id="x")
    doc.add_intent(IntentOp.DELETE, "d2", deployment_id="x")
    doc.clear_intent(creates[3])
    assert doc.clear_intents("d2", IntentOp.UPDATE, IntentOp.DELETE) is True
    assert doc.clear_intents("d2", IntentOp.DELETE) is False
    doc.clear_intent(creates[0].id)
    for name in (f"d{n}" for n in range(6)):
        assert doc.intents_for(name) == [e for e in doc.pending if e.name == name]
    assert [e.name for e in doc.pending] == ["d1", "d2", "d4", "d5"]


def test_intent_index_rebuilt_after_a_change_behind_its_back() -> None:
    """An intent appended to `pending` directly, then one added the usual way: the index
    is rebuilt on the next lookup and sees both, oldest first."""
    doc = StateDocument.new("http://127.0.0.1:8123", None)
    doc.add_intent(IntentOp.CREATE, "a")
    doc.pending.append(PendingIntent(op="delete", name="a", started_at="2026-01-01T00:00:00Z"))
    doc.add_intent(IntentOp.UPDATE, "a", deployment_id="x")
    assert [e.op for e in doc.intents_for("a")] == ["create", "delete", "update"]
    assert doc.clear_intents("a", IntentOp.DELETE, IntentOp.UPDATE) is True
    assert [e.op for e in doc.pending] == ["create"]


def test_a_read_states_records_share_their_given_names() -> None:
    """Records read with the same given fields share one set of their names (memory), a
    copy with an update gets its own (the shared one unchanged), and the document reads
    back equal all the same."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    for name in ("a", "b"):
        doc.record(sample_recorded(name))
    text = _text(doc)
    read = parse_state(text, source="s.json")
    first, second = read.deployments["a"], read.deployments["b"]
    assert first.model_fields_set is second.model_fields_set
    shared = set(first.model_fields_set)
    moved = first.model_copy(update={"protect": True})
    assert moved.model_fields_set is not first.model_fields_set
    assert second.model_fields_set == shared and moved.protect and not second.protect
    assert read == parse_state(text, source="s.json") and dump_state(read) == text


def test_recorded_deployments_and_intents_share_their_sets_of_given_names() -> None:
    """Records and intents a document takes share one set of given field names per
    class (pydantic makes one per instance); what they hold and dump is unchanged."""
    doc = StateDocument.new(ENDPOINT, TENANT)
    first, second = sample_recorded("alpha"), sample_recorded("beta")
    expected = [first.model_dump(mode="json"), second.model_dump(mode="json")]
    doc.record(first)
    doc.record(second)
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__
    assert [doc.deployments[n].model_dump(mode="json") for n in ("alpha", "beta")] == expected
    one = doc.add_intent(IntentOp.CREATE, "gamma")
    two = doc.add_intent(IntentOp.DELETE, "alpha", deployment_id=first.id)
    assert one.__pydantic_fields_set__ is two.__pydantic_fields_set__
    assert one.model_fields_set == {"op", "name", "started_at", "deployment_id", "details"}
    assert parse_state(_text(doc), source="s").pending == [one, two]
