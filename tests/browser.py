"""A real headless browser for the tests: Debian's chromium, driven through chromedriver.

chromedriver speaks W3C WebDriver (JSON over loopback HTTP), so no browser download and
no driver library are needed: `.ci/run` installs both packages (`scripts/chromium-up`).
Without them the browser tests skip with the reason; under CI (`CI=true`) that is a
failure, never a skip.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import httpx2
import pytest

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",  # tests run as root in CI
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,2000",
)


def require_chromium(environ: Mapping[str, str]) -> tuple[str, str]:
    """(chromium, chromedriver) paths; skip (under CI: fail) when either is missing."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium and driver:
        return chromium, driver
    reason = "no chromium or chromedriver (run scripts/chromium-up)"
    if environ.get("CI", "").lower() == "true":
        pytest.fail(f"a headless browser is required under CI: {reason}", pytrace=False)
    pytest.skip(reason)


class Browser:
    """One WebDriver session: open a URL, run a script in the page, read the console."""

    def __init__(self, http: httpx2.Client, session: str) -> None:
        self.http, self.session = http, session

    def open(self, url: str) -> None:
        self._command("url", {"url": url})

    def run(self, script: str) -> Any:
        """SCRIPT's return value (a function body run in the page)."""
        return self._command("execute/sync", {"script": script, "args": []})

    def console(self) -> list[dict[str, Any]]:
        """The browser's console and network log since the last call."""
        entries: list[dict[str, Any]] = self._command("se/log", {"type": "browser"})
        return entries

    def _command(self, path: str, body: dict[str, Any]) -> Any:
        response = self.http.post(f"/session/{self.session}/{path}", json=body)
        assert response.status_code == 200, response.text
        return response.json()["value"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def headless_browser() -> Iterator[Browser]:
    """A chromium session driven by a chromedriver on a free 127.0.0.1 port."""
    chromium, driver = require_chromium(os.environ)
    port = _free_port()
    process = subprocess.Popen(
        [driver, f"--port={port}", "--allowed-ips=127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with (
            tempfile.TemporaryDirectory() as profile,
            httpx2.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http,
        ):
            _wait_until_up(http, process)
            options = {"binary": chromium, "args": [*CHROMIUM_FLAGS, f"--user-data-dir={profile}"]}
            capabilities = {"browserName": "chrome", "goog:chromeOptions": options}
            capabilities["goog:loggingPrefs"] = {"browser": "ALL"}
            answer = http.post("/session", json={"capabilities": {"alwaysMatch": capabilities}})
            assert answer.status_code == 200, answer.text
            session = answer.json()["value"]["sessionId"]
            try:
                yield Browser(http, session)
            finally:
                http.delete(f"/session/{session}")
    finally:
        process.terminate()
        process.wait(timeout=30)


def _wait_until_up(http: httpx2.Client, process: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        try:
            if http.get("/status").json()["value"]["ready"]:
                return
        except httpx2.TransportError:
            pass
        assert process.poll() is None, f"chromedriver exited with {process.returncode}"
        time.sleep(0.05)
    raise AssertionError("chromedriver did not start within 15 s")
