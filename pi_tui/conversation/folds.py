"""The one line a summary the session holds folds to, and its body: condense's summaries, compactions and
branch summaries read the same in the transcript and in an exported page."""

from __future__ import annotations

from condense.messages import content_text
from condense.plural import counted
from pi_tui.conversation.model import Item


def turn_number(turn_index: object) -> str:
    """A summary's turn as users count turns, from 1 (condense numbers them from 0); "?" when unknown."""
    return str(turn_index + 1) if isinstance(turn_index, int) and not isinstance(turn_index, bool) else "?"


def fold_label(item: Item) -> str:
    """The one line a summary the session holds folds to: condense's, a compaction's, a branch's."""
    message = item.message
    if item.kind == "summary":
        details = message.get("details")
        details = details if isinstance(details, dict) else {}
        turn = details.get("turnIndex")
        refs = details.get("toolCallRefs") or details.get("toolCallIds") or []
        count = len(refs) if isinstance(refs, list) else 0
        return f"[pruner] Turn {turn_number(turn)} summary ({counted(count, 'tool')})"
    if item.kind == "compaction":
        return f"compaction: earlier conversation summarised ({message.get('tokensBefore', '?')} tokens before)"
    return "branch summary: what the abandoned branch did"


def fold_body(item: Item) -> str:
    """A folded summary's Markdown text."""
    if item.kind == "summary":
        return content_text(item.message.get("content") or "")
    return str(item.message.get("summary", "")).rstrip()
