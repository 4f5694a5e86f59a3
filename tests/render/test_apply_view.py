"""What apply shows: text on stdout, or NDJSON events on stdout and people's lines on stderr."""

from __future__ import annotations

import re
import signal

import pytest

from planner.apply.results import ApplyResult, DeploymentResult, Outcome
from planner.plan.model import Action
from planner.render.apply_view import JsonView, TextView, make_view, stopping_message
from tests.event_lines import event_lines


def test_json_view_reports_a_stop_as_an_event_and_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A first SIGTERM is an `interrupt` event on stdout and the human line on stderr."""
    view = JsonView("apply")
    view.stopping(signal.SIGTERM)
    out, err = capsys.readouterr()
    (event,) = event_lines(out)
    assert (event["type"], event["signal"]) == ("interrupt", "SIGTERM")
    assert "Terminated (SIGTERM)" in err and "Terminated (SIGTERM)" in event["message"]


def test_json_view_cut_short_ends_with_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """Stopped at once, the stream still ends with a summary: of what the executor
    reported (interrupted, the exit code given), or an empty one before it started."""
    view = JsonView("destroy")
    view.cut_short(130)
    row = DeploymentResult("api", Action.DELETE, status="deleted", outcome=Outcome.SUCCEEDED)
    view.events.end(ApplyResult(results=[row], mode="destroy"))
    view.cut_short(143)
    first, second = event_lines(capsys.readouterr().out)
    assert (first["outcome"], first["exit_code"], first["counts"]["deleted"]) == (
        "interrupted", 130, 0,
    )  # fmt: skip
    assert first["message"].startswith("Destroy interrupted")
    assert (second["exit_code"], second["counts"]["deleted"]) == (143, 1)


def test_text_view_prints_the_stop_message_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    """The text view says how it stops, by signal, stamped in UTC like the progress
    lines (no terminal here); cut short it leaves the word to the error boundary."""
    view = make_view("text", "apply")
    assert isinstance(view, TextView)
    view.stopping(signal.SIGINT)
    view.cut_short(130)
    out = capsys.readouterr().out
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (.*)\n", out)
    assert out.endswith(" " + stopping_message(signal.SIGINT) + "\n")
    assert "Ctrl-C again" in stopping_message(signal.SIGINT)
    assert "a second signal" in stopping_message(signal.SIGTERM)
