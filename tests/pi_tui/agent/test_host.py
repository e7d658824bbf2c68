"""How full the context is, as Pi's getContextUsage reckons it: the footer's figure and condense's budget
trigger both read it, in pi-tui's agent and in the library's LocalHost."""

from __future__ import annotations

from pathlib import Path

from condense.local_host import LocalHost
from condense.messages import AgentMessage, AssistantMessage, empty_usage
from pi_tui.agent.host import AgentHost
from pi_tui.agent.loop import AgentConfig
from pi_tui.ai.litellm_client import LiteLLMClient
from pi_tui.ai.types import ModelSpec
from pi_tui.session.store import Session
from tests.support.memory_host import USAGE, assistant, user
from tests.support.typed import present

PROMPT = "x" * 400  # 100 tokens at chars/4


def live_host(tmp_path: Path, *entries: AgentMessage, compacted: bool = False) -> AgentHost:
    """pi-tui's agent over a session holding `entries` (after a compaction of one earlier exchange)."""
    session = Session.create(tmp_path, tmp_path / "sessions")
    if compacted:
        session.append_message(user("before", 1))
        kept = session.append_message(assistant(2, text="old"))
        session.append_compaction("what happened before", kept, 50_000)
    for entry in entries:
        session.append_message(entry)
    model = ModelSpec(provider="openai", id="fake-model", base_url="http://127.0.0.1:9")
    return AgentHost(session, LiteLLMClient(), AgentConfig(model, "", tmp_path), [])


def silent_reply(ts: int) -> AssistantMessage:
    """A reply whose provider reported no usage: Pi's message holds zeros."""
    return {**assistant(ts, text="done"), "usage": empty_usage()}


def test_before_the_first_reply_the_prompt_is_estimated_as_pi_does(tmp_path: Path) -> None:
    host = live_host(tmp_path, user(PROMPT, 1))
    assert present(host.context_usage()).tokens == 100


def test_a_reply_without_usage_counts_as_zero_plus_what_follows_as_pi_does(tmp_path: Path) -> None:
    host = live_host(tmp_path, user("go", 1), silent_reply(2), user(PROMPT, 3))
    assert present(host.context_usage()).tokens == 100


def test_after_a_compaction_a_reply_without_usage_leaves_the_context_unknown(tmp_path: Path) -> None:
    """Pi shows `?` until a reply after the compaction reports usage: older figures measured the history
    the summary replaced."""
    assert present(live_host(tmp_path, user("go", 3), silent_reply(4), compacted=True).context_usage()).tokens is None
    reported = live_host(tmp_path / "b", user("go", 3), assistant(4, text="done"), user(PROMPT, 5), compacted=True)
    assert present(reported.context_usage()).tokens == USAGE["totalTokens"] + 100


def test_the_library_estimates_a_history_handed_over_without_usage() -> None:
    """An agent may hand over no usage: its replies hold zeros, and counting them as Pi does would keep
    the budget trigger from ever firing. LocalHost estimates what the model reads instead."""
    host = LocalHost()
    for message in (user(PROMPT * 10, 1), silent_reply(2), user("and now?", 3)):
        host.log.append("message", {"message": message})
    assert present(present(host.context_usage()).tokens) > 1000
