"""The machine's floor for an apply: a lean client creating N deployments (not a test).

    python benchmarks/lean_client.py URL COUNT [--parallel 50]

No planner: a raw httpx2 client (the same stack and network backend as the planner's
client) with pre-built bodies sends COUNT creates, PARALLEL in flight, then waits for
every first revision the way the planner's poller does at best: one
`GET /v2/deployments?deployment_ids=...` per 100 waiting deployments, 4 in flight, every
0.2 s, a deployment done when its active revision is its latest. Prints one JSON line
(`seconds` from the first create to the last deployed, `cpu` seconds of this process).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import httpx2

from planner.api.transport import client_transport

API_KEY = "bench-key"
INTEGRATION = "9a0e7c55-0000-4000-8000-00000000a001"
POLL_SECONDS = 0.2
POLL_REQUESTS = 4
IDS_PER_REQUEST = 100


def create_body(n: int) -> bytes:
    return json.dumps(
        {
            "name": f"lean-{n:06d}",
            "source": "git_host",
            "source_config": {
                "integration_id": INTEGRATION,
                "repo_url": f"https://git.example.com/acme/lean-{n:06d}",
            },
            "source_revision_config": {"repo_ref": "main", "agent_config_path": "agent.json"},
            "secrets": [],
        }
    ).encode()


async def lean_apply(
    url: str, count: int, parallel: int = 50, on_created: Callable[[], None] | None = None
) -> dict[str, Any]:
    """COUNT creates, then list-batched polls until every one is deployed (ON_CREATED is
    called between the two phases)."""
    bodies = [create_body(n) for n in range(count)]
    headers = {"X-Api-Key": API_KEY, "content-type": "application/json"}
    limits = httpx2.Limits(max_connections=parallel, max_keepalive_connections=parallel)
    transport = client_transport(limits, httpx2.create_ssl_context())
    async with httpx2.AsyncClient(base_url=url, headers=headers, transport=transport) as client:
        cpu, started = time.process_time(), time.monotonic()
        waiting: set[str] = set()
        slots = asyncio.Semaphore(parallel)

        async def create(payload: bytes) -> None:
            async with slots:
                response = await client.post("/v2/deployments", content=payload)
            assert response.status_code == 201, response.text
            waiting.add(response.json()["id"])

        await asyncio.gather(*(create(payload) for payload in bodies))
        created_cpu = time.process_time() - cpu
        if on_created is not None:
            on_created()
        polls = 0
        polling = asyncio.Semaphore(POLL_REQUESTS)

        async def poll(chunk: list[str]) -> None:
            params: dict[str, str | int] = {"deployment_ids": ",".join(chunk), "limit": len(chunk)}
            async with polling:
                response = await client.get("/v2/deployments", params=params)
            for found in response.json()["resources"]:
                latest = found["latest_revision_id"]
                if latest is not None and found["active_revision_id"] == latest:
                    waiting.discard(found["id"])

        while waiting:
            await asyncio.sleep(POLL_SECONDS)
            ids = sorted(waiting)
            chunks = [ids[i : i + IDS_PER_REQUEST] for i in range(0, len(ids), IDS_PER_REQUEST)]
            await asyncio.gather(*(poll(chunk) for chunk in chunks))
            polls += len(chunks)
        seconds, cpu = time.monotonic() - started, time.process_time() - cpu
    return {"seconds": seconds, "cpu": cpu, "create_cpu": created_cpu, "polls": polls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("count", type=int)
    parser.add_argument("--parallel", type=int, default=50)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(lean_apply(args.url, args.count, args.parallel))))


if __name__ == "__main__":
    main()
