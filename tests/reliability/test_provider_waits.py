"""How long `pi-tui -p` waits on a provider, seen from the provider's side (the fake server's clock).

A 429's `Retry-After` (and `retry-after-ms`) sets the wait before the retry, up to
`retry.max_retry_after_ms`, and the retry line says so. The backoff is set to an hour, so a client that
ignored the header would run into the test's deadline, not pass by luck; that the server saw each retry at
least the asked wait after the failure is a lower bound no slow machine can break. A reply that stops
sending mid-way ends after `retry.stream_idle_timeout_ms` in one line, with everything before it saved.
Both run the real command in a child process, so a client that never gives up fails on the deadline
instead of hanging the suite.
"""

from __future__ import annotations

import os
from itertools import pairwise
from pathlib import Path

from pi_tui.session.store import Session
from tests.reliability.consistency import check_session
from tests.support.cli import run_cli
from tests.support.fake_openai import FakeOpenAI, Reply, call, rate_limited, text_reply, tool_reply
from tests.support.typed import plain

DEADLINE = 90  # seconds for the whole child run: a net for a client that waits an hour, never a measurement
MODEL = ["--model", "openai/fake-model"]


def settings(text: str) -> None:
    (Path(os.environ["PI_TUI_HOME"]) / "settings.toml").write_text(text)


def session_file() -> Path:
    (path,) = (Path(os.environ["PI_TUI_HOME"]) / "sessions").rglob("*.jsonl")
    return path


def test_retries_wait_what_the_provider_asked_capped_by_the_setting(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    settings("[retry]\nmax_retries = 3\nbase_delay_ms = 3600000\nmax_retry_after_ms = 2000\n")
    fake_openai.push(rate_limited({"retry-after": "1"}),
                     rate_limited({"retry-after": "3600"}),
                     rate_limited({"retry-after-ms": "1500", "retry-after": "3600"}),
                     text_reply("finally through"))
    result = run_cli("-p", "hello", *MODEL, "--base-url", fake_openai.base_url, cwd=tmp_path, timeout=DEADLINE)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "finally through"
    retries = [line[line.index("(retry "):] for line in result.stderr.splitlines() if "(retry " in line]
    assert retries == ["(retry 1/3 in 1s, as the provider asked)",
                       "(retry 2/3 in 2s, the provider asked for 3600s, capped by retry.max_retry_after_ms)",
                       "(retry 3/3 in 1.5s, as the provider asked)"]
    waited = [later - earlier for earlier, later in pairwise(fake_openai.request_times)]
    assert len(waited) == 3
    for seconds, asked in zip(waited, (1.0, 2.0, 1.5), strict=True):
        assert seconds >= asked, waited  # on the server's clock, never less than the (capped) wait asked for
    check_session(session_file())


def test_an_absurd_retry_after_waits_the_cap_and_crashes_nothing(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """`Retry-After: 1e308` ended `-p` with `internal error: OverflowError`."""
    settings("[retry]\nmax_retries = 3\nbase_delay_ms = 3600000\nmax_retry_after_ms = 1000\n")
    fake_openai.push(rate_limited({"retry-after": "1e308"}), rate_limited({"retry-after-ms": "-1e308"}),
                     text_reply("through"))
    result = run_cli("-p", "hello", *MODEL, "--base-url", fake_openai.base_url, cwd=tmp_path, timeout=DEADLINE)
    assert (result.returncode, result.stdout.strip()) == (0, "through"), result.stderr
    retries = [line[line.index("(retry "):] for line in result.stderr.splitlines() if "(retry " in line]
    assert retries == ["(retry 1/3 in 1s, the provider asked for 3.16224e+07s, capped by retry.max_retry_after_ms)",
                       "(retry 2/3 in 0s, as the provider asked)"]


def test_a_stream_that_stops_sending_ends_the_turn_in_one_line_and_keeps_what_came_before(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    settings("[retry]\nenabled = false\nstream_idle_timeout_ms = 1000\n")
    fake_openai.push(tool_reply(call("bash", {"command": "echo before the stall"}, "echo_1")),
                     Reply(text="half an answer that never ends", stall_after=3))
    result = run_cli("-p", "hello", *MODEL, "--base-url", fake_openai.base_url, cwd=tmp_path, timeout=DEADLINE)
    assert result.returncode == 1, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("pi-tui: error:")]
    assert errors == ["pi-tui: error: Temporary provider error: the stream timed out: nothing came for 1 s"
                      " (setting retry.stream_idle_timeout_ms). Try again in a moment."], result.stderr
    assert "Traceback" not in result.stderr
    path = session_file()
    check_session(path)
    messages = plain(Session.open(path).messages())
    assert [m["role"] for m in messages] == ["user", "assistant", "toolResult", "assistant"]
    assert messages[2]["content"][0]["text"] == "before the stall\n"
    last = messages[-1]
    assert last["stopReason"] == "error" and last["errorMessage"] == errors[0].removeprefix("pi-tui: error: ")
    assert last["content"][0]["text"] == "half an "  # the two text chunks (4 characters each) sent before the stall
