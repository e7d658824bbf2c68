"""The system prompt: pi-tui's introduction (or the user's SYSTEM.md), APPEND_SYSTEM.md, the context files,
the skills, then date and folder, laid out as Pi lays them out."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pi_tui.agent.system_prompt import build_system_prompt
from pi_tui.resources import load_resources
from tests.support.pi_home import SKILL, pi_agent_dir, write_skill

DAY = date(2026, 11, 29)
TOOLS = [("read", "Read a file.\nMore."), ("bash", "Run a command.")]


def test_prompt_lists_tools_context_date_and_cwd(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Run tests with make test.")
    prompt = build_system_prompt(tmp_path, TOOLS, load_resources(tmp_path), today=DAY)
    assert "- read: Read a file.\n- bash: Run a command." in prompt
    assert (f"\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n"
            f"## {tmp_path / 'AGENTS.md'}\n\nRun tests with make test.\n\n") in prompt
    assert prompt.endswith(f"\nCurrent date: 2026-11-29\nCurrent working directory: {tmp_path.resolve()}")
    assert build_system_prompt(tmp_path, TOOLS, load_resources(tmp_path), today=DAY) == prompt, (
        "byte-stable: it starts the cached prefix")


def test_system_md_replaces_the_introduction_and_append_system_md_follows_it(tmp_path: Path) -> None:
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "SYSTEM.md").write_text("You are a terse reviewer.")
    pi_agent_dir().mkdir(parents=True)
    (pi_agent_dir() / "SYSTEM.md").write_text("global: loses to the project's")
    (pi_agent_dir() / "APPEND_SYSTEM.md").write_text("Always answer in English.")
    prompt = build_system_prompt(tmp_path, TOOLS, load_resources(tmp_path), today=DAY)
    assert prompt == ("You are a terse reviewer.\n\nAlways answer in English."
                      f"\nCurrent date: 2026-11-29\nCurrent working directory: {tmp_path.resolve()}")


def test_skills_are_listed_after_the_context_only_when_the_read_tool_can_load_them(tmp_path: Path) -> None:
    path = write_skill(pi_agent_dir() / "skills", SKILL, description="Notes & <changes>")
    resources = load_resources(tmp_path)
    prompt = build_system_prompt(tmp_path, TOOLS, resources, today=DAY)
    block = prompt[prompt.index("<available_skills>"):prompt.index("\nCurrent date")]
    assert block == ("<available_skills>\n  <skill>\n    <name>release-notes</name>\n"
                     "    <description>Notes &amp; &lt;changes&gt;</description>\n"
                     f"    <location>{path}</location>\n  </skill>\n</available_skills>")
    assert "<available_skills>" not in build_system_prompt(tmp_path, [("bash", "Run.")], resources, today=DAY)
