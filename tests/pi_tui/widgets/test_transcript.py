"""The transcript: long sessions stay a bounded widget tree, folds, condense's marks, streaming parts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from textual.app import App

from condense.messages import summary_call_ids
from pi_tui.conversation.model import Conversation, user_text
from pi_tui.themes import variable_defaults
from pi_tui.widgets.answer import AssistantText
from pi_tui.widgets.assistant import AssistantBlock
from pi_tui.widgets.blocks import NoteBlock, SummaryBlock, ThinkingBlock, UserBlock
from pi_tui.widgets.tool_card import ToolCard
from pi_tui.widgets.transcript import Transcript
from tests.conftest import corpus_copy, corpus_path
from tests.support.typed import present


async def test_a_corpus_session_opens_with_a_bounded_widget_tree(make_app, corpus_file: Path, tmp_path: Path,
                                                                 wait, wait_for) -> None:
    copy = tmp_path / corpus_file.name
    shutil.copy(corpus_file, copy)
    app = make_app(session=copy, model="demo")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        items = transcript.conversation.items
        first_screen = sum(1 for item in items[-3:] if item.kind == "note")  # added after the session
        assert len(items) > 200
        assert len(transcript.live) == Transcript.PAGE + first_screen
        assert transcript.first_live == len(items) - len(transcript.live)
        assert transcript.history.gap == transcript.first_live  # earlier items: not rendered until asked for
        widgets_before = len(list(app.main.query("*")))
        transcript.scroll_home(animate=False)  # the scrollbar dragged to the top: the previous page is drawn
        await wait_for(pilot, lambda: transcript.history.gap == transcript.first_live - Transcript.PAGE)
        assert transcript.scroll_y > 0  # the view stays on what was being read
        await pilot.press("pageup")
        assert len(list(app.main.query("*"))) == widgets_before  # drawn as lines, not mounted


async def test_home_shows_the_first_message_of_a_long_session_and_the_whole_history_scrolls(
        make_app, tmp_path: Path, wait, wait_for, shown) -> None:
    copy = corpus_copy("pi-large-session.jsonl", tmp_path)
    app = make_app(session=copy, model="demo")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        first = user_text(transcript.conversation.items[0].message)
        assert first == "/mode" and "/mode" not in shown(app)
        await pilot.press("home")  # the editor is empty: Home is the transcript's
        await wait_for(pilot, lambda: "/mode" in shown(app).split("\n")[1])
        assert not transcript.is_following
        for _ in range(400):  # PageDown through every item to the newest: no item is skipped
            if not transcript.history.gap:
                break
            await pilot.press("pagedown")
        assert not transcript.history.gap
        await pilot.press("ctrl+end")
        await pilot.press("ctrl+home")
        await wait_for(pilot, lambda: "/mode" in shown(app))


async def test_end_on_an_empty_editor_goes_back_to_the_newest_output_and_follows_it(
        make_app, tmp_path: Path, wait, wait_for, shown) -> None:
    copy = corpus_copy("pi-large-session.jsonl", tmp_path)
    app = make_app(session=copy, model="demo")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        transcript, editor = app.main.transcript, app.main.editor
        await pilot.press("home")
        await wait_for(pilot, lambda: "/mode" in shown(app))
        await pilot.press("end")  # the editor is empty: End is the transcript's too
        await wait_for(pilot, lambda: transcript.is_following and "/mode" not in shown(app))
        await pilot.press("home")
        await wait_for(pilot, lambda: not transcript.is_following)
        editor.load_text("some text")
        editor.move_cursor((0, 0))
        await pilot.press("end")  # with text, End is the line's end and the transcript stays
        assert editor.cursor_location == (0, len("some text")) and not transcript.is_following


async def test_appending_while_following_unmounts_the_oldest_items(make_app, wait) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        shown = len(transcript.live)  # the first screen
        for n in range(Transcript.LIMIT + 1 - shown):
            await transcript.append(transcript.conversation.note(f"note {n}"))
        await pilot.pause()
        assert len(transcript.live) == Transcript.KEEP
        assert transcript.first_live == Transcript.LIMIT + 1 - Transcript.KEEP
        assert len(transcript.conversation.items) == Transcript.LIMIT + 1  # the model keeps everything
        assert transcript.history.gap == transcript.first_live  # dropped items join the history
        transcript.load_earlier()
        assert transcript.history.gap == transcript.first_live - Transcript.PAGE


async def test_ctrl_o_and_ctrl_t_unfold_cards_summaries_and_thinking(make_app, fixed_session, wait) -> None:
    app = make_app(session=fixed_session(), model=None)
    async with app.run_test(size=(110, 40)) as pilot:
        await wait(pilot)
        transcript = app.main.transcript
        cards = list(transcript.query(ToolCard))
        assert [card.call.name for card in cards] == ["bash", "read", "edit"]
        read = cards[1]
        assert "line 40" not in read.render_card().plain and "40 lines" in read.render_card().plain
        assert "FAIL: test_tax" in cards[0].render_card().plain  # errors show their first lines folded
        assert "+    tax = round_money((subtotal - discount) * rate)" in cards[2].render_card().plain
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "line 40: total" in read.render_card().plain
        summary = transcript.query_one(SummaryBlock)
        assert summary.expanded and "`t3` edit" in summary.query_one("Markdown").source
        thinking = transcript.query_one(ThinkingBlock)
        assert not thinking.expanded
        await pilot.press("ctrl+t")
        assert thinking.expanded and "run the suite first" in thinking.render_block().plain
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert not read.expanded and not summary.expanded


async def test_cards_carry_condense_marks_and_chains_mark_their_first_message(make_app, fixed_session,
                                                                             wait) -> None:
    path = fixed_session()
    data = {"blockId": "b1", "startUserTimestamp": 1_000, "finalAssistantTimestamp": 6_000,
            "toolRefs": ["t1", "t2", "t3"], "droppedToolCallIds": ["call_1"], "compressedAt": 7_000}
    chain = {"type": "custom", "id": "000000aa", "parentId": "0000000b",
             "timestamp": "2026-01-02T03:04:05.000Z", "customType": "context-prune-chain", "data": data}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(chain) + "\n")
    app = make_app(session=path, model=None)
    async with app.run_test(size=(110, 40)) as pilot:
        await wait(pilot)
        marks = [card.mark for card in app.main.transcript.query(ToolCard)]
        assert marks == ["in chain b1 · t1", "in chain b1 · t2", "in chain b1 · t3"]  # its block stands for them
        user = app.main.transcript.query_one(UserBlock)
        assert user.chain == "⊟ compressed chain b1 · tools t1, t2, t3"


class StreamApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return variable_defaults(self.current_theme)

    def compose(self):
        yield Transcript(clock=lambda: 0.0)


async def test_a_streaming_message_grows_part_by_part_in_content_order() -> None:
    app = StreamApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        conversation = transcript.conversation
        partial = {"role": "assistant", "content": [], "stopReason": "stop", "timestamp": 1}
        item = conversation.add(partial)
        block = await transcript.append(present(item))
        assert isinstance(block, AssistantBlock)
        thinking = {"type": "thinking", "thinking": "Hmm."}
        text = {"type": "text", "text": "Reading it."}
        call = {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}
        await block.stream({"type": "thinking_delta", "delta": "Hm", "contentIndex": 0},
                           {**partial, "content": [thinking]}, conversation)
        await block.stream({"type": "thinking_delta", "delta": "m.", "contentIndex": 0},
                           {**partial, "content": [thinking]}, conversation)
        for delta in ("Read", "ing ", "it."):
            await block.stream({"type": "text_delta", "delta": delta, "contentIndex": 1},
                               {**partial, "content": [thinking, text]}, conversation)
        await block.stream({"type": "toolcall_start", "contentIndex": 2},
                           {**partial, "content": [thinking, text, call]}, conversation)
        assert block.cards["c1"].status == "pending"  # its arguments are still streaming
        done_call = {**call, "arguments": {"path": "a.py"}}
        final = {**partial, "content": [thinking, text, done_call], "stopReason": "toolUse"}
        await block.stream({"type": "toolcall_end", "contentIndex": 2}, final, conversation)
        await block.finish(final, conversation)
        await pilot.pause()
        kinds = [type(child) for child in block.children]
        assert kinds == [ThinkingBlock, AssistantText, ToolCard]
        assert block.query_one(ThinkingBlock).text == "Hmm."
        assert block.query_one(AssistantText).source == "Reading it."
        card = block.cards["c1"]
        assert card.call.args == {"path": "a.py"} and "read a.py" in card.render_card().plain
        conversation.add({"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                          "content": [{"type": "text", "text": "x = 1"}], "isError": False, "timestamp": 2})
        assert present(conversation.call("c1")).output == "x = 1"


def test_the_model_pairs_results_with_calls_and_keeps_orphans() -> None:
    messages = json.loads(json.dumps([
        {"role": "user", "content": "hi", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "ls", "arguments": {}}],
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "a", "toolName": "ls", "content": [], "isError": False,
         "timestamp": 3},
        {"role": "toolResult", "toolCallId": "zz", "toolName": "ls", "content": [], "isError": False,
         "timestamp": 4},
        {"role": "custom", "customType": "other", "content": "hidden", "display": False, "timestamp": 5},
        {"role": "custom", "customType": "context-prune-summary", "content": "s", "display": False,
         "timestamp": 6},
    ]))
    conversation = Conversation.from_messages(messages)
    assert [item.kind for item in conversation.items] == ["user", "assistant", "result", "summary"]
    assert conversation.items[1].calls["a"].result is messages[2]


def test_corpus_sessions_build_a_model_where_every_result_finds_its_call() -> None:
    from pi_tui.session.store import Session

    session = Session.open(corpus_path("pi-large-session.jsonl"))
    conversation = Conversation.from_messages(session.messages())
    assert not [item for item in conversation.items if item.kind == "result"]
    calls = [call for item in conversation.items for call in item.calls.values()]
    answered = [call for call in calls if call.result is not None]
    results = [m for m in session.messages() if m.get("role") == "toolResult"]
    assert len(answered) == len(results) > 300


def card_headers(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip().startswith(("● read", "● edit"))]


async def test_a_long_path_in_a_card_is_shortened_from_the_left_to_one_line(make_app, fixed_session, wait,
                                                                              wait_for, shown) -> None:
    path = fixed_session(pruned=False)
    deep = "packages/coding-agent/src/modes/interactive/components/interactive-mode-footer.py"
    path.write_text(path.read_text(encoding="utf-8").replace("invoicer/pricing.py", deep), encoding="utf-8")
    app = make_app(session=path)
    async with app.run_test(size=(80, 40)) as pilot:
        await wait(pilot)
        # the file name and status on the card's first line, once the cards know their width
        read = next(card for card in app.main.transcript.query(ToolCard) if card.call.name == "read")
        await wait_for(pilot, lambda: read.size.height == 1)  # collapsed: its header alone, on one line
        headers = card_headers(shown(app))
        assert len(headers) == 2
        assert all(" …" in header and "/interactive-mode-footer.py  ok" in header for header in headers)
        assert "● bash python3 -m unittest  error" in shown(app)  # a short argument stays whole


async def test_pruner_now_puts_each_summary_beside_the_turn_it_covers(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        engine = app.runtime.engine
        engine.set_config(engine.config.model_copy(update={"prune_on": "on-demand", "min_batch_chars": 1000}))
        await send(pilot, "fix the failing test")
        await send(pilot, "/pruner now")
        live = app.main.transcript.live
        summaries = [widget for widget in live if isinstance(widget, SummaryBlock)]
        assert len(summaries) > 1
        for block in summaries:
            turn = next(w for w in reversed(live[:live.index(block)]) if not isinstance(w, SummaryBlock))
            assert isinstance(turn, AssistantBlock)
            assert set(summary_call_ids(block.item.message)) <= set(turn.item.calls), "beside the turn it covers"
        replies = [w for w in live if isinstance(w, AssistantBlock) and not w.item.calls]
        assert live.index(replies[-1]) > live.index(summaries[-1]), "not stacked under the final reply"
        order = [type(widget).__name__ for widget in live if not isinstance(widget, NoteBlock)]
        await app.runtime.host.navigate(app.runtime.host.session.leaf_id)  # the session shown again, as loaded
        await wait(pilot)
        again = [type(widget).__name__ for widget in app.main.transcript.live if not isinstance(widget, NoteBlock)]
        assert again == order


async def test_a_summary_of_a_turn_above_the_mounted_page_is_shown_with_it_when_it_loads() -> None:
    app = StreamApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        messages: list[dict[str, Any]] = [{"role": "user", "content": "go", "timestamp": 0}]
        for n in range(Transcript.PAGE + 5):
            messages += [{"role": "assistant", "content": [{"type": "toolCall", "id": f"c{n}", "name": "ls",
                                                           "arguments": {}}], "stopReason": "toolUse",
                          "timestamp": 10 * n + 1},
                         {"role": "toolResult", "toolCallId": f"c{n}", "toolName": "ls",
                          "content": [{"type": "text", "text": "x"}], "isError": False, "timestamp": 10 * n + 2}]
        await transcript.show(Conversation.from_messages(messages))
        first_live, live = transcript.first_live, list(transcript.live)
        summary = {"role": "custom", "customType": "context-prune-summary", "content": "ls twice", "display": False,
                   "details": {"toolCallRefs": [{"shortId": "t1", "toolCallId": "c1", "resultTimestamp": 12}]}}
        item = present(transcript.conversation.add(summary))
        await transcript.append(item)
        assert transcript.live == live and transcript.first_live == first_live + 1
        transcript.load_earlier()
        await pilot.pause()
        history = transcript.history
        drawn = sorted({index for row in range(history.size.height) if (index := history.item_at(row)) is not None})
        shown = [history.items[index] for index in drawn if history.items[index].kind in ("summary", "assistant")]
        position = shown.index(item)
        assert "c1" in shown[position - 1].calls and "c2" in shown[position + 1].calls

        late = {**summary, "details": {"toolCallRefs": [{"shortId": "t9", "toolCallId": "c23",
                                                         "resultTimestamp": 232}]}}
        widget = await transcript.append(present(transcript.conversation.add(late)))
        before = transcript.live[transcript.live.index(widget) - 1]
        assert isinstance(before, AssistantBlock) and before.item.calls.keys() == {"c23"}
