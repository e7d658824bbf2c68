"""Pi's branch summary through the real model path: the session's model (here litellm against the local
OpenAI-compatible server) writes what the branch being left did; a failure is one line and moves nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.abort import AbortSignal
from pi_tui.agent.branch_summary import abandoned_entries, summarize_branch, summary_prompt
from pi_tui.ai.litellm_client import LiteLLMClient, warm_up
from pi_tui.ai.types import ModelSpec
from pi_tui.errors import UserError
from pi_tui.session.store import Session
from tests.support.fake_openai import FakeOpenAI, error_reply, text_reply

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")]


@pytest.fixture(scope="module", autouse=True)
def _litellm_imported() -> None:
    warm_up()


def branched(tmp_path: Path) -> tuple[Session, str, str]:
    """root -> a1 -> u2 -> a2 (the leaf); the target is a1, so u2 and a2 are left behind."""
    session = Session.in_memory(tmp_path)
    session.append_message({"role": "user", "content": "make the tests pass", "timestamp": 1})
    a1 = session.append_message({"role": "assistant", "content": [{"type": "text", "text": "on it"}],  # type: ignore[arg-type]  # partial: what a summary reads
                                 "stopReason": "stop", "timestamp": 2})
    u2 = session.append_message({"role": "user", "content": "try approach B in pricing.py", "timestamp": 3})
    session.append_message({"role": "assistant", "stopReason": "toolUse", "timestamp": 4, "content": [  # type: ignore[arg-type]  # partial
        {"type": "toolCall", "id": "c1", "name": "edit", "arguments": {"path": "pricing.py"}}]})
    session.append_message({"role": "toolResult", "toolCallId": "c1", "toolName": "edit", "isError": False,
                            "content": [{"type": "text", "text": "a long output " * 50}], "timestamp": 5})
    return session, a1, u2


def test_the_branch_left_behind_is_what_follows_the_shared_point(tmp_path: Path) -> None:
    session, a1, u2 = branched(tmp_path)
    left = abandoned_entries(session, a1)
    assert left[0]["id"] == u2 and len(left) == 3
    prompt = summary_prompt(left)
    assert prompt is not None and "try approach B in pricing.py" in prompt and "→ edit" in prompt
    assert "a long output" not in prompt  # tool outputs stay out, the calls say what was done
    assert abandoned_entries(session, session.leaf_id) == []
    focused = summary_prompt(left, "  why approach B failed ")
    assert focused is not None and "Focus especially on: why approach B failed\n" in focused


async def test_the_sessions_model_writes_the_summary(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    session, a1, _ = branched(tmp_path)
    prompt = summary_prompt(abandoned_entries(session, a1))
    assert prompt is not None
    fake_openai.push(text_reply("## Goal\nApproach B in pricing.py"))
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url)
    summary = await summarize_branch(LiteLLMClient(), model, prompt, AbortSignal())
    assert summary == "## Goal\nApproach B in pricing.py"
    assert "try approach B" in json.dumps(fake_openai.requests[-1]["messages"])


async def test_a_failed_summary_is_one_line(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    session, a1, _ = branched(tmp_path)
    prompt = summary_prompt(abandoned_entries(session, a1))
    assert prompt is not None
    fake_openai.push(error_reply(400, "model not allowed", kind="invalid_request_error"))
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url)
    with pytest.raises(UserError) as failure:
        await summarize_branch(LiteLLMClient(), model, prompt, AbortSignal())
    assert "\n" not in str(failure.value) and "still on the same branch" in str(failure.value)
