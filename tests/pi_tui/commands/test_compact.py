"""`/compact` in the app, on a real model's path (litellm against the local OpenAI-compatible server): the
working line while the session's model writes the summary, Esc to cancel, and the transcript rebuilt as
the model now reads the conversation (the summary first), with a line saying what was compacted."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai.litellm_client import LiteLLMClient, warm_up
from pi_tui.commands import app_registry
from pi_tui.runtime.build import LaunchOptions, build_runtime
from pi_tui.session.store import Session
from pi_tui.settings import LiveSettings, Settings
from pi_tui.tui.app import PiApp, TuiBridge
from tests.conftest import corpus_path
from tests.pi_tui.commands.test_handlers import RecordingContext
from tests.support.fake_openai import FakeOpenAI, Reply, context_overflow, text_reply
from tests.support.turns import conversation

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")]

BIG = 40_000


@pytest.fixture(scope="module", autouse=True)
def _litellm_imported() -> None:
    warm_up()


def long_session(folder: Path) -> Path:
    """Three turns of 10k tokens each: the first is compacted, the newest 20k tokens kept."""
    session = Session.create(folder, folder / "sessions")
    conversation(session, ("first " + "a" * BIG, "one"), ("second " + "b" * BIG, "two"),
                 ("third " + "c" * BIG, "three"))
    assert session.path is not None
    return session.path


def app_on(server: FakeOpenAI, tmp_path: Path) -> PiApp:
    settings, bridge, client = LiveSettings(Settings()), TuiBridge(), LiteLLMClient()
    options = LaunchOptions(model="openai/fake-model", base_url=server.base_url, launch_dir=tmp_path,
                            session=str(long_session(tmp_path)))
    runtime = build_runtime(options, settings, ui=bridge, client=client)
    return PiApp(runtime, settings, bridge, options, client=client, watch=False)


def compactions(app: PiApp) -> list[dict[str, Any]]:
    return [e for e in Session.open(str(app.runtime.host.session.path)).entries if e["type"] == "compaction"]


async def test_compact_shows_the_summary_first_and_says_what_it_compacted(
        tmp_path: Path, fake_openai: FakeOpenAI, send, wait_for, shown) -> None:
    fake_openai.push(text_reply("## Goal\nFix the tax bug"))
    app = app_on(fake_openai, tmp_path)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        await send(pilot, "/compact the tax bug")
        items = app.main.transcript.conversation.items
        assert [item.kind for item in items] == ["compaction", "user", "assistant", "user", "assistant", "note"]
        assert items[0].message["summary"] == "## Goal\nFix the tax bug"
        assert items[-1].message["text"] == (
            "compacted: the next request is 28k tokens, was 42k; 30k tokens of conversation became the summary the "
            "transcript now starts with (click it, or Ctrl+O, to read it); the last 4 messages stay as they were")
        assert "compacted: the next request is 28k tokens, was 42k" in shown(app)
        assert len(compactions(app)) == 1


async def test_compact_shows_its_work_and_esc_cancels_it_leaving_the_session_as_it_was(
        tmp_path: Path, fake_openai: FakeOpenAI, wait_for, shown) -> None:
    fake_openai.push(Reply(text="never finished", stall_after=1))
    app = app_on(fake_openai, tmp_path)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        app.main.editor.load_text("/compact")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Compacting the conversation… (esc to cancel)" in shown(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: "compaction cancelled; the conversation is as it was" in shown(app))
        assert compactions(app) == [] and app.main.transcript.conversation.items[0].kind == "user"


async def test_a_conversation_too_short_to_compact_is_said_where_the_work_is(tmp_path: Path) -> None:
    launch = tmp_path / "launch"
    launch.mkdir()
    context = RecordingContext(launch)
    await context.runtime.host.prompt("fix the failing test")  # the demo's first task: a short conversation
    assert await app_registry(context).dispatch("/compact")
    assert len(context.notes) == 1 and context.notes[0].startswith("warning: /compact: nothing to compact")
    assert all(e["type"] != "compaction" for e in context.runtime.host.session.entries)


async def test_the_demo_compacts_a_long_session_offline(tmp_path: Path) -> None:
    session = tmp_path / "before.jsonl"
    shutil.copy(corpus_path("pi-before-compaction.jsonl"), session)
    context = RecordingContext(tmp_path)
    await context.attach(context.build_runtime(LaunchOptions(model="demo", session=str(session),
                                                             launch_dir=tmp_path)), "resume")
    assert await app_registry(context).dispatch("/compact")
    entry = context.runtime.host.session.entries[-1]
    assert entry["type"] == "compaction" and entry["summary"].startswith("## Goal\n- ")
    assert "## Next steps" in entry["summary"] and set(entry["details"]) == {"readFiles", "modifiedFiles"}
    assert context.notes[-1].startswith("compacted: ")


async def test_a_request_too_long_is_compacted_and_sent_again_in_view(
        tmp_path: Path, fake_openai: FakeOpenAI, send, wait_for) -> None:
    fake_openai.push(context_overflow(), text_reply("## Goal\nthe summary"), text_reply("fits now"))
    app = app_on(fake_openai, tmp_path)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        await send(pilot, "go on")
        items = app.main.transcript.conversation.items
        assert items[0].kind == "compaction" and items[-1].kind == "assistant"
        assert items[-1].message["content"][0]["text"] == "fits now"
        notes = [item for item in items if item.kind == "note"]
        assert [(n.level, n.message["text"]) for n in notes] == [
            ("warning", "the request was too long for the model: compacted 30k tokens of conversation into a "
                        "summary (the transcript now starts with it) and sent it again")]


async def test_a_compaction_that_leaves_the_request_no_smaller_sends_nothing_again(
        tmp_path: Path, fake_openai: FakeOpenAI, send, wait_for, shown) -> None:
    """The summary outweighs what it replaced: resending would be refused again (and paid); it said "sent
    it again" and sent a bigger request than the refused one."""
    fake_openai.push(context_overflow(), text_reply("## Goal\n" + "every detail " * 10_000))
    app = app_on(fake_openai, tmp_path)
    async with app.run_test(size=(110, 30)) as pilot:
        await wait_for(pilot, lambda: app.ready.is_set())
        await send(pilot, "go on")
        await wait_for(pilot, lambda: "so it was not sent again" in shown(app))
        assert len(fake_openai.requests) == 2, "the refused request and the compaction's, nothing more"
        assert len(compactions(app)) == 1
        notes = [item.message["text"] for item in app.main.transcript.conversation.items if item.kind == "note"]
        assert not any("sent it again" in note for note in notes)


async def test_compact_asks_before_it_makes_a_pruned_request_bigger(tmp_path: Path) -> None:
    """After `/pruner now` on pi-large-session the request is ~6.6k tokens; compaction keeps more than that
    and adds a summary. It said "compacted" and the footer grew by 2k; now it asks first, and no is no."""
    session = tmp_path / "large.jsonl"
    shutil.copyfile(corpus_path("pi-large-session.jsonl"), session)
    context = RecordingContext(tmp_path, answers=[False])
    await context.attach(context.build_runtime(LaunchOptions(model="demo", session=str(session),
                                                             launch_dir=tmp_path)), "resume")
    registry = app_registry(context)
    assert await registry.dispatch("/pruner now")
    assert await registry.dispatch("/compact focus on the theme work")
    [question] = context.asked
    detail = getattr(question, "detail", "")
    assert detail.startswith("compacting would make the next request bigger, not smaller")
    paid = re.search(r"writing the summary sends the model about ([\d.]+)k tokens", detail)
    assert paid and float(paid[1]) > 20, "what saying yes would send the model, before it is paid for"
    assert context.notes[-1] == "/compact: not compacted; the conversation is as it was"
    assert all(e["type"] != "compaction" for e in context.runtime.host.session.entries)
