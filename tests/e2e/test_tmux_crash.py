"""The TUI's crash line in a real terminal: an internal error whose text quotes a key and a terminal escape
(an exception may quote anything, a tool's output included) is said scrubbed and escaped, as the CLI's
error lines are. Before, the key reached the screen and `ESC]0` set the window's title."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from tests.e2e.test_tmux import TMUX, Pane, close

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install -y tmux)"),
              pytest.mark.xdist_group("serial")]

KEY = "sk-crash-SECRET-0123456789"
# An internal error stands in for any bug: the app fails once it is up, as a crash in a handler would.
CRASHING_APP = """
import os, sys
import pi_tui.tui.app as app

mounted = app.PiApp.on_mount

def on_mount(self):
    mounted(self)

    def fail():
        raise RuntimeError(f"boom key={os.environ['OPENAI_API_KEY']} \\x1b]0;PWNED-TITLE\\x07 done")

    self.set_timer(0.5, fail)

app.PiApp.on_mount = on_mount
from pi_tui.cli import main
sys.exit(main(["--model", "demo"]))
"""


def test_the_crash_line_is_scrubbed_and_escaped(tmp_path: Path) -> None:
    script = tmp_path / "crashing_app.py"
    script.write_text(CRASHING_APP)
    work = tmp_path / "work"
    work.mkdir()
    command = (f"cd {shlex.quote(str(work))} && PI_TUI_HOME={shlex.quote(os.environ['PI_TUI_HOME'])}"
               f" OPENAI_API_KEY={KEY} {shlex.quote(sys.executable)} {shlex.quote(str(script))};"
               " echo PI-TUI-EXITED $?; sleep 60")
    pane = Pane(tmp_path / "tmux.sock", "pi")
    pane.run("-f", "/dev/null", "new-session", "-d", "-s", "pi", "-x", "200", "-y", "40", command)
    try:
        pane.wait_for(lambda s: "PI-TUI-EXITED" in s, "pi-tui ending", timeout=60)
        screen = pane.run("capture-pane", "-p", "-J", "-t", "pi")
        title = pane.run("display-message", "-p", "-t", "pi", "#{pane_title}").strip()
    finally:
        close(pane)
    (line,) = [line for line in screen.splitlines() if line.startswith("pi-tui: internal error:")]
    assert line.startswith("pi-tui: internal error: RuntimeError: boom key=[redacted:OPENAI_API_KEY]"
                           " \\x1b]0;PWNED-TITLE\\x07 done (details in "), line
    assert KEY not in screen and "PI-TUI-EXITED 1" in screen
    assert title != "PWNED-TITLE"
