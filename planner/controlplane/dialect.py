"""The service dialect at the edge (`planner serve --dialect service`).

The store, the rules and the routes speak the seed's words. In the service dialect this
ASGI middleware stands between the clients and them, for the API's paths (`/v1/`, `/v2/`):
- a body that is not JSON is a 422 `json_invalid`, as the service's framework answers;
- a deployment write's JSON body (create, PATCH, new revision) is read in the real
  service's words and handed on in the seed's (`vocabulary.seed_request`): a key spelled
  the seed's way is one the service does not know, so it is dropped, as the service drops
  unknown keys; a seed value where the service has an enum (`source: "git_host"`) is a
  422, as the service's enum refuses it. What the service's document requires or bounds
  beyond the seed's models is checked here too (`service_rules`);
- every JSON response goes back in the service's words: deployments and revisions
  (`vocabulary.translate_body`), and error details (`loc` parts and messages);
- a 409 of an operation whose document lists 400 and no 409 (a create whose name is
  taken, a PATCH or redeploy the deployment's state refuses) is sent as that 400.
In the seed dialect it is not installed at all: the seed's bytes are unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from planner.api.vocabulary import (
    Dialect,
    seed_request,
    service_word,
    translate_body,
    translate_text,
)
from planner.controlplane.asgi import send_json
from planner.controlplane.body_limits import MAX_BODY_BYTES, read_body, replaying
from planner.controlplane.service_rules import Kind, service_problems

_ID = "[^/]+"  # any one path segment: the route judges the id
# The deployment writes whose bodies carry the dialect's words, by method.
_WRITES: tuple[tuple[str, re.Pattern[str], Kind], ...] = (
    ("POST", re.compile(r"/v2/deployments"), Kind.CREATE),
    ("PATCH", re.compile(rf"/v2/deployments/{_ID}"), Kind.PATCH),
    ("POST", re.compile(rf"/v2/deployments/{_ID}/revisions"), Kind.REVISION),
)
# Operations whose document lists 400 and no 409: a conflict is sent as a 400.
CONFLICT_AS_BAD_REQUEST: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("POST", re.compile(r"/v2/deployments")),
    ("PATCH", re.compile(rf"/v2/deployments/{_ID}")),
    ("POST", re.compile(rf"/v2/deployments/{_ID}/revisions/{_ID}/redeploy")),
)
_WIRE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def write_kind(method: str, path: str) -> Kind | None:
    """Which deployment write a request is (None: not one)."""
    for verb, pattern, kind in _WRITES:
        if method == verb and pattern.fullmatch(path):
            return kind
    return None


def is_conflict_a_bad_request(method: str, path: str) -> bool:
    return any(method == verb and p.fullmatch(path) for verb, p in CONFLICT_AS_BAD_REQUEST)


def in_service_words(value: Any) -> Any:
    """A response body in the service's words (a new value; what it does not name is
    kept): a deployment or revision, a page of them, or an error's detail."""
    if isinstance(value, list):
        return [in_service_words(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "detail" in value:
        return {**value, "detail": _detail(value["detail"])}
    if isinstance(value.get("resources"), list):
        return {**value, "resources": [in_service_words(item) for item in value["resources"]]}
    if "source" in value:
        return translate_body(value, Dialect.SERVICE)
    return value


def _detail(detail: Any) -> Any:
    if isinstance(detail, str):
        return translate_text(detail, Dialect.SERVICE)
    if not isinstance(detail, list):
        return detail
    problems = []
    for problem in detail:
        if isinstance(problem, dict):
            problem = dict(problem)
            loc = problem.get("loc")
            if isinstance(loc, list):
                problem["loc"] = [service_word(p) if isinstance(p, str) else p for p in loc]
            if isinstance(problem.get("msg"), str):
                problem["msg"] = translate_text(problem["msg"], Dialect.SERVICE)
        problems.append(problem)
    return problems


class ServiceDialect:
    """Speak the real service's words to clients; the seed's to the app behind."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith(("/v1/", "/v2/")):
            await self.app(scope, receive, send)
            return
        method: str = scope["method"]
        if method in ("POST", "PATCH"):
            body = await read_body(receive, MAX_BODY_BYTES) or b""
            translated = _request_in_seed_words(body, write_kind(method, path))
            if isinstance(translated, list):
                await send_json(send, 422, {"detail": translated}, {})
                return
            scope = _with_length(scope, len(translated))
            receive = replaying(translated, receive)
        conflict_status = 400 if is_conflict_a_bad_request(method, path) else 409
        await self.app(scope, receive, _translating(send, conflict_status))


# What the service's framework answers a body that is not JSON with.
NOT_JSON = [{"loc": ["body", 0], "msg": "JSON decode error", "type": "json_invalid"}]


def _request_in_seed_words(body: bytes, kind: Kind | None) -> bytes | list[dict[str, Any]]:
    """The body of a write (KIND: a deployment write's, None: another's) in the seed's
    words, or the 422 problems the service finds in it: a body that is not JSON, what its
    document says of a deployment write. An empty body, or one that is not an object,
    goes on unchanged (the route refuses it, or takes none)."""
    if not body:
        return body
    try:
        value = json.loads(body)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError
        return NOT_JSON
    if kind is None or not isinstance(value, dict):
        return body
    problems = service_problems(value, kind)
    if problems:
        return [
            {"loc": ["body", *loc], "msg": msg, "type": kind_of} for loc, msg, kind_of in problems
        ]
    if kind is Kind.PATCH:  # not keys of the service's PATCH body: ignored, as it ignores them
        value = {k: v for k, v in value.items() if k not in ("name", "source")}
    return json.dumps(seed_request(value)).encode()


def _with_length(scope: Scope, length: int) -> Scope:
    headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-length"]
    return {**scope, "headers": [*headers, (b"content-length", b"%d" % length)]}


def _translating(send: Send, conflict_status: int) -> Callable[[Message], Awaitable[None]]:
    """SEND, with a JSON response's body in the service's words (the whole body is held
    until its last part) and a 409 sent as CONFLICT_STATUS."""
    start: Message | None = None
    parts: list[bytes] = []

    async def translated(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            start = message
            if not _is_json(message):
                await send(message)
            return
        if message["type"] != "http.response.body" or start is None or not _is_json(start):
            await send(message)
            return
        parts.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        body = _service_body(b"".join(parts))
        status = start["status"]
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", b"%d" % len(body)))
        await send(
            {
                **start,
                "status": conflict_status if status == 409 else status,
                "headers": headers,
            }
        )
        await send({"type": "http.response.body", "body": body})

    return translated


def _is_json(start: Message) -> bool:
    for name, value in start.get("headers", []):
        if name.lower() == b"content-type":
            return bytes(value).split(b";")[0].strip() == b"application/json"
    return False


def _service_body(body: bytes) -> bytes:
    if not body:
        return body
    try:
        value = json.loads(body)
    except ValueError:
        return body
    return _WIRE.encode(in_service_words(value)).encode()
