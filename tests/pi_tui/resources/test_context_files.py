"""Context files: the global ones (pi-tui's home, Pi's ~/.pi/agent), then `/` down to the cwd."""

from __future__ import annotations

import os
from pathlib import Path

from pi_tui.resources.context_files import find_context_files
from tests.support.pi_home import pi_agent_dir


def test_context_files_from_the_global_folders_then_root_down_to_cwd(tmp_path: Path) -> None:
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "AGENTS.md").write_text("pi-tui's global rules")
    pi_agent_dir().mkdir(parents=True)
    (pi_agent_dir() / "CLAUDE.md").write_text("Pi's global rules")
    project = tmp_path / "proj"
    sub = project / "pkg"
    sub.mkdir(parents=True)
    (project / "AGENTS.md").write_text("project rules")
    (project / "CLAUDE.md").write_text("ignored: AGENTS.md wins in the same folder")
    (sub / "CLAUDE.md").write_text("package rules")
    found = [f.content for f in find_context_files(sub)]
    assert found == ["pi-tui's global rules", "Pi's global rules", "project rules", "package rules"]
