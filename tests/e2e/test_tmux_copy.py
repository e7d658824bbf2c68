"""`/copy` in a real terminal with no clipboard tool: pi-tui writes OSC 52, and tmux (told to accept it,
`set-clipboard on`) puts the reply in its paste buffer, as a terminal puts it on the clipboard."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_tmux import TMUX, close, open_pane

pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install -y tmux)"),
              pytest.mark.xdist_group("serial")]


def test_copy_reaches_the_terminal_as_osc_52(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):  # no desktop: no clipboard tool is used
        monkeypatch.delenv(name, raising=False)
    pane = open_pane(tmp_path)
    try:
        pane.run("set-option", "-g", "set-clipboard", "on")
        pane.wait_for(lambda s: "Ask anything" in s, "the editor")
        pane.keys("fix the failing test", "Enter")
        # the run is over once the final reply's flush is: wait for all of it (as test_tmux does)
        pane.wait_for(lambda s: "(demo task 1/6 done)" in s and "in chain b1" in s and "prune: ON" in s,
                      "the demo's final reply, its work compressed and the pruner idle again")
        pane.keys("/copy", "Enter")
        pane.wait_for(lambda s: "through the terminal (OSC 52" in s, "the line saying how it was copied")
        copied = pane.run("show-buffer")
        assert copied.startswith("Fixed: the suite is green again.")  # the final reply, whole
        assert copied.endswith("(demo task 1/6 done) Send any message to play the next task.")
    finally:
        close(pane)
