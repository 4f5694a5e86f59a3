"""`--notify-url`: a JSON POST when drift is found, healed, or a cycle fails.

The body is Slack-compatible (`text`, one line a person reads) plus structured fields
(`event`, `cycle`, `mode`, `result`, the deployment names, `message`, `config`,
`environment`, `time`). It never carries a secret: names, counts and the planner's own
messages only (a PlannerError's message names no secret value). A failing notification
never fails the cycle: it is reported (naming the URL's host only: a webhook URL is a
secret of its own) and the loop goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx2

from planner.errors import ConfigError

NOTIFY_TIMEOUT_SECONDS = 5.0
NotifyKind = Literal["drift", "healed", "failed"]


def check_notify_url(url: str) -> str:
    """URL, when it is an http(s) URL with a host; else a ConfigError (at start, not at
    the first notification). The error names the host only: the path may be a token."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            "--notify-url must be an http:// or https:// URL with a host",
            hint="for example --notify-url https://hooks.slack.com/services/...",
        )
    return url


class Notifier:
    """POSTs notifications to URL; ON_FAILURE hears, in one line, one that did not arrive."""

    def __init__(
        self,
        url: str,
        on_failure: Callable[[str], None],
        *,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url
        self.on_failure = on_failure
        self._client = httpx2.AsyncClient(timeout=NOTIFY_TIMEOUT_SECONDS, transport=transport)

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "?"

    async def send(self, body: dict[str, Any]) -> bool:
        """POST BODY; whether it arrived (a 2xx). Never raises for the request."""
        try:
            response = await self._client.post(self.url, json=body)
        except Exception as error:  # whatever went wrong, a warning: never the cycle's failure
            self.on_failure(f"notification to {self.host} failed: {type(error).__name__}")
            return False
        if not response.is_success:
            self.on_failure(f"notification to {self.host} failed: HTTP {response.status_code}")
            return False
        return True

    async def aclose(self) -> None:
        await self._client.aclose()


def notification_text(kind: NotifyKind, names: list[str], message: str, where: str) -> str:
    """The `text` of a notification: what happened, to which deployments, where."""
    listed = ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    head = {
        "drift": f"planner reconcile found drift in {where}",
        "healed": f"planner reconcile healed {where}",
        "failed": f"planner reconcile failed in {where}",
    }[kind]
    return f"{head}: {listed}. {message}" if listed else f"{head}. {message}"
