"""pi-tui in a real terminal: tmux runs `pi-tui --model demo`, the test types like a user and reads the pane.

This is the one test that goes through a real tty, the real key parser and the installed entry point:
start, prompt, watch the reply and the pruner's footer status, open `/pruner tree`, close it, quit.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import corpus_path

TMUX = shutil.which("tmux")
pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install -y tmux)"),
              pytest.mark.xdist_group("serial")]  # tmux servers and full TUIs: one at a time


class Pane:
    def __init__(self, socket: Path, name: str) -> None:
        self.base = [str(TMUX), "-S", str(socket)]  # a private server, gone with the test's folder
        self.name = name

    def run(self, *args: str) -> str:
        # pytest exports COLUMNS=80 and LINES=24; a tmux server started with them passes them on and the
        # app would draw 80x24 in a 120x40 pane
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        return subprocess.run([*self.base, *args], check=True, capture_output=True, text=True, timeout=20,
                              env=env).stdout

    def text(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.name, *keys)

    def wait_for(self, condition: Callable[[str], bool], what: str, timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.text()
            if condition(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"the pane never showed {what}; it shows:\n{self.text()}")


def open_pane(tmp_path: Path, *args: str, size: tuple[int, int] = (120, 40)) -> Pane:
    """`pi-tui --model demo ARGS` in a private tmux server, in a pane of `size` columns and rows."""
    socket, name = tmp_path / "tmux.sock", "pi"
    home = tmp_path / "home"
    work = tmp_path / "work"
    work.mkdir()
    options = " ".join(shlex.quote(arg) for arg in args)
    command = (f"cd {shlex.quote(str(work))} && PI_TUI_HOME={shlex.quote(str(home))} "
               f"{shlex.quote(sys.executable)} -m pi_tui --model demo {options}; echo PI-TUI-EXITED $?; sleep 60")
    pane = Pane(socket, name)
    pane.run("-f", "/dev/null", "new-session", "-d", "-s", name, "-x", str(size[0]), "-y", str(size[1]), command)
    return pane


def close(pane: Pane) -> None:
    subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=20)


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    pane = open_pane(tmp_path)
    try:
        yield pane
    finally:
        close(pane)


def test_prompt_reply_pruner_tree_and_quit_in_a_real_terminal(pane: Pane) -> None:
    pane.wait_for(lambda s: "Ask anything" in s and "prune: ON" in s and "model demo (offline, scripted)" in s,
                  "the editor, the footer and the first screen")
    pane.keys("fix the failing test", "Enter")
    # the status line reads `prune: summarizing…` until the flush is done, later on a busy machine: wait
    # for the whole end state, never assert a part of it the moment another part shows
    # (the summaries stand beside their turns, above: the cards' marks say the task was compressed)
    reply = pane.wait_for(lambda s: "(demo task 1/6 done)" in s and "in chain b1" in s and "prune: ON" in s,
                          "the finished reply, its work compressed and the pruner idle again")
    assert "the suite is green again" in reply
    assert "● bash python3 -m unittest  ok" in reply

    pane.keys("/pruner tree", "Enter")
    # refs in call order: the listings and the first test run, then the reads
    pane.wait_for(lambda s: "/pruner tree ·" in s and "t4 read invoicer/pricing.py" in s,
                  "the pruner tree with its calls")

    pane.keys("Escape")
    pane.wait_for(lambda s: "/pruner tree ·" not in s, "the tree closed")
    pane.keys("C-c", "C-c")
    pane.wait_for(lambda s: "PI-TUI-EXITED 0" in s, "pi-tui exiting with status 0")


def test_the_view_follows_a_command_that_only_shows_a_toast(tmp_path: Path) -> None:
    """The tester's steps: a reply, PageUp, then `/pruner now` typed in one burst (its reply is a toast):
    the view came back to the bottom in the app's state but the terminal kept the old picture, and no
    scroll key changed it."""
    session = tmp_path / "before.jsonl"
    shutil.copy(corpus_path("pi-before-compaction.jsonl"), session)
    pane = open_pane(tmp_path, "--session", str(session), size=(80, 24))
    try:
        pane.wait_for(lambda s: "Ask anything" in s and "990 messages" in s, "the session loaded")
        pane.keys("hello", "Enter")
        done = "(demo task 1/6 done)"  # the reply's last line: at the bottom of the view
        # the run (and the flush its final reply started) is over once "Working…" has gone
        pane.wait_for(lambda s: done in s and "Working…" not in s and "prune: ON" in s,
                      "the finished reply and the run over")
        pane.keys("PageUp")
        pane.wait_for(lambda s: done not in s, "the view scrolled up")
        pane.keys("/pruner now", "Enter")
        # while its toast shows: once the toast goes, the terminal is redrawn anyway
        pane.wait_for(lambda s: done in s and "nothing to do" in s,
                      "the view back at the bottom, with the command's reply")
        pane.keys("PageUp")
        pane.wait_for(lambda s: done not in s, "PageUp scrolling again")
        pane.keys("C-End")
        pane.wait_for(lambda s: done in s, "Ctrl+End back at the bottom")
    finally:
        close(pane)
