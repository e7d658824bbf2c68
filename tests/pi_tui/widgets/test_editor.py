"""The editor as a user types in it: history, completion, sending, steering, aborting, quitting, `!`."""

from __future__ import annotations

import json

from pi_tui.ai.convert import convert_to_llm
from pi_tui.settings import Settings
from pi_tui.widgets.blocks import BashBlock
from tests.support.tui import send_while_working, two_queued


async def test_up_and_down_walk_the_history_only_at_the_edges(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/name one")
        await send(pilot, "/name two")
        editor = app.main.editor
        editor.load_text("draft")
        await pilot.press("up")
        assert editor.text == "/name two"
        await pilot.press("up", "up")
        assert editor.text == "/name one"
        await pilot.press("down")
        assert editor.text == "/name two"
        await pilot.press("down")
        assert editor.text == "draft"
        editor.load_text("line one\nline two")
        editor.move_cursor((1, 3))
        await pilot.press("up")
        assert editor.text == "line one\nline two" and editor.cursor_location[0] == 0
        assert app.runtime.host.session.name == "two"


async def test_a_command_recalled_from_history_opens_no_menu_and_up_keeps_walking(make_app, send,
                                                                                 wait) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/name one")
        await send(pilot, "/pruner status")
        editor = app.main.editor
        await pilot.press("up")
        await pilot.pause()
        assert editor.text == "/pruner status" and not app.main.menu.is_open
        await pilot.press("up")
        await pilot.pause()
        assert editor.text == "/name one" and not app.main.menu.is_open
        await pilot.press("down")
        await pilot.pause()
        assert editor.text == "/pruner status"
        await pilot.press("end", "backspace")  # typing after a recall completes again
        await pilot.pause()
        assert editor.text == "/pruner statu" and app.main.menu.is_open


async def test_a_completion_row_too_long_for_the_terminal_is_cut_never_wrapped(make_app, wait, shown) -> None:
    app = make_app()
    async with app.run_test(size=(80, 30)) as pilot:  # `/pruner ` descriptions are wider than 80 columns
        await wait(pilot)
        await pilot.press(*"/pruner ")
        await pilot.pause()
        menu = app.main.menu
        assert menu.is_open
        assert max(len(s.label) + len(s.description) for s in menu.suggestions) > menu.size.width
        rows = [strip.text.strip() for strip in (menu.render_line(y) for y in range(menu.size.height))]
        shown_rows = [row for row in rows if row]
        assert len(shown_rows) == min(len(menu.suggestions), menu.size.height)  # one row per item
        for row, suggestion in zip(shown_rows, menu.suggestions, strict=False):
            assert row.startswith(suggestion.label)
        assert any(row.endswith("…") for row in shown_rows)


async def test_slash_completion_lists_commands_with_descriptions_then_arguments(make_app, wait) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await pilot.press(*"/pru")
        await pilot.pause()
        menu = app.main.menu
        assert menu.is_open
        assert menu.suggestions[0].label == "/pruner"
        assert "context pruning" in menu.suggestions[0].description
        await pilot.press("tab")
        await pilot.pause()
        assert app.main.editor.text == "/pruner "
        labels = [s.label for s in menu.suggestions]
        assert {"tree", "settings", "now", "status"} <= set(labels)
        await pilot.press(*"sett")
        await pilot.pause()
        assert menu.suggestions[0].label == "settings"
        await pilot.press("escape")
        await pilot.pause()
        assert not menu.is_open
        assert app.main.editor.text == "/pruner sett"


async def test_at_completes_project_paths(make_app, wait) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await pilot.press(*"look at @invo")
        await pilot.pause()
        assert [s.label for s in app.main.menu.suggestions][:1] == ["@invoicer/"]
        await pilot.press("tab")
        await pilot.pause()
        assert app.main.editor.text == "look at @invoicer/"
        assert "@invoicer/pricing.py" in [s.label for s in app.main.menu.suggestions]
        await pilot.press(*"pric", "enter")  # Enter takes a path completion, it does not send
        await pilot.pause()
        assert app.main.editor.text == "look at @invoicer/pricing.py "


async def test_tab_on_a_completed_folder_goes_inside_it(make_app, wait, wait_for) -> None:
    """Tab twice on `@inv`: the folder, then its first entry (the menu listed the folder itself first,
    and the second Tab took it again)."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await pilot.press(*"look at @inv", "tab")
        await wait_for(pilot, lambda: app.main.editor.text == "look at @invoicer/")
        labels = [s.label for s in app.main.menu.suggestions]
        assert "@invoicer/" not in labels
        assert labels[:5] == ["@invoicer/__init__.py", "@invoicer/formatting.py", "@invoicer/inventory.py",
                              "@invoicer/models.py", "@invoicer/pricing.py"]
        await pilot.press("tab")
        await wait_for(pilot, lambda: app.main.editor.text == "look at @invoicer/__init__.py ")


async def test_enter_steers_and_alt_enter_queues_while_the_agent_works(make_app, wait, wait_for) -> None:
    app = make_app(delay=0.02)  # slow enough that the agent is surely still working during the keypresses
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await send_while_working(pilot, "also check the README", "then tell me a joke")
        await wait_for(pilot, lambda: ("follow-up", "then tell me a joke") in app.live.queued)
        assert "↳ follow-up: then tell me a joke" in str(app.main.status.lines.content)
        assert app.main.status.working.display
        app.client.delay = 0  # what remains can play at full speed
        await wait(pilot)
        texts = [item.message["content"][0]["text"] for item in app.main.transcript.conversation.items
                 if item.kind == "user"]
        assert texts == ["fix the failing test", "also check the README", "then tell me a joke"]
        assert not app.main.status.lines.display  # the queue emptied as the messages were delivered


async def test_escape_aborts_the_running_agent(make_app, wait, wait_for) -> None:
    app = make_app(delay=0.01)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        app.main.editor.load_text("fix the failing test")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.runtime.host.is_idle)
        await pilot.press("escape")
        await wait(pilot)
        last = app.main.transcript.conversation.items[-1]
        assert last.kind == "assistant" and last.message["stopReason"] == "aborted"
        assert "Aborted" in [str(w.content) for w in app.main.transcript.query(".assistant-aborted")]


async def test_escape_puts_queued_messages_back_into_the_editor_and_sends_none_later(make_app, wait,
                                                                                    wait_for) -> None:
    async with two_queued(make_app) as (app, pilot):
        editor = app.main.editor
        shown = str(app.main.status.lines.content)
        assert "↳ steer: steer now" in shown and "↳ follow-up: and later this" in shown
        editor.load_text("draft")
        await pilot.press("escape")
        await wait(pilot)
        assert editor.text == "steer now\n\nand later this\n\ndraft"  # in order, before what was there
        assert not app.live.queued and not app.main.status.lines.display
        app.client.delay = 0
        editor.load_text("go")
        await pilot.press("enter")
        await wait(pilot)
        texts = [item.message["content"][0]["text"] for item in app.main.transcript.conversation.items
                 if item.kind == "user"]
        assert texts == ["fix the failing test", "go"]


async def test_a_call_of_an_aborted_reply_reads_aborted(make_app, wait, fixed_session, shown) -> None:
    path = fixed_session(pruned=False)
    lines = path.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    call = {"type": "toolCall", "id": "call_9", "name": "write", "arguments": {"path": "notes.md"}}
    aborted = {**last, "id": "000000ff", "parentId": last["id"], "message": {
        **last["message"], "content": [call], "stopReason": "aborted", "timestamp": 7_000}}
    path.write_text("\n".join([*lines, json.dumps(aborted)]) + "\n", encoding="utf-8")
    app = make_app(session=path)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait(pilot)
        screen = shown(app)
        assert "write notes.md  aborted" in screen and "no result" not in screen


async def test_ctrl_c_clears_and_twice_quits(make_app, wait) -> None:
    app = make_app(clock_step=1.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        app.main.editor.load_text("some text")
        await pilot.press("ctrl+c")
        assert app.main.editor.text == ""
        await pilot.press("ctrl+c")  # a second later: clears again, does not quit
        assert app.is_running
    quick = make_app(clock_step=0.1)
    async with quick.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await pilot.press("ctrl+c", "ctrl+c")
        await pilot.pause()
        assert quick.return_code == 0 and not quick.is_running


async def test_ctrl_d_quits_only_with_an_empty_editor(make_app, wait) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        app.main.editor.load_text("abc")
        app.main.editor.move_cursor((0, 0))
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert app.is_running and app.main.editor.text == "bc"  # the editor's own delete-right
        app.main.editor.load_text("")
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert not app.is_running


async def test_bang_runs_a_command_into_the_context_and_double_bang_keeps_it_out(make_app, send,
                                                                                 wait) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "!echo visible; exit 3")
        await send(pilot, "!!echo hidden")
        host = app.runtime.host
        shown = [m for m in host.agent.messages if m.get("role") == "bashExecution"]
        assert [(m["command"], m["output"].strip(), m["exitCode"]) for m in shown] == [
            ("echo visible; exit 3", "visible", 3), ("echo hidden", "hidden", 0)]
        assert shown[1]["excludeFromContext"] is True
        entries = [e["message"] for e in host.session.entries if e.get("type") == "message"]
        assert [m["command"] for m in entries if m["role"] == "bashExecution"] == ["echo visible; exit 3",
                                                                                   "echo hidden"]
        sent = convert_to_llm(host.agent.messages)
        assert "visible" in str(sent) and "hidden" not in str(sent)
        blocks = list(app.main.transcript.query(BashBlock))
        assert "$ echo visible; exit 3  exit 3" in blocks[0].render_block().plain
        assert "not in context" in blocks[1].render_block().plain


async def test_esc_stops_a_running_bang_command(make_app, wait, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        app.main.editor.load_text("!sleep 60")
        await pilot.press("enter")
        working = app.main.status.working
        await wait_for(pilot, lambda: working.text == "$ sleep 60 (esc to stop)")
        await pilot.press("escape")
        await wait(pilot)
        [message] = [m for m in app.runtime.host.agent.messages if m.get("role") == "bashExecution"]
        assert (message["command"], message["cancelled"], message["exitCode"]) == ("sleep 60", True, None)
        assert not working.display


async def test_editor_keys_follow_the_keymap(make_app, wait) -> None:
    app = make_app(settings=Settings(keymap={"editor.submit": "ctrl+s"}))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        await pilot.press(*"/name a", "enter", *"b")
        assert app.main.editor.text == "/name a\nb"  # Enter is a plain new line now
        app.main.editor.load_text("/name remapped")
        await pilot.press("ctrl+s")
        await wait(pilot)
        assert app.runtime.host.session.name == "remapped"


async def test_enter_after_a_burst_of_keys_runs_what_was_typed_not_a_stale_suggestion(make_app, wait,
                                                                                     raw) -> None:
    """tmux send-keys and pastes deliver keys before the menu's text-changed messages: Enter must run
    `/pruner tree`, not the `/pruner` suggestion the menu showed for `/pru`."""
    from pi_tui.screens.pruner_tree import PrunerTreeScreen

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        raw(app, "/pru")
        await pilot.pause()
        assert app.main.menu.is_open and app.main.menu.suggestions[0].label == "/pruner"
        raw(app, "ner tree\r")  # the rest, in one burst
        await wait(pilot)
        assert isinstance(app.screen, PrunerTreeScreen)
