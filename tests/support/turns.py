"""Builders for conversations as a session holds them: user messages and replies whose usage reports the
tokens so far, for the tests of compaction and of the commands that read the last reply."""

from __future__ import annotations

from typing import Any

from condense.messages import AgentMessage
from pi_tui.session.store import Session


def said(text: str, ts: int) -> AgentMessage:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def reply(text: str, ts: int, tokens: int = 15, **fields: Any) -> AgentMessage:
    """A reply from the fake server's model, reporting `tokens` of context; `fields` override any key."""
    usage = {"input": tokens - 5, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": tokens,
             "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}}
    message = {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "openai-completions",
               "provider": "openai", "model": "fake-model", "usage": usage, "stopReason": "stop",
               "timestamp": ts, **fields}
    return message  # type: ignore[return-value]  # the shape Pi writes; mypy cannot check a dict built so


def conversation(session: Session, *turns: tuple[str, str]) -> list[str]:
    """One user message and its reply per turn, each reply reporting the tokens so far (chars / 4);
    returns the user messages' entry ids."""
    ids, chars = [], 0
    for number, (asked, answered) in enumerate(turns):
        ids.append(session.append_message(said(asked, 10 * number)))
        chars += len(asked) + len(answered)
        session.append_message(reply(answered, 10 * number + 1, chars // 4))
    return ids
