"""A `/word` no command, prompt template or skill answers to is not sent without a question: no puts it
back in the editor and sends nothing; yes sends it as typed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from condense.messages import content_text
from pi_tui.screens.confirm import ConfirmScreen
from pi_tui.tui.app import PiApp


def user_texts(app: PiApp) -> list[str]:
    return [content_text(m["content"]) for m in app.runtime.host.agent.messages if m["role"] == "user"]


async def test_an_unknown_command_asks_and_no_keeps_it_in_the_editor(
        make_app: Callable[..., PiApp], send: Callable[..., Any], wait: Callable[[Any], Any],
        shown: Callable[[Any], str]) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/compcat now", opens=ConfirmScreen)
        assert "Send '/compcat now' to the model as text?" in shown(app)
        assert "unknown command /compcat: no command, prompt template or skill has that name" in shown(app)
        await pilot.press("n")
        await wait(pilot)
        assert user_texts(app) == [] and app.main.editor.text == "/compcat now"


async def test_yes_sends_it_as_typed_and_a_path_or_a_known_command_is_never_asked_about(
        make_app: Callable[..., PiApp], send: Callable[..., Any], wait: Callable[[Any], Any]) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/compcat now", opens=ConfirmScreen)
        await pilot.press("y")
        await wait(pilot)
        await send(pilot, "/usr/bin/env is missing")
        await send(pilot, "/pruner status")
        assert user_texts(app) == ["/compcat now", "/usr/bin/env is missing"]
