"""`!cmd` and commands typed in the TUI while the agent works: `!cmd` runs, as in Pi, and nothing typed is lost."""

from __future__ import annotations

from typing import Any

from tests.support.tui import start_working, transcript_notes


async def typed_while_working(pilot: Any, text: str) -> None:
    """While the demo's task works (its client slowed), `text` typed and sent."""
    await start_working(pilot)
    pilot.app.main.editor.load_text(text)
    await pilot.press("enter")


async def test_a_bang_typed_while_the_agent_works_runs_and_joins_after_the_reply(make_app, wait_for) -> None:
    app = make_app(delay=0.2)
    async with app.run_test(size=(100, 30)) as pilot:
        host, editor = app.runtime.host, app.main.editor
        await typed_while_working(pilot, "!echo hi")
        said = "$ echo hi: done; its output joins the conversation when the agent has finished"
        await wait_for(pilot, lambda: said in [toast.message for toast in app._notifications], timeout=60)
        assert not host.is_idle, "the command ran while the agent worked"
        assert editor.text == ""
        assert not any("agent is working" in text for _, text in transcript_notes(app))
        await wait_for(pilot, lambda: host.is_idle and any(
            message["role"] == "bashExecution" for message in host.session.messages()), timeout=120)
        messages = host.session.messages()
        assert messages[-1]["role"] == "bashExecution" and messages[-1]["output"].strip() == "hi"
        replies = [message for message in messages if message["role"] == "assistant"]
        assert replies[-1]["stopReason"] == "stop", "after the agent's last reply, not inside its run"
        assert app.main.status.working.text == ""


async def test_a_second_bang_while_one_runs_stays_in_the_editor(make_app, wait, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        editor = app.main.editor
        editor.load_text("!sleep 30")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.command_context.signal is not None)
        editor.load_text("!echo two")
        await pilot.press("enter")
        await wait_for(pilot, lambda: ("warning", "a command is already running; press Esc to stop it first")
                       in transcript_notes(app))
        assert editor.text == "!echo two"
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.command_context.signal is None)
        [message] = app.runtime.host.session.messages()
        assert message["command"] == "sleep 30" and message["cancelled"]


async def test_a_command_refused_while_the_agent_works_stays_in_the_editor(make_app, wait_for) -> None:
    """`/compact focus on tests` typed while a reply streams is refused (it changes the session): the line
    goes back into the editor, to send once the agent is done, not lost."""
    app = make_app(delay=0.2)
    async with app.run_test(size=(100, 30)) as pilot:
        host, editor = app.runtime.host, app.main.editor
        await typed_while_working(pilot, "/compact focus on tests")
        await wait_for(pilot, lambda: ("warning", "/compact: the agent is working; wait for it or press Esc first")
                       in transcript_notes(app))
        assert editor.text == "/compact focus on tests"
        editor.load_text("")
        assert not host.is_idle
        await app.commands.dispatch("/compact")  # as a key starts a command: refused, nothing typed to put back
        assert editor.text == ""
