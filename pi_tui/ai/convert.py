"""Agent messages -> the three roles a model understands (Pi's `convertToLlm`).

The session holds more kinds of message than a provider accepts: `!` shell runs, extension messages,
branch and compaction summaries. Each becomes a user message whose text matches Pi's byte for byte,
so a session replayed here sends the model what Pi would have sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard, cast

from condense.messages import AgentMessage, ImageContent, Message, TextContent, UserMessage

BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"
COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"

_PASSTHROUGH = {"user", "assistant", "toolResult"}


def bash_execution_text(message: Mapping[str, Any]) -> str:
    """How a user's `!command` run reads to the model."""
    output = message.get("output") or ""
    text = f"Ran `{message['command']}`\n" + (f"```\n{output}\n```" if output else "(no output)")
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


def _user_text(text: str, timestamp: int) -> UserMessage:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": timestamp}


def _convert_one(message: Mapping[str, Any]) -> Message | None:
    role = message.get("role")
    if role == "bashExecution":
        if message.get("excludeFromContext"):
            return None
        return _user_text(bash_execution_text(message), message["timestamp"])
    if role == "custom":
        content = message["content"]
        blocks: list[TextContent | ImageContent] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content)
        return {"role": "user", "content": blocks, "timestamp": message["timestamp"]}
    if role == "branchSummary":
        text = BRANCH_SUMMARY_PREFIX + message["summary"] + BRANCH_SUMMARY_SUFFIX
        return _user_text(text, message["timestamp"])
    if role == "compactionSummary":
        text = COMPACTION_SUMMARY_PREFIX + message["summary"] + COMPACTION_SUMMARY_SUFFIX
        return _user_text(text, message["timestamp"])
    return None


def _passes_through(message: AgentMessage) -> TypeGuard[Message]:
    """User, assistant and tool-result messages go to the model unchanged."""
    return message.get("role") in _PASSTHROUGH


def convert_to_llm(messages: list[AgentMessage]) -> list[Message]:
    """User, assistant and tool results pass through as the same objects; other roles are rewritten
    into new user messages; unknown roles are dropped. Inputs are never mutated, and a list that
    needs no rewriting is returned as the very same object (a no-op costs no copy)."""
    if all(_passes_through(m) for m in messages):
        return cast("list[Message]", messages)  # every role passed through, as checked just above
    converted: list[Message] = []
    for message in messages:
        if _passes_through(message):
            converted.append(message)
            continue
        replacement = _convert_one(message)
        if replacement is not None:
            converted.append(replacement)
    return converted
