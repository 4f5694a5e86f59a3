"""`planner.api.http_internals`, the one module that reaches into httpx2's and httpcore2's
internals: what it relies on is there, in the releases it was checked against (an upgrade
fails here first: check each use again, then move the range), and no other module under
`planner/api/` uses a private attribute of theirs."""

from __future__ import annotations

import ast
import inspect
import re
from importlib.metadata import version
from pathlib import Path

import httpcore2
import httpx2
import pytest

from planner.api.http_internals import LeanPool, with_query

# the releases whose internals `planner.api.http_internals` was checked against
CHECKED = {"httpx2": "2.16", "httpcore2": "2.16"}
API = Path(__file__).resolve().parents[2] / "planner" / "api"
# a private attribute or method of an object: `._name` (not `.__dunder__`)
_PRIVATE = re.compile(r"\._[a-z]\w*")


@pytest.mark.parametrize("distribution", sorted(CHECKED))
def test_the_release_is_one_the_internals_were_checked_against(distribution: str) -> None:
    """httpx2 and httpcore2 are of the minor releases checked: an upgrade past them fails
    here until each internal use has been checked again."""
    assert version(distribution).startswith(CHECKED[distribution] + ".")


def test_the_pool_has_the_private_parts_lean_pool_uses() -> None:
    """httpcore2's pool has the two methods LeanPool overrides, with the signatures it
    gives them, and the private state it reads, as it sets them up."""
    pool = httpcore2.AsyncConnectionPool(max_connections=3, max_keepalive_connections=2)
    assert pool._requests == [] and pool._connections == []
    assert (pool._http2, pool._max_connections, pool._max_keepalive_connections) == (False, 3, 2)
    for name in ("_assign_requests_to_connections", "_close_connections"):
        ours = inspect.signature(getattr(LeanPool, name)).parameters
        theirs = inspect.signature(getattr(httpcore2.AsyncConnectionPool, name)).parameters
        assert list(ours) == list(theirs)


def test_a_pool_request_has_what_lean_pool_reads() -> None:
    """A queued request of httpcore2's pool has its connection (none yet), its request
    and the method that assigns it a connection."""
    from httpcore2._async.connection_pool import AsyncPoolRequest

    request = httpcore2.Request("GET", "http://h.test/")
    queued = AsyncPoolRequest(request)
    assert queued.connection is None and queued.request is request
    assert callable(queued.assign_to_connection)


def test_a_query_set_without_checking_is_the_one_httpx2_parses() -> None:
    """`with_query` gives the URL httpx2 makes of the same text, parsed in full."""
    parsed = httpx2.URL("http://h.test/v2/deployments?q=")
    query = "deployment_ids=a-1%2Cb_2&limit=100"
    found = with_query(parsed, query)
    expected = httpx2.URL(f"http://h.test/v2/deployments?{query}")
    assert found == expected and found.raw_path == expected.raw_path
    assert found._uri_reference == expected._uri_reference


def test_no_other_api_module_uses_a_private_attribute_of_the_http_stack() -> None:
    """Outside http_internals.py, planner/api/ reads and writes private attributes of its
    own objects only (`self._name`, a name no class of httpx2 or httpcore2 has): none of
    another object's, so none of an httpx2 client's, transport's, pool's or URL's."""
    theirs = {
        name
        for library in (httpx2, httpcore2)
        for _, cls in inspect.getmembers(library, inspect.isclass)
        for klass in cls.__mro__
        for name in vars(klass)
        if _PRIVATE.fullmatch("." + name)
    }
    used = []
    for path in sorted(API.glob("*.py")):
        if path.name == "http_internals.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute) or not _PRIVATE.fullmatch("." + node.attr):
                continue
            on_self = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if not on_self or node.attr in theirs:
                used.append(f"{path.name}:{node.lineno} {node.attr}")
    assert used == []
