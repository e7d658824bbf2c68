"""The terminal closes under the TUI while the bash tool runs a command: tmux kills the pane, so the kernel
sends SIGHUP to pi-tui. The command's processes (in a session of their own, which no signal aimed at pi-tui
reaches) end with it, pi-tui exits, and the session holds the stopped turn."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import sys
from pathlib import Path

import pytest

from pi_tui.session.store import Session
from tests.e2e.test_tmux import TMUX, Pane, close
from tests.reliability.consistency import check_session
from tests.support.fake_openai import FakeOpenAI, call, tool_reply
from tests.support.processes import group_of_pidfile, live_members
from tests.support.typed import plain
from tests.support.waiting import wait_until

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install -y tmux)"),
              pytest.mark.xdist_group("serial")]

COMMAND = "sleep 300 & echo $! > background.pid; sleep 300"


def processes_with(marker: str) -> list[int]:
    """Running processes whose command line holds `marker` (here: the fake server's URL, given only to pi-tui)."""
    found = []
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if entry.isdigit() and marker in Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace"):
                found.append(int(entry))
    return found


def open_real_model_pane(tmp_path: Path, base_url: str) -> tuple[Pane, Path]:
    work = tmp_path / "work"
    work.mkdir()
    home = Path(os.environ["PI_TUI_HOME"])
    command = (f"cd {shlex.quote(str(work))} && PI_TUI_HOME={shlex.quote(str(home))} {shlex.quote(sys.executable)}"
               f" -m pi_tui --model openai/fake-model --base-url {shlex.quote(base_url)}")
    pane = Pane(tmp_path / "tmux.sock", "pi")
    pane.run("-f", "/dev/null", "new-session", "-d", "-s", "pi", "-x", "120", "-y", "40", command)
    return pane, work


def test_closing_the_terminal_ends_the_bash_tools_processes_and_saves_the_turn(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    fake_openai.push(tool_reply(call("bash", {"command": COMMAND}, "sleepy_1")))
    pane, work = open_real_model_pane(tmp_path, fake_openai.base_url)
    pgid = 0
    try:
        pane.wait_for(lambda s: "Ask anything" in s and "openai/fake-model" in s, "the editor and the model")
        pane.keys("wait a while", "Enter")
        pgid = group_of_pidfile(work / "background.pid")
        wait_until(lambda: len(live_members(pgid)) >= 2, "both sleeps (bash may exec the last in its place)")
        assert processes_with(fake_openai.base_url), "pi-tui runs"
        close(pane)  # the terminal goes away: SIGHUP
        wait_until(lambda: not live_members(pgid), "both sleeps to end", timeout=20)
        wait_until(lambda: not processes_with(fake_openai.base_url), "pi-tui to exit", timeout=20)
    finally:
        close(pane)
        for pid in processes_with(fake_openai.base_url):  # a pi-tui that hung on the closed terminal
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if pgid:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
    (path,) = (Path(os.environ["PI_TUI_HOME"]) / "sessions").rglob("*.jsonl")
    check_session(path)
    messages = plain(Session.open(path).messages())
    result = next(m for m in messages if m["role"] == "toolResult")
    assert result["toolCallId"] == "sleepy_1" and result["content"][0]["text"].endswith("Command aborted")
    assert messages[-1]["role"] == "assistant" and messages[-1]["stopReason"] == "aborted"
