"""Prometheus metrics of the local control plane, in the text exposition format.

Written by hand (no client library): a few counters kept under one lock, rendered with
`# HELP` / `# TYPE` lines and escaped label values. Requests are counted by method,
route *template* (`/v2/deployments/{deployment_id}`, never the raw path, so ids do not
explode the label set; `unmatched` for unknown paths) and status.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from planner import __version__

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
KNOWN_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
UNMATCHED = "unmatched"

LabelSet = tuple[tuple[str, str], ...]


def escape_label_value(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def format_labels(labels: LabelSet) -> str:
    if not labels:
        return ""
    inner = ",".join(f'{name}="{escape_label_value(value)}"' for name, value in labels)
    return "{" + inner + "}"


def format_value(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


class CounterFamily:
    """One counter metric with labels; thread-safe."""

    def __init__(self, name: str, help_text: str, label_names: Sequence[str]) -> None:
        self.name = name
        self.help_text = help_text
        self.label_names = tuple(label_names)
        self._values: dict[LabelSet, float] = {}
        self._lock = threading.Lock()

    def inc(self, *label_values: str, amount: float = 1) -> None:
        labels = tuple(zip(self.label_names, label_values, strict=True))
        with self._lock:
            self._values[labels] = self._values.get(labels, 0) + amount

    def value(self, *label_values: str) -> float:
        labels = tuple(zip(self.label_names, label_values, strict=True))
        with self._lock:
            return self._values.get(labels, 0)

    def render(self) -> list[str]:
        with self._lock:
            samples = sorted(self._values.items())
        lines = [f"# HELP {self.name} {escape_help(self.help_text)}", f"# TYPE {self.name} counter"]
        lines += [f"{self.name}{format_labels(k)} {format_value(v)}" for k, v in samples]
        return lines


class Gauge:
    """A gauge whose value is read when the metrics are rendered."""

    def __init__(
        self, name: str, help_text: str, read: Callable[[], Iterable[tuple[LabelSet, float]]]
    ):
        self.name = name
        self.help_text = help_text
        self.read = read

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {escape_help(self.help_text)}", f"# TYPE {self.name} gauge"]
        lines += [f"{self.name}{format_labels(k)} {format_value(v)}" for k, v in self.read()]
        return lines


class Registry:
    """The metrics of one control plane."""

    def __init__(self, mode: str = "cloud") -> None:
        self.requests = CounterFamily(
            "controlplane_requests_total",
            "HTTP requests handled, by method, route template and status.",
            ("method", "route", "status"),
        )
        self.faults = CounterFamily(
            "controlplane_faults_injected_total",
            "Faults injected for testing clients (latency, error, rate_limit).",
            ("kind",),
        )
        self.gauges: list[Gauge] = [
            Gauge(
                "controlplane_info",
                "Build and mode of this local control plane (always 1).",
                lambda: [((("version", __version__), ("mode", mode)), 1)],
            )
        ]

    def render(self) -> str:
        lines = self.requests.render() + self.faults.render()
        for gauge in self.gauges:
            lines += gauge.render()
        return "\n".join(lines) + "\n"


class RouteTable:
    """Maps a request path to its route template.

    Matching on the path alone also labels a 405 and a fault response (sent before
    routing) with their template. Static paths come before templated ones, so
    `/x/install` wins over `/x/{id}`.
    """

    def __init__(self, templates: Iterable[str]) -> None:
        ordered = sorted(set(templates), key=lambda path: (path.count("{"), path))
        self.patterns = [(compile_path(path)[0], path) for path in ordered]

    @classmethod
    def of_routers(cls, routers: Iterable[APIRouter]) -> RouteTable:
        return cls(str(getattr(route, "path", "")) for r in routers for route in r.routes)

    def template(self, path: str) -> str:
        for pattern, template in self.patterns:
            if pattern.match(path):
                return template
        return UNMATCHED


class MetricsMiddleware:
    """Count every HTTP request by method, route template and final status."""

    def __init__(self, app: ASGIApp, registry: Registry, routes: RouteTable) -> None:
        self.app = app
        self.registry = registry
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        route = self.routes.template(scope["path"])
        method = scope["method"] if scope["method"] in KNOWN_METHODS else "other"
        status = 500  # an exception escaping the app ends as a 500

        async def send_with_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_with_status)
        finally:
            self.registry.requests.inc(method, route, str(status))


router = APIRouter()


@router.get("/metrics", tags=["metrics"], response_class=PlainTextResponse)
def metrics(request: Request) -> PlainTextResponse:
    """Prometheus metrics in the text exposition format (no API key needed)."""
    registry: Registry = request.app.state.metrics
    return PlainTextResponse(registry.render(), media_type=CONTENT_TYPE)
