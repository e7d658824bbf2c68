"""Pi's compaction in pi-tui: where it cuts, what it asks the session's model (here litellm against the
local OpenAI-compatible server), the `compaction` entry it writes for Pi to read, what the next request
carries, and the compact-once-and-retry answer to a request the provider refuses as too long."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from condense.config import CondenseConfig
from condense.messages import typed_messages
from pi_tui.agent.compaction import (
    SPLIT_TURN,
    SYSTEM_PROMPT,
    NothingToCompact,
    plan_compaction,
)
from pi_tui.agent.condense_host import install
from pi_tui.agent.host import AgentHost, StderrUI
from pi_tui.agent.loop import AgentConfig
from pi_tui.ai.convert import COMPACTION_SUMMARY_PREFIX
from pi_tui.ai.litellm_client import LiteLLMClient, warm_up
from pi_tui.ai.types import ModelSpec
from pi_tui.errors import UserError
from pi_tui.session.store import Session
from pi_tui.tools import make_tools
from tests.pi_tui.agent.test_condense_host import Notes
from tests.support.chains import call, calls, result
from tests.support.fake_openai import FakeOpenAI, context_overflow, error_reply, text_reply
from tests.support.turns import conversation, reply, said
from tests.support.typed import plain, present, text_at

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")]

BIG = 40_000  # characters: 10k tokens by Pi's estimate, half of what compaction keeps


@pytest.fixture(scope="module", autouse=True)
def _litellm_imported() -> None:
    warm_up()


def tool_work(session: Session) -> None:
    """A turn that reads a.py, edits b.py and reads it, each output 16k characters."""
    session.append_message(said("fix the bug", 1))
    for ts, block in ((2, call("c1", "read", {"path": "a.py"})), (4, call("c2", "edit", {"path": "b.py"})),
                      (6, call("c3", "read", {"path": "b.py"}))):
        session.append_message(typed_messages([calls(ts, block)])[0])
        session.append_message(typed_messages([result(ts + 1, block["id"], "x" * 16_000, block["name"])])[0])
    session.append_message(reply("fixed", 8))


async def host_on(server: FakeOpenAI, session: Session, condense: bool = False,
                  window: int = 128_000) -> tuple[AgentHost, Notes]:
    model = ModelSpec(provider="openai", id="fake-model", base_url=server.base_url, context_window=window)
    notes = Notes()
    host = AgentHost(session, LiteLLMClient(), AgentConfig(model, "You are a test.", Path(session.cwd)),
                     make_tools(["read"]), notes)
    if condense:
        install(host, CondenseConfig.model_validate({"summarizer_model": "extractive"}), lambda _: LiteLLMClient())
    await host.start()
    return host, notes


def request_text(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"])


# ----- where it cuts ----------------------------------------------------------------------------


def test_the_cut_keeps_the_newest_work_and_never_starts_at_a_tool_result(tmp_path: Path) -> None:
    session = Session.in_memory(tmp_path)
    tool_work(session)
    plan = plan_compaction(session.branch_entries(), keep_recent=6_000)
    kept = session.get(plan.first_kept_id)
    assert kept is not None and kept["message"]["role"] == "assistant", "a result stays with its call"
    assert [m["role"] for m in plan.turn_start] == ["user", "assistant", "toolResult", "assistant", "toolResult"]
    assert plan.history == [], "the cut splits the only turn: its start is summarised on its own"
    assert plan.read_files == ["a.py"] and plan.modified_files == ["b.py"]  # b.py was edited, then read


def test_nothing_to_compact_is_said_in_one_line(tmp_path: Path) -> None:
    session = Session.in_memory(tmp_path)
    conversation(session, ("hello", "hi"))
    with pytest.raises(NothingToCompact) as small:
        plan_compaction(session.branch_entries())
    assert "\n" not in str(small.value) and "20k tokens" in str(small.value)
    session.append_compaction("summary", session.entries[0]["id"], 100)
    with pytest.raises(NothingToCompact, match="already compacted"):
        plan_compaction(session.branch_entries())


def test_a_later_compaction_updates_the_earlier_summary_and_its_file_lists(tmp_path: Path) -> None:
    session = Session.in_memory(tmp_path)
    first = conversation(session, ("one " * 10_000, "a"))
    session.append_compaction("earlier summary", first[0], 99, {"readFiles": ["old.py"], "modifiedFiles": []})
    conversation(session, ("two " * 10_000, "b"), ("three " * 8_000, "c"), ("four " * 8_000, "d"))
    plan = plan_compaction(session.branch_entries())
    assert plan.previous_summary == "earlier summary" and plan.read_files == ["old.py"]
    assert [m["role"] for m in plan.history] == ["user", "assistant"]  # only what came after the compaction


# ----- /compact through the session's model -----------------------------------------------------


async def test_compact_writes_pis_entry_and_the_next_request_carries_the_summary_and_the_kept_turns(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path / "sessions")
    users = conversation(session, ("first " + "a" * BIG, "one"), ("second " + "b" * BIG, "two"),
                         ("third " + "c" * BIG, "three"))
    reported = session.entries[-1]["message"]["usage"]["totalTokens"]
    host, _ = await host_on(fake_openai, session)
    fake_openai.push(text_reply("## Goal\nFix the tax bug"))
    entry = await host.compact("the tax bug")

    asked = fake_openai.requests[-1]["messages"]
    assert asked[0] == {"role": "system", "content": SYSTEM_PROMPT}
    prompt = asked[1]["content"][0]["text"]
    assert prompt.startswith("<conversation>\n") and "first a" in prompt and "second b" not in prompt
    assert prompt.endswith("Give special attention to: the tax bug")
    assert {k: entry[k] for k in ("type", "firstKeptEntryId", "summary", "details")} == {
        "type": "compaction", "firstKeptEntryId": users[1], "summary": "## Goal\nFix the tax bug",
        "details": {"readFiles": [], "modifiedFiles": []}}
    assert entry["tokensBefore"] == reported, "what the newest reply reported, as Pi counts it"

    reopened = Session.open(present(session.path)).build_context().messages  # as Pi rebuilds it
    assert [m["role"] for m in reopened] == ["compactionSummary", "user", "assistant", "user", "assistant"]
    fake_openai.push(text_reply("next answer"))
    await host.prompt("and now?")
    sent = fake_openai.requests[-1]["messages"]
    assert sent[1]["content"][0]["text"] == f"{COMPACTION_SUMMARY_PREFIX}## Goal\nFix the tax bug\n</summary>"
    assert "first a" not in request_text(fake_openai.requests[-1])
    assert [m["role"] for m in sent[2:]] == ["user", "assistant", "user", "assistant", "user"]


async def test_a_failed_summary_is_one_line_and_writes_nothing(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path / "sessions")
    conversation(session, ("a" * BIG, "one"), ("b" * BIG, "two"), ("c" * BIG, "three"))
    host, _ = await host_on(fake_openai, session)
    entries = len(session.entries)
    fake_openai.push(error_reply(400, "model not allowed", kind="invalid_request_error"))
    with pytest.raises(UserError) as failure:
        await host.compact()
    assert "\n" not in str(failure.value) and "model not allowed" in str(failure.value)
    assert len(session.entries) == entries and host.agent.messages[0]["role"] == "user"


async def test_a_turn_the_cut_splits_gets_its_own_summary(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path / "sessions")
    tool_work(session)
    for _ in range(2):  # make the turn long enough that its start falls outside the kept 20k tokens
        tool_work(session)
    host, _ = await host_on(fake_openai, session)
    fake_openai.push(text_reply("## Goal\nearlier"), text_reply("## Original request\nfix the bug"))
    entry = await host.compact()
    assert SPLIT_TURN in entry["summary"]
    assert entry["summary"].endswith("<read-files>\na.py\n</read-files>\n\n<modified-files>\nb.py\n</modified-files>")


# ----- a request too long for the model ---------------------------------------------------------


async def overflowing(server: FakeOpenAI, tmp_path: Path) -> tuple[AgentHost, Notes]:
    """Three big turns of plain text (nothing condense could prune) on a host with condense."""
    session = Session.create(tmp_path, tmp_path / "sessions")
    conversation(session, ("first " + "a" * BIG, "one"), ("second " + "b" * BIG, "two"),
                 ("third " + "c" * BIG, "three"))
    return await host_on(server, session, condense=True)


async def test_overflow_with_nothing_to_prune_compacts_once_and_retries(fake_openai: FakeOpenAI,
                                                                       tmp_path: Path) -> None:
    host, _ = await overflowing(fake_openai, tmp_path)
    fake_openai.push(context_overflow(), text_reply("## Goal\nthe summary"), text_reply("fits now"))
    added = await host.prompt("go on")
    assert [m.get("role") for m in added] == ["user", "assistant"], "the failed attempt left the conversation"
    assert text_at(plain(added)[-1]["content"]) == "fits now"
    summary_request, retried = fake_openai.requests[-2:]
    assert summary_request["messages"][0]["content"] == SYSTEM_PROMPT
    assert "the summary" in request_text(retried) and "first a" not in request_text(retried)
    assert request_text(retried).count("go on") == 1
    kinds = [e["type"] for e in Session.open(present(host.session.path)).entries]
    assert kinds.count("compaction") == 1


async def test_a_second_overflow_after_compacting_is_an_error(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    host, notes = await overflowing(fake_openai, tmp_path)
    fake_openai.push(context_overflow(), text_reply("## Goal\nthe summary"), context_overflow())
    added = await host.prompt("go on")
    assert added[-1].get("stopReason") == "error"
    assert len(fake_openai.requests) == 3, "one compaction, one retry"
    errors = [text for level, text in notes.notices if level == "error"]
    assert len(errors) == 1 and "still over the model's context window" in errors[0]


async def test_a_pruned_request_over_the_window_is_compacted_before_it_is_sent(fake_openai: FakeOpenAI,
                                                                            tmp_path: Path) -> None:
    """Even pruned, three big turns of plain text are over a 40k window (less Pi's reserve for the reply):
    condense asks the host's compaction first, says so in one line, and the request fits."""
    session = Session.create(tmp_path, tmp_path / "sessions")
    conversation(session, ("first " + "a" * BIG, "one"), ("second " + "b" * BIG, "two"),
                 ("third " + "c" * BIG, "three"))
    host, notes = await host_on(fake_openai, session, condense=True, window=40_000)
    fake_openai.push(text_reply("## Goal\nthe summary"), text_reply("fits"))
    added = await host.prompt("go on")
    assert text_at(plain(added)[-1]["content"]) == "fits"
    summary_request, sent = fake_openai.requests
    assert summary_request["messages"][0]["content"] == SYSTEM_PROMPT
    assert "the summary" in request_text(sent) and "first a" not in request_text(sent)
    [line] = [text for level, text in notes.notices if "Pi's compaction" in text]
    assert line.startswith("pruner: even pruned, the next request (") and "40,000-token window" in line


# ----- a compaction that fits, once a turn ------------------------------------------------------


async def test_the_summary_request_fits_the_window_with_the_middle_of_a_long_history_cut(tmp_path: Path) -> None:
    """Three 40k-character turns summarised for a 20k-token window, on a server that refuses what is over
    it: the request was the whole history (refused); now its start and end, with a marker between."""
    session = Session.create(tmp_path, tmp_path / "sessions")
    conversation(session, ("first " + "a" * BIG, "one"), ("second " + "b" * BIG, "two"),
                 ("third " + "c" * BIG, "three"), ("fourth " + "d" * BIG, "four"))
    with FakeOpenAI(max_request_chars=60_000) as server:
        host, _ = await host_on(server, session, window=20_000)
        server.push(text_reply("## Goal\nthe summary"))
        entry = await host.compact()
        [request] = server.requests
    assert entry["summary"] == "## Goal\nthe summary" and server.rejections == []
    prompt = request["messages"][1]["content"][0]["text"]
    assert len(json.dumps(request)) <= 60_000
    assert prompt.index("first a") < prompt.index("characters of the conversation left out here") < prompt.index(
        "two\n</conversation>")


async def test_the_summariser_reads_the_pruned_conversation_not_the_raw_outputs(fake_openai: FakeOpenAI,
                                                                               tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path / "sessions")
    for _ in range(3):
        tool_work(session)
    host, _ = await host_on(fake_openai, session, condense=True)
    await present(host.commands["pruner"].handler("now"))
    fake_openai.push(text_reply("## Goal\nearlier"), text_reply("## Original request\nfix the bug"))
    await host.compact()
    prompts = [request["messages"][1]["content"][0]["text"] for request in fake_openai.requests]
    # the history's summary and the kept turn's run side by side: either may reach the server first
    [prompt] = [text for text in prompts if "Context for the kept part" not in text]
    assert "x" * 1_000 not in prompt, "a summarised output is read as its summary, not its first 2,000 characters"
    assert "<compressed-chain" in prompt, "what condense compressed, as the model reads it"


async def test_a_turn_compacts_once_and_says_a_failure_in_one_line(tmp_path: Path) -> None:
    """Over the window even pruned: condense's fallback compacts before the request; that compaction is
    refused, the request too, and the overflow recovery used to send the same compaction again."""
    session = Session.create(tmp_path, tmp_path / "sessions")
    conversation(session, ("first " + "a" * BIG, "one"), ("second " + "b" * BIG, "two"),
                 ("third " + "c" * BIG, "three"))
    with FakeOpenAI(max_request_chars=20_000) as server:
        host, notes = await host_on(server, session, condense=True, window=40_000)
        server.push(text_reply("## Goal\nnever asked for"))
        added = await host.prompt("go on")
        summaries = [r for r in server.requests if r["messages"][0]["content"] == SYSTEM_PROMPT]
        assert len(summaries) == 1 and len(server.requests) == 2, "one compaction, one request"
    assert added[-1].get("stopReason") == "error"
    [error] = [text for level, text in notes.notices if level == "error"]
    assert error.startswith("pruner: the next request does not fit the model's window, and compaction failed: the "
                            "provider refused its ") and "fits openai/fake-model's 40,000-token window" in error


async def test_an_automatic_compaction_that_would_not_shrink_the_request_is_not_paid_for(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    """A short first turn, then one too long for the window: compaction would keep the long one and add a
    summary bigger than the short one it replaces, so it is said, not sent."""
    session = Session.create(tmp_path, tmp_path / "sessions")
    conversation(session, ("hello", "hi"), ("second " + "b" * 90_000, "two"))
    host, notes = await host_on(fake_openai, session, condense=True, window=40_000)
    fake_openai.push(context_overflow(), text_reply("## Goal\nnever asked for"))
    added = await host.prompt("go on")
    assert added[-1].get("stopReason") == "error" and len(fake_openai.requests) == 1
    [error] = [text for level, text in notes.notices if level == "error"]
    assert "and compacting would not make it smaller (it keeps " in error
    assert error.endswith("/new starts a fresh session, /model picks a larger window")


async def test_print_mode_is_told_the_way_out_in_command_line_words(
        fake_openai: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`-p` has no /new or /model: the line names the options a run has instead."""
    session = Session.create(tmp_path, tmp_path / "sessions")
    conversation(session, ("hello", "hi"), ("second " + "b" * 90_000, "two"))
    host, _ = await host_on(fake_openai, session, condense=True, window=40_000)
    host.ui = StderrUI()
    fake_openai.push(context_overflow(), text_reply("## Goal\nnever asked for"))
    await host.prompt("go on")
    [error] = [line for line in capsys.readouterr().err.splitlines() if "would not make it smaller" in line]
    assert error.endswith("a run without --continue or --session starts a fresh session, --model picks a larger "
                          "window") and "/new" not in error
