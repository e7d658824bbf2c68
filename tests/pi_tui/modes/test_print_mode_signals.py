"""`pi-tui -p` ended from outside while the bash tool runs a command: SIGTERM (`kill`) and SIGHUP (what a
closing terminal sends). The command's whole process tree ends with pi-tui (it runs in a session of its
own, so no signal aimed at pi-tui reaches it by itself), the session takes the stopped turn, and the exit
status and last line say which signal it was."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pi_tui.session.store import Session
from tests.reliability.consistency import check_session
from tests.support.fake_openai import FakeOpenAI, call, tool_reply
from tests.support.processes import group_of_pidfile, live_members
from tests.support.typed import plain
from tests.support.waiting import wait_until

COMMAND = "sleep 300 & echo $! > background.pid; sleep 300"  # a child in the background, one in front


@pytest.mark.parametrize(("sig", "words"), [(signal.SIGTERM, "terminated (SIGTERM)"),
                                            (signal.SIGHUP, "the terminal closed (SIGHUP)")], ids=["TERM", "HUP"])
def test_a_signal_that_ends_print_mode_ends_the_bash_tools_processes_and_saves_the_turn(
        tmp_path: Path, fake_openai: FakeOpenAI, sig: signal.Signals, words: str) -> None:
    fake_openai.push(tool_reply(call("bash", {"command": COMMAND}, "sleepy_1")))
    proc = subprocess.Popen([sys.executable, "-m", "pi_tui", "-p", "wait a while", "--model", "openai/fake-model",
                             "--base-url", fake_openai.base_url], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    pgid = 0
    try:
        pgid = group_of_pidfile(tmp_path / "background.pid")
        wait_until(lambda: len(live_members(pgid)) >= 2, "both sleeps (bash may exec the last in its place)")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        wait_until(lambda: not live_members(pgid), "both sleeps to end", timeout=20)
    finally:
        proc.kill()
        if pgid:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
    assert proc.returncode == 128 + sig, err
    assert err.splitlines()[-1] == f"pi-tui: {words}; the session was saved" and "Traceback" not in err
    (path,) = (Path(os.environ["PI_TUI_HOME"]) / "sessions").rglob("*.jsonl")
    check_session(path)
    messages = plain(Session.open(path).messages())
    result = next(m for m in messages if m["role"] == "toolResult")
    assert result["toolCallId"] == "sleepy_1" and result["isError"]
    assert result["content"][0]["text"].endswith("Command aborted")
    assert messages[-1]["role"] == "assistant" and messages[-1]["stopReason"] == "aborted"
