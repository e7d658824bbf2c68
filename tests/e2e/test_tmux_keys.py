"""Keys that hand the terminal over, in a real terminal: Ctrl+G runs the user's `$EDITOR` on the message
being written, Ctrl+Z suspends pi-tui to the shell and `fg` brings it back, redrawn.

pi-tui runs inside an interactive bash in a tmux pane (job control: Ctrl+Z stops it as it would stop
any program the shell started); the editor is a real program that shows it has the terminal and waits.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_tmux import TMUX, Pane, close

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install -y tmux)"),
              pytest.mark.xdist_group("serial")]  # tmux servers and full TUIs: one at a time

# an editor that says it has the terminal, waits for a line typed there, and adds it to the message
EDITOR = """#!/bin/sh
printf 'IN-THE-EDITOR: %s\\n' "$(cat "$1")"
read answer
printf '%s, %s\\n' "$(cat "$1")" "$answer" > "$1"
"""


@pytest.fixture
def shell(tmp_path: Path) -> Iterator[Pane]:
    """An interactive bash in an 80x24 pane."""
    pane = Pane(tmp_path / "tmux.sock", "pi")
    pane.run("-f", "/dev/null", "new-session", "-d", "-s", "pi", "-x", "80", "-y", "24",
             "bash --norc --noprofile -i")
    try:
        yield pane
    finally:
        close(pane)


def start_pi_tui(pane: Pane, tmp_path: Path, environment: str = "") -> None:
    work = tmp_path / "work"
    work.mkdir()
    home = shlex.quote(str(tmp_path / "home"))
    pane.keys(f"cd {shlex.quote(str(work))} && PI_TUI_HOME={home} {environment} {shlex.quote(sys.executable)}"
              " -m pi_tui --model demo; echo PI-TUI-EXITED $?", "Enter")
    pane.wait_for(lambda s: "Ask anything" in s and "model demo" in s, "pi-tui started")


def test_ctrl_g_edits_the_message_in_the_users_editor(shell: Pane, tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text(EDITOR, encoding="utf-8")
    editor.chmod(0o755)
    start_pi_tui(shell, tmp_path, f"EDITOR={shlex.quote(str(editor))}")
    shell.keys("draft text")
    shell.wait_for(lambda s: "draft text" in s, "the draft in the editor")
    shell.keys("C-g")
    screen = shell.wait_for(lambda s: "IN-THE-EDITOR: draft text" in s, "the editor running in the terminal")
    assert "Ask anything" not in screen and "prune:" not in screen  # pi-tui gave the terminal up
    shell.keys("and more", "Enter")
    shell.wait_for(lambda s: "draft text, and more" in s and "prune:" in s, "pi-tui back, with the edited text")
    shell.keys("C-c", "C-c")
    shell.wait_for(lambda s: "PI-TUI-EXITED 0" in s, "pi-tui exiting with status 0")


def test_ctrl_z_suspends_to_the_shell_and_fg_redraws(shell: Pane, tmp_path: Path) -> None:
    start_pi_tui(shell, tmp_path)
    shell.keys("keep me")
    shell.wait_for(lambda s: "keep me" in s, "text in the editor")
    shell.keys("C-z")
    screen = shell.wait_for(lambda s: "Stopped" in s, "the shell saying pi-tui stopped")
    assert "prune:" not in screen  # the shell's screen, not pi-tui's
    shell.keys("fg", "Enter")
    shell.wait_for(lambda s: "keep me" in s and "prune: ON" in s and "Stopped" not in s,
                   "pi-tui redrawn as it was")
    shell.keys("C-c", "C-c")  # pi-tui ends: the shell has the terminal again
    shell.wait_for(lambda s: "prune:" not in s and s.rstrip().splitlines()[-1].startswith("bash"),
                   "the shell's prompt")
    shell.keys("echo BACK-$((40 + 2))", "Enter")
    shell.wait_for(lambda s: "BACK-42" in s, "the shell answering")


# an editor that says how many lines the message it got has, and gives it back unchanged
COUNTING_EDITOR = """#!/bin/sh
printf 'IN-THE-EDITOR: %s lines\\n' "$(wc -l < "$1")"
read answer
"""


def test_keys_of_a_burst_and_pastes_as_a_terminal_sends_them(shell: Pane, tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text(COUNTING_EDITOR, encoding="utf-8")
    editor.chmod(0o755)
    start_pi_tui(shell, tmp_path, f"EDITOR={shlex.quote(str(editor))}")
    notes = tmp_path / "notes.txt"
    notes.write_text("".join(f"note line {n}\n" for n in range(1, 7)), encoding="utf-8")
    shell.run("load-buffer", "-b", "notes", str(notes))
    shell.run("paste-buffer", "-p", "-b", "notes", "-t", shell.name)  # bracketed; line breaks sent as CR
    shell.wait_for(lambda s: "note line 1" in s and "note line 6" in s and "prune:" in s, "six lines pasted")
    shell.keys("C-c")
    shell.wait_for(lambda s: "note line" not in s, "the editor cleared")
    shell.keys("hello wor", "C-d", "C-a", "X", "C-e", "ld")  # one send-keys: one burst
    shell.wait_for(lambda s: "Xhello world" in s and "prune:" in s, "every key on the text typed before it")
    shell.keys("C-u")  # (a second Ctrl+C this soon would quit)
    shell.wait_for(lambda s: "Xhello world" not in s, "the line cut")
    log = tmp_path / "log.txt"
    log.write_text("".join(f"log line {n}\n" for n in range(1, 3001)), encoding="utf-8")
    shell.run("load-buffer", "-b", "log", str(log))
    shell.run("paste-buffer", "-p", "-b", "log", "-t", shell.name)
    shell.wait_for(lambda s: "[paste #1 +3001 lines]" in s, "the large paste as one marker")
    shell.keys("C-g")  # the external editor gets the whole text
    shell.wait_for(lambda s: "IN-THE-EDITOR: 3000 lines" in s, "the whole paste in the editor")
    shell.keys("Enter")
    shell.wait_for(lambda s: "log line 3000" in s and "prune:" in s, "pi-tui back, the paste expanded")
    shell.keys("C-c", "C-c")
    shell.wait_for(lambda s: "PI-TUI-EXITED 0" in s, "pi-tui exiting with status 0")
