"""What the model sees of a branch: Pi's `buildSessionContext`.

The branch (root to leaf) becomes agent messages. A compaction on the branch replaces everything
before its `firstKeptEntryId` with its summary; `custom_message` and `branch_summary` entries become
messages of their own; settings, labels and `custom` records are not part of the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from condense.messages import AgentMessage, CustomMessage
from condense.timefmt import iso_to_ms


@dataclass
class SessionContext:
    messages: list[AgentMessage] = field(default_factory=list)
    thinking_level: str = "off"
    model: tuple[str, str] | None = None  # (provider, model id)


def entry_message(entry: dict[str, Any]) -> AgentMessage | None:
    """The agent message an entry contributes to the context, if any."""
    kind = entry.get("type")
    if kind == "message":
        message: AgentMessage = entry["message"]  # validated when the session was loaded
        return message
    if kind == "custom_message":
        msg: CustomMessage = {
            "role": "custom",
            "customType": entry["customType"],
            "content": entry["content"],
            "display": bool(entry.get("display", False)),
            "timestamp": iso_to_ms(entry.get("timestamp")),
        }
        if "details" in entry:
            msg["details"] = entry["details"]
        return msg
    if kind == "branch_summary" and entry.get("summary"):
        return {
            "role": "branchSummary",
            "summary": entry["summary"],
            "fromId": entry.get("fromId", ""),
            "timestamp": iso_to_ms(entry.get("timestamp")),
        }
    return None


def compaction_message(entry: dict[str, Any]) -> AgentMessage:
    return {
        "role": "compactionSummary",
        "summary": entry["summary"],
        "tokensBefore": int(entry.get("tokensBefore") or 0),
        "timestamp": iso_to_ms(entry.get("timestamp")),
    }


def in_time_order(path: list[dict[str, Any]]) -> list[AgentMessage]:
    """Every message of a branch given root-to-leaf in the order it came, each compaction's summary where
    the compaction happened (a context puts it first, before the replies it kept)."""
    messages = (compaction_message(e) if e.get("type") == "compaction" else entry_message(e) for e in path)
    return [message for message in messages if message is not None]


def _apply_setting(context: SessionContext, entry: dict[str, Any]) -> None:
    """The thinking level or model an entry sets, applied to `context`."""
    kind = entry.get("type")
    if kind == "thinking_level_change":
        context.thinking_level = entry.get("thinkingLevel") or "off"  # none recorded: as if never set, like Pi
    elif kind == "model_change":
        context.model = (entry["provider"], entry["modelId"])
    elif kind == "message" and entry["message"].get("role") == "assistant":
        msg = entry["message"]
        context.model = (str(msg.get("provider", "")), str(msg.get("model", "")))


def _settings(path: list[dict[str, Any]]) -> tuple[str, tuple[str, str] | None, int | None]:
    settings, compaction_at = SessionContext(), None
    for index, entry in enumerate(path):
        _apply_setting(settings, entry)
        if entry.get("type") == "compaction":
            compaction_at = index
    return settings.thinking_level, settings.model, compaction_at


def extend_context(context: SessionContext, entry: dict[str, Any]) -> bool:
    """Add an entry appended at the leaf to `context` in place, so a growing branch is not rebuilt for
    every request; False (context unusable) for a compaction, which changes what comes before it."""
    if entry.get("type") == "compaction":
        return False
    _apply_setting(context, entry)
    msg = entry_message(entry)
    if msg is not None:
        context.messages.append(msg)
    return True


def _is_first_kept(entry: dict[str, Any], kept_id: Any, skipped: Mapping[str, str | None]) -> bool:
    """Whether the kept part starts at `entry`: it is the first kept entry, or that entry is a line
    skipped on load (Pi keeps it in the tree) and `entry` is the first usable one below it."""
    if entry.get("id") == kept_id:
        return True
    parent: str | None = entry.get("parentId")
    seen: set[str] = set()
    while parent is not None and parent in skipped and parent not in seen:
        if parent == kept_id:
            return True
        seen.add(parent)
        parent = skipped[parent]
    return False


def build_context(path: list[dict[str, Any]], skipped: Mapping[str, str | None] | None = None) -> SessionContext:
    """The context of a branch given root-to-leaf, following a compaction on it if there is one.

    `skipped` maps the ids of lines skipped on load to their parents."""
    thinking, model, compaction_at = _settings(path)
    if compaction_at is None:
        selected = path
        messages: list[AgentMessage] = []
    else:
        compaction = path[compaction_at]
        messages = [compaction_message(compaction)]
        kept_id = compaction.get("firstKeptEntryId")
        before = path[:compaction_at]
        start = next((i for i, e in enumerate(before) if _is_first_kept(e, kept_id, skipped or {})), len(before))
        selected = before[start:] + path[compaction_at + 1 :]
    for entry in selected:
        msg = entry_message(entry)
        if msg is not None:
            messages.append(msg)
    return SessionContext(messages, thinking, model)
