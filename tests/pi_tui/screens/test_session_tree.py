"""`/tree` as Pi has it: a foldable tree of the whole session (user, assistant and tool entries, branch
points, labels, the current leaf marked), continuing from any entry on a new branch, and Pi's summary of
the branch left behind, written by the session's model."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, cast

import pytest
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownH2

from condense.messages import AgentMessage, AssistantMessage
from condense.timefmt import ms_to_iso
from pi_tui.screens.picker import PickerScreen
from pi_tui.screens.session_tree import SessionTreeScreen, label_time, tree_rows
from pi_tui.session.store import Session
from pi_tui.widgets.blocks import SummaryTextBlock
from tests.conftest import corpus_copy


def message(role: str, text: str, ts: int) -> AgentMessage:
    if role == "user":
        return {"role": "user", "content": text, "timestamp": ts}
    # partial: the tree reads the role, the text and the stop reason
    return cast(AssistantMessage, {"role": "assistant", "content": [{"type": "text", "text": text}],
                                   "stopReason": "stop", "timestamp": ts})


def two_branches(tmp_path: Path) -> Session:
    """u1 -> a1 -> (u2 -> a2) and (u3 -> a3, the leaf), a label on u2 and a settings entry between."""
    session = Session.in_memory(tmp_path)
    session.append_message(message("user", "hello", 1))
    a1 = session.append_message(message("assistant", "hi, what shall we do?", 2))
    session.append_thinking_level_change("high")
    u2 = session.append_message(message("user", "approach A", 3))
    session.append_message(message("assistant", "A done", 4))
    session.append_label(u2, "tried-A")
    session.branch(a1)
    session.append_message(message("user", "approach B", 5))
    session.append_message(message("assistant", "B done", 6))
    return session


def test_the_tree_shows_branch_points_labels_and_the_active_leaf(tmp_path: Path) -> None:
    rows = tree_rows(two_branches(tmp_path), set())
    lines = [(row.prefix + row.text, row.on_path, row.active, row.label) for row in rows]
    assert lines == [
        ('user: "hello"', True, False, None),
        ('assistant: "hi, what shall we do?"', True, False, None),
        ('├─ user: "approach A"', False, False, "tried-A"),  # the settings entry is left out; its child shows
        ('│  assistant: "A done"', False, False, None),
        ('└─ user: "approach B"', True, False, None),
        ('   assistant: "B done"', True, True, None),
    ]
    assert [row.foldable for row in rows] == [True, True, True, False, True, False]


def test_folding_hides_an_arm_and_filters_change_what_shows(tmp_path: Path) -> None:
    session = two_branches(tmp_path)
    first_arm = tree_rows(session, set())[2].entry_id
    folded = tree_rows(session, {first_arm})
    assert [row.text for row in folded] == ['user: "hello"', 'assistant: "hi, what shall we do?"',
                                            'user: "approach A"', 'user: "approach B"', 'assistant: "B done"']
    assert folded[2].folded
    assert [row.text for row in tree_rows(session, set(), "user")] == [
        'user: "hello"', 'user: "approach A"', 'user: "approach B"']
    assert "[thinking: high]" in [row.text for row in tree_rows(session, set(), "all")]


def highlight(screen: SessionTreeScreen, text: str) -> None:
    screen.list.highlighted = next(i for i, row in enumerate(screen.rows) if row.text.startswith(text))


async def tree_after_a_task(pilot: Any, send: Any, row: str) -> tuple[SessionTreeScreen, str]:
    """The demo's first task done, `/tree` open on the first row starting with `row`: the screen, that
    row's entry id."""
    await send(pilot, "fix the failing test")
    await send(pilot, "/tree", opens=SessionTreeScreen)
    screen = pilot.app.screen
    highlight(screen, row)
    return screen, screen.rows[screen.list.highlighted].entry_id


async def test_continuing_from_an_earlier_message_summarises_the_branch_left(make_app, send, wait,
                                                                             wait_for, shown) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        await send(pilot, "/tree", opens=SessionTreeScreen)
        screen = app.screen
        texts = [row.text for row in screen.rows]
        assert texts[0] == 'user: "fix the failing test"'
        assert any(text.startswith("assistant: ") and "→" in text for text in texts)  # tool calls
        assert any(text.startswith("bash result") for text in texts)  # tool results
        assert screen.rows[screen.list.highlighted].active  # the current leaf is where it starts
        highlight(screen, 'user: "fix the failing test"')
        before = app.runtime.host.session.get(screen.rows[screen.list.highlighted].entry_id)["parentId"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press(*"summ", "enter")  # "Summarize"
        await wait_for(pilot, lambda: app.screen is app.main and app.main.editor.text == "fix the failing test")
        await wait(pilot)
        session = app.runtime.host.session
        summary = session.get(session.leaf_id)
        assert summary["type"] == "branch_summary" and summary["parentId"] == before  # before the message
        assert summary["summary"].startswith("## Goal\nfix the failing test")
        assert app.runtime.host.agent.messages[0]["role"] == "branchSummary"  # the model reads it next
        card = app.main.transcript.query_one(SummaryTextBlock)
        await card.set_expanded(True)
        await wait(pilot)
        assert card.query_one(Markdown).query(MarkdownH2)  # `## Goal` is a heading, not raw marks
        assert "## Goal" not in shown(app) and "Goal" in shown(app)
        await send(pilot, "a different start")
        await send(pilot, "/tree", opens=SessionTreeScreen)
        prefixes = [row.prefix for row in app.screen.rows]
        assert "├─ " in prefixes and "└─ " in prefixes  # two arms from the root now
        active = next(i for i, row in enumerate(app.screen.rows) if row.active)
        assert active > prefixes.index("└─ ")  # the leaf is on the new arm


async def test_continuing_from_an_assistant_reply_without_a_summary(make_app, send, wait, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        _, chosen = await tree_after_a_task(pilot, send, "assistant: ")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("enter")  # "No summary"
        await wait_for(pilot, lambda: app.screen is app.main)
        await wait(pilot)
        session = app.runtime.host.session
        assert session.leaf_id == chosen and app.main.editor.text == ""
        assert not any(entry["type"] == "branch_summary" for entry in session.entries)


async def test_fold_and_unfold_with_the_keys(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        await send(pilot, "/tree", opens=SessionTreeScreen)
        screen = app.screen
        whole = len(screen.rows)
        screen.list.highlighted = 0
        await pilot.press("ctrl+left")
        assert len(screen.rows) == 1 and screen.rows[0].folded
        await pilot.press("ctrl+right")
        assert len(screen.rows) == whole
        await pilot.press("ctrl+u")
        assert all(row.text.startswith("user: ") for row in screen.rows)
        await pilot.press("ctrl+u", *"bash")  # back to every message, then a search
        assert screen.rows and all("bash" in row.text for row in screen.rows)
        assert "search: bash" in str(screen.search_line.render())
        await pilot.press("backspace", "backspace", "backspace", "backspace")
        assert len(screen.rows) == whole
        await pilot.press("escape")
        assert app.screen is app.main


async def test_search_finds_text_past_the_cut_off_and_tool_calls_by_their_arguments(make_app, send, wait,
                                                                                      tmp_path: Path) -> None:
    long = "please look at the invoices; " * 20 + "the tests run with python3 -m unittest"
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, long)
        await send(pilot, "/tree", opens=SessionTreeScreen)
        screen = app.screen
        asked = next(row for row in screen.rows if row.text.startswith('user: "please'))
        assert "unittest" not in asked.text  # past the shortened line
        await pilot.press(*"unittest")
        assert asked.entry_id in [row.entry_id for row in screen.rows]
        calls = [row for row in screen.rows if "→" in row.text]
        assert any("unittest" not in row.text for row in calls)  # found by the command it ran


async def test_the_current_leaf_is_marked_at_80_columns(make_app, send, wait, shown) -> None:
    app = make_app()
    async with app.run_test(size=(80, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test " + "with a long explanation " * 4)
        await send(pilot, "/tree", opens=SessionTreeScreen)
        screen = app.screen
        leaf = next(row for row in screen.rows if row.active)
        await pilot.pause()
        marked = [line for line in shown(app).splitlines() if "▶ " in line and "current leaf" not in line]
        assert len(marked) == 1 and leaf.text[:20] in marked[0]


async def test_shift_l_labels_an_entry_as_pi_records_it_and_shift_t_shows_when(make_app, send, wait, wait_for,
                                                                              shown) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        tree, target = await tree_after_a_task(pilot, send, "user: ")
        await pilot.press("L")  # Shift+L, as Pi has it
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press(*"before the fix", "enter")
        await wait_for(pilot, lambda: app.screen is tree)
        session = app.runtime.host.session
        label = session.entries[-1]
        assert (label["type"], label["targetId"], label["label"]) == ("label", target, "before the fix")
        assert Session.open(session.path).entries[-1] == label  # written to the file, as Pi writes it
        row = next(row for row in tree.rows if row.entry_id == target)
        assert row.label == "before the fix" and "[before the fix]" in shown(app)
        assert label_time(label["timestamp"]) not in shown(app)
        await pilot.press("T")  # Shift+T: when each label was set
        await wait_for(pilot, lambda: f"[before the fix] {label_time(label['timestamp'])}" in shown(app))
        assert "label times" in shown(app)
        await pilot.press("L")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        app.screen.input.value = ""  # an empty label removes it
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is tree)
        assert "label" not in session.entries[-1] and session.entries[-1]["targetId"] == target
        assert "[before the fix]" not in shown(app)
        await pilot.press("l")  # the small letter searches, as every letter does
        assert tree.search == "l" and isinstance(app.screen, SessionTreeScreen)


def test_label_times_read_as_pis_tree_says_them() -> None:
    now = time.mktime((2026, 3, 9, 18, 0, 0, 0, 0, -1))

    def iso(year: int, month: int, day: int, hour: int, minute: int) -> str:  # local time, as shown
        return ms_to_iso(int(time.mktime((year, month, day, hour, minute, 0, 0, 0, -1)) * 1000))

    assert label_time(iso(2026, 3, 9, 14, 3), now) == "14:03"
    assert label_time(iso(2026, 1, 2, 9, 5), now) == "1/2 09:05"
    assert label_time(iso(2025, 12, 31, 23, 59), now) == "25/12/31 23:59"
    assert label_time("", now) == ""


async def test_shift_t_at_80x24_keeps_the_header_one_line_and_the_leaf_in_view(make_app, wait, wait_for,
                                                                                tmp_path: Path) -> None:
    """The header grew by `· label times` and wrapped to a second line, pushing the highlighted leaf (the
    list's last row) out of view."""
    copy = corpus_copy("pi-large-session.jsonl", tmp_path)
    app = make_app(session=copy)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await pilot.press(*"/tree", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionTreeScreen))
        tree = app.screen
        assert isinstance(tree, SessionTreeScreen)
        await pilot.press("T")
        await wait_for(pilot, lambda: "label times" in str(tree.title_line.render()))
        await pilot.pause()
        assert tree.title_line.size.height == 1
        # no label in the tree: the line under the header says how to set one, no toast covers the header
        assert str(tree.search_line.render()).startswith("no labels yet: Shift+L labels the highlighted entry")
        assert not app._notifications
        rows, highlighted = tree.list, tree.list.highlighted
        assert highlighted is not None and tree.rows[highlighted].active
        top = round(rows.scroll_offset.y)
        assert top <= highlighted < top + rows.scrollable_content_region.height, (top, highlighted)


async def test_the_label_input_says_it_takes_a_label(make_app, send, wait, wait_for, shown) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await tree_after_a_task(pilot, send, "user: ")
        await pilot.press("L")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert "label…" in shown(app) and "filter…" not in shown(app)


@pytest.mark.parametrize("size", [(80, 24), (130, 40)])
async def test_a_row_uses_its_width_and_its_text_gives_way_to_the_label_and_time(make_app, send, wait, wait_for,
                                                                                shown, size: tuple[int, int]) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await wait(pilot)
        tree, target = await tree_after_a_task(pilot, send, "assistant: ")
        await pilot.press("L")
        await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert len(app.screen.title_text) <= 72  # one line naming the entry, not its whole text
        await pilot.press(*"before-fix", "enter")
        await wait_for(pilot, lambda: app.screen is tree)
        await pilot.press("T")
        when = label_time(app.runtime.host.session.entries[-1]["timestamp"])
        await wait_for(pilot, lambda: f"[before-fix] {when}" in shown(app))
        row = next(row for row in tree.rows if row.entry_id == target)
        line = next(line for line in shown(app).splitlines() if f"[before-fix] {when}" in line)
        assert "…" in line and row.text[:30] in line  # the text was cut, before the label
        # every row whose text is longer than the list is wide fills it (they were cut at 72 characters)
        width = tree.list.scrollable_content_region.width
        long_rows = [line.strip(" │") for line in shown(app).splitlines() if "…" in line and "assistant:" in line]
        assert long_rows and all(len(text) >= width - 4 for text in long_rows), (width, long_rows)
