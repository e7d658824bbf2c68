"""The system prompt carries the tools, the context files from home and from / down to the cwd, date and cwd."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from pi_tui.agent.system_prompt import build_system_prompt, find_context_files


def test_context_files_from_home_then_root_down_to_cwd(tmp_path: Path) -> None:
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "AGENTS.md").write_text("global rules")
    project = tmp_path / "proj"
    sub = project / "pkg"
    sub.mkdir(parents=True)
    (project / "AGENTS.md").write_text("project rules")
    (project / "CLAUDE.md").write_text("ignored: AGENTS.md wins in the same folder")
    (sub / "CLAUDE.md").write_text("package rules")
    found = [f.content for f in find_context_files(sub)]
    assert found == ["global rules", "project rules", "package rules"]


def test_prompt_lists_tools_context_date_and_cwd(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Run tests with make test.")
    prompt = build_system_prompt(tmp_path, [("read", "Read a file.\nMore."), ("bash", "Run a command.")],
                                 today=date(2026, 11, 29))
    assert "- read: Read a file.\n- bash: Run a command." in prompt
    assert f"## {tmp_path / 'AGENTS.md'}\n\nRun tests with make test." in prompt
    assert prompt.endswith(f"Current date: 2026-11-29\nCurrent working directory: {tmp_path.resolve()}")
    assert build_system_prompt(tmp_path, [("read", "x")], today=date(2026, 11, 29)) == build_system_prompt(
        tmp_path, [("read", "x")], today=date(2026, 11, 29)), "byte-stable: it starts the cached prefix"
