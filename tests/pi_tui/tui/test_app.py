"""A whole session in the TUI on the offline demo model, as a user drives it with the keyboard.

The demo plays its first task with the real tools on a copy of the sample project: the reply
streams, tool cards appear and finish, condense flushes on the final reply (summary items appear,
the footer's status says at once what the model reads and what pruning saves).
"""

from __future__ import annotations

import re
import tomllib

import pytest
from textual.widgets import Markdown

from condense.config import ChainCompressionConfig, CondenseConfig
from pi_tui.agent.host import Level
from pi_tui.paths import settings_file
from pi_tui.runtime.build import DEMO_SPILL_THRESHOLD
from pi_tui.screens.form import SettingsFormScreen
from pi_tui.screens.pruner_tree import PrunerTreeScreen
from pi_tui.screens.text_view import TextViewScreen
from pi_tui.settings import load_settings
from pi_tui.widgets.answer import AssistantText
from pi_tui.widgets.assistant import AssistantBlock
from pi_tui.widgets.blocks import SummaryBlock, UserBlock
from pi_tui.widgets.tool_card import ToolCard
from tests.support.typed import present

RECLAIM = re.compile(r"prune: ON · reads [\d.]+[kM]? · saves [\d.]+[kM]? \(-\d+%\)")


def cards(app) -> list[ToolCard]:
    return [card for block in app.main.transcript.assistant_blocks() for card in block.cards.values()]


async def test_a_prompt_plays_a_task_with_cards_a_streamed_reply_and_a_flush(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        items = app.main.transcript.conversation.items
        assert next(item.kind for item in items if item.kind != "note") == "user"  # after the first screen
        played = cards(app)
        assert {card.call.name for card in played} >= {"ls", "read", "bash", "edit"}
        assert all(card.status in ("done", "error") for card in played)
        failed = [card for card in played if card.status == "error"]
        assert failed and failed[0].call.name == "bash"  # the suite fails before the fix
        assert all(card.elapsed is not None for card in played)
        edit = next(card for card in played if card.call.name == "edit")
        assert "+    tax = round_money((subtotal - discount) * invoice.tax_rate)" in edit.render_card().plain
        replies = list(app.main.transcript.query(AssistantText))
        assert "the suite is green again" in replies[-1].source
        summaries = list(app.main.transcript.query(SummaryBlock))
        assert summaries and summaries[0].header.content.plain.startswith("▸ [pruner] Turn ")
        assert RECLAIM.search(app.bridge.statuses["condense"])  # measured as soon as the flush ends
        assert RECLAIM.fullmatch(app.main.footer.lines(118)[-1].plain)  # no bar leads the line
        marks = [card.mark for card in cards(app)]
        assert all(mark.startswith("in chain b1 · t") for mark in marks), marks  # the task is compressed
        assert not app.main.status.working.display

        await send(pilot, "next task please")
        assert RECLAIM.search(app.bridge.statuses["condense"]), app.bridge.statuses
        assert RECLAIM.fullmatch(app.main.footer.lines(118)[-1].plain)  # no bar leads the line


async def test_pruner_tree_lists_the_calls_and_opens_outputs_and_summaries(make_app, send, wait) -> None:
    # every turn of demo task 1 summarised (its read of pricing.py too, though the fix edits that file), its
    # chain kept raw: the tree the assertions below walk
    condense = CondenseConfig(min_batch_chars=1000, chain_compression=ChainCompressionConfig(rolling_window=3),
                              superseded_reads=False)
    app = make_app(settings=load_settings().settings.model_copy(update={"condense": condense}))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        await send(pilot, "/pruner tree")
        screen = app.screen
        assert isinstance(screen, PrunerTreeScreen)
        summaries = [node for node in screen.nodes if node.kind == "summary"]
        calls = [child for node in summaries for child in node.children]
        assert [call.key for call in calls[:2]] == ["t1", "t2"]
        labels = [call.label.plain for call in calls]
        assert any(label.startswith("t1 ls .") and label.endswith("OK") for label in labels), labels
        # refs follow call order: t3 was set aside for the suite run, too small to summarise, in a chain kept raw
        assert any(label.startswith("t4 read invoicer/pricing.py  1.3k chars") for label in labels), labels

        await pilot.press("ctrl+o")  # the cursor is on the first summary
        await pilot.pause()
        overlay = app.screen
        assert isinstance(overlay, TextViewScreen) and overlay.markdown
        assert overlay.text == summaries[0].body and "`t1`" in overlay.text
        assert overlay.query_one(Markdown).source == summaries[0].body
        await pilot.press("escape")
        await pilot.pause()

        await pilot.press("down", "enter")  # the first call of the first summary
        await pilot.pause()
        assert isinstance(app.screen, TextViewScreen)
        assert app.screen.text.startswith("## toolRef: t1")
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.screen is app.main


async def test_pruner_tree_counts_each_call_once_and_lists_a_chain_in_ref_order(make_app, send, wait,
                                                                                shown) -> None:
    app = make_app()  # the demo's own settings: task 1 ends with its chain compressed, some calls summarised
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        await send(pilot, "/pruner tree")
        screen = app.screen
        assert isinstance(screen, PrunerTreeScreen)
        [chain] = [node for node in screen.nodes if node.kind == "chain"]
        refs = [child.key for child in chain.children]
        assert refs == sorted(refs, key=lambda ref: int(ref[1:])), refs
        listed = [child.key for node in screen.nodes for child in node.children]
        assert len(set(listed)) < len(listed)  # the chain lists calls a summary lists too
        assert f"1 compressed chain · {len(set(listed))} calls" in shown(app)
        await pilot.press("escape")
        await pilot.pause()
        [user] = app.main.transcript.query(UserBlock)  # the chain's mark beside its prompt: the same order
        assert user.chain == f"⊟ compressed chain b1 · tools {', '.join(refs)}"


async def test_a_setting_changed_in_the_overlay_is_saved_and_shown(make_app, send, wait, change) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner settings")
        form = app.screen
        assert isinstance(form, SettingsFormScreen)
        assert "enabled                   On" in str(form.list.get_option("enabled").prompt)
        await change(pilot, "enabled")
        assert "enabled                   Off" in str(form.list.get_option("enabled").prompt)
        await change(pilot, "min_batch_chars", "250")
        await change(pilot, "purge_errors.cooldown_turns", "-1")
        refused = "condense.purge_errors.cooldown_turns: expected an integer >= 0, got -1"  # as /settings says it
        assert refused in present(form.outcomes["purge_errors.cooldown_turns"])
        assert refused in str(form.list.get_option("purge_errors.cooldown_turns").prompt)
        await pilot.press("escape")  # leaves the edit line, not the overlay
        assert app.screen is form and form.editing is None

        saved = tomllib.loads(settings_file().read_text(encoding="utf-8"))
        assert saved["condense"]["enabled"] is False
        assert saved["condense"]["min_batch_chars"] == 250
        assert "purge_errors" not in saved["condense"]  # the invalid value was not written
        assert "spill_threshold" not in saved["condense"]  # the demo's in-memory override stays in memory
        assert app.runtime.engine.config.min_batch_chars == 250
        assert app.bridge.statuses["condense"] == "│ prune: OFF"
        assert app.main.footer.lines(118)[-1].plain == "prune: OFF"


async def test_the_overlay_shows_the_files_values_and_says_what_the_demo_overrides(make_app, send, wait,
                                                                                   shown) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        assert app.runtime.engine.config.spill_threshold == DEMO_SPILL_THRESHOLD  # what the demo runs with
        await send(pilot, "/pruner settings", opens=SettingsFormScreen)
        form = app.screen
        assert form.values["spill_threshold"] == app.settings.condense.spill_threshold != DEMO_SPILL_THRESHOLD
        assert form.values["summarizer_model"] == app.settings.condense.summarizer_model != "extractive"
        assert "the demo uses spill_threshold 32768, summarizer_model extractive" in shown(app)


async def test_pruner_now_shows_one_row_per_batch_then_clears(make_app, send, wait, wait_for) -> None:
    app = make_app(progress_linger=0.05)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        app.runtime.engine.set_config(app.runtime.engine.config.model_copy(update={"prune_on": "on-demand"}))
        await send(pilot, "fix the failing test")
        assert not list(app.main.transcript.query(SummaryBlock))  # on-demand: nothing flushed yet
        reports: list[tuple[int, str, int]] = []
        progress = app.main.status.progress
        original = progress.report
        progress.report = lambda *args: (reports.append(args), original(*args))[1]  # type: ignore[func-returns-value]  # record, report
        await send(pilot, "/pruner now")
        assert reports and {state for _, state, _ in reports} == {"running", "done"}
        batches = sorted({batch for batch, _, _ in reports})
        assert batches == list(range(len(batches)))
        assert list(app.main.transcript.query(SummaryBlock))
        await wait_for(pilot, lambda: not progress.rows and not progress.display)  # gone after the linger


async def test_streamed_text_goes_through_one_markdown_stream(make_app, wait, monkeypatch) -> None:
    """Per-token `Markdown.update` re-parses the whole reply each time: it must never be used."""
    updates: list[str] = []
    original = Markdown.update

    def spy(self, markdown: str):
        updates.append(markdown)
        return original(self, markdown)

    monkeypatch.setattr(Markdown, "update", spy)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        app.main.editor.load_text("go")
        await pilot.press("enter")
        await wait(pilot)
        blocks = list(app.main.transcript.query(AssistantBlock))
        texts = [part for block in blocks for part in block.parts.values() if isinstance(part, AssistantText)]
        assert len(texts) >= 5
        assert all(text._stream is None for text in texts)  # every stream was stopped
        assert len(updates) <= len(texts)  # at most the one initial update of each widget


@pytest.mark.parametrize(("model", "levels"), [
    ("openai/gpt-5.1", ["minimal", "low", "medium", "high", "off"]),
    ("openai/gpt-5.2", ["minimal", "low", "medium", "high", "xhigh", "off"]),
    ("anthropic/claude-opus-4-6", ["minimal", "low", "medium", "high", "xhigh", "off"]),
], ids=["gpt-5.1", "gpt-5.2", "opus-4-6"])
async def test_shift_tab_offers_xhigh_only_to_the_models_pi_names(make_app, wait, model: str,
                                                                  levels: list[str]) -> None:
    app = make_app(model=model)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait(pilot)
        app.runtime.host.config.thinking_level = "off"
        seen = []
        for _ in levels:
            await pilot.press("shift+tab")
            await pilot.pause()
            seen.append(app.runtime.host.config.thinking_level)
        assert seen == levels


async def test_the_compressed_chain_toast_counts_in_words(make_app, send, wait, monkeypatch) -> None:
    app = make_app()
    said: list[str] = []
    shown = app.show_notice

    def show_notice(text: str, level: Level = "info") -> None:
        said.append(text)
        shown(text, level)

    monkeypatch.setattr(app, "show_notice", show_notice)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")
        assert "pruner: compressed 1 chain (b1)" in said, said
