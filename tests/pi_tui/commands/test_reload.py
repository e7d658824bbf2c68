"""`/reload` reads a Pi user's files and pi-tui's settings again without a restart, and says in one line what
it read and what is wrong."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_tui.paths import settings_file
from pi_tui.tui.app import PiApp
from tests.support.pi_home import SKILL, TEMPLATE, TEMPLATE_TEXT, pi_agent_dir, write_skill, write_template


def notes(app: PiApp) -> list[tuple[str, str]]:
    return [(item.message["text"], item.level) for item in app.main.transcript.conversation.items
            if item.kind == "note"]


async def test_reload_takes_new_skills_templates_context_and_settings_and_says_what_it_read(
        make_app: Callable[..., PiApp], send: Callable[..., Any], wait: Callable[[Any], Any]) -> None:
    app = make_app()
    async with app.run_test(size=(130, 40)) as pilot:
        await wait(pilot)
        host = app.runtime.host
        assert TEMPLATE not in app.commands.names() and app.theme == "dark"
        write_skill(pi_agent_dir() / "skills", SKILL)
        write_skill(pi_agent_dir() / "skills", "undescribed", description="''")
        write_template(host.cwd / ".pi" / "prompts", TEMPLATE, TEMPLATE_TEXT)
        (host.cwd / ".pi" / "APPEND_SYSTEM.md").write_text("Answer in English.", encoding="utf-8")
        settings_file().write_text('theme = "light"\n', encoding="utf-8")
        await send(pilot, "/reload")
        skill = pi_agent_dir() / "skills" / "undescribed" / "SKILL.md"
        assert notes(app)[-1] == (
            "reloaded settings, keys, themes, 1 skill, 1 prompt template, 1 context file, APPEND_SYSTEM.md,"
            " models.json: 0 providers, 0 models"
            f" · 1 problem: skill {skill}: description is required: the skill is left out", "warning")
        assert {TEMPLATE, f"skill:{SKILL}"} <= set(app.commands.names())
        prompt = host.config.system_prompt
        assert f"<name>{SKILL}</name>" in prompt and "\n\nAnswer in English.\n\n# Project Context" in prompt
        assert app.theme == "light"


async def test_reload_waits_for_a_quiet_agent(make_app: Callable[..., PiApp], send: Callable[..., Any],
                                              wait: Callable[[Any], Any], wait_for: Callable[..., Any]) -> None:
    app = make_app(delay=0.05)
    async with app.run_test(size=(130, 40)) as pilot:
        await wait(pilot)
        prompt = app.runtime.host.config.system_prompt
        write_skill(pi_agent_dir() / "skills", SKILL)
        app.main.editor.load_text("fix the failing test")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.runtime.host.is_idle)
        await app.commands.dispatch("/reload")
        assert app.runtime.host.config.system_prompt == prompt
        await wait(pilot)


async def test_reload_names_every_problem_keymap_entries_included(
        make_app: Callable[..., PiApp], send: Callable[..., Any], wait: Callable[[Any], Any]) -> None:
    app = make_app()
    async with app.run_test(size=(130, 40)) as pilot:
        await wait(pilot)
        write_skill(pi_agent_dir() / "skills", "undescribed", description="''")
        settings_file().write_text('theme = 7\n[keymap]\n"editor.sumbit" = "ctrl+s"\n'
                                   '"app.expand-tools" = "ctrl+nope"\n', encoding="utf-8")
        for _ in range(2):  # the keymap read anew, then read as it was (after the file watcher took it)
            await send(pilot, "/reload")
            line, level = notes(app)[-1]
            assert level == "warning" and " · 4 problems: " in line, line
            assert "settings: " in line and "skill " in line
            assert 'keymap.editor.sumbit: unknown key binding id, ignored; did you mean "editor.submit"?' in line
            assert ('keymap.app.expand-tools: expected key names such as "ctrl+j" or "alt+enter", '
                    'got "ctrl+nope"') in line
        assert [text for text, _ in notes(app) if "keymap" in text and "reloaded" not in text] == []  # said once
