"""Phase 4: drop tool results that no open tool call vouches for.

Providers reject a tool result whose call is not the latest assistant turn's (a reused id, an
unresolved chain range, a bug upstream: the cause does not matter). The open set is per turn: an
assistant message replaces it with its own call ids, a result consumes its id, and any other message
is a barrier that closes the turn. Only the most recent, uninterrupted assistant turn can vouch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from condense.messages import tool_calls

SHOWN_IDS = 5


class OrphanScan:
    """The open set carried from one message to the next, so a growing conversation is scanned in pieces
    with the same decisions as one pass; `feed` returns the positions (from `offset`) of orphans."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}  # a reply may call one id twice: each call vouches for one result

    @classmethod
    def after(cls, swept: Sequence[Any], end: int) -> OrphanScan:
        """The scan as it stands at `end` of `swept`, an output it swept already (so every result there
        consumed an open id): the calls of the last assistant message before `end`, less the results
        after it."""
        scan = cls()
        start = end
        while start and swept[start - 1].get("role") == "toolResult":
            start -= 1
        if start and swept[start - 1].get("role") == "assistant":
            scan._open = _calls(swept[start - 1])
            for index in range(start, end):
                call_id = str(swept[index].get("toolCallId"))
                scan._open[call_id] = scan._open.get(call_id, 0) - 1
        return scan

    def feed(self, messages: Sequence[Any], offset: int = 0) -> list[int]:
        swept_at: list[int] = []
        for index, message in enumerate(messages, start=offset):
            role = message.get("role")
            if role == "assistant":
                self._open = _calls(message)
            elif role == "toolResult":
                call_id = str(message.get("toolCallId"))
                if self._open.get(call_id, 0) > 0:
                    self._open[call_id] -= 1
                else:
                    swept_at.append(index)
            elif self._open:
                self._open = {}
        return swept_at


def _calls(message: dict[str, Any]) -> dict[str, int]:
    """How many results each call id of an assistant message vouches for."""
    counts: dict[str, int] = {}
    for call in tool_calls(message):
        call_id = str(call.get("id"))
        counts[call_id] = counts.get(call_id, 0) + 1
    return counts


def without_positions(messages: list[Any], swept_at: list[int]) -> list[Any]:
    dropped = set(swept_at)
    return [m for i, m in enumerate(messages) if i not in dropped]


def sweep_dedup_key(swept_ids: list[str]) -> str:
    return hashlib.sha1(",".join(sorted(swept_ids)).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def sweep_detail(swept_ids: list[str]) -> str:
    shown = ", ".join(swept_ids[:SHOWN_IDS])
    more = f" ... +{len(swept_ids) - SHOWN_IDS} more" if len(swept_ids) > SHOWN_IDS else ""
    return f"swept {len(swept_ids)} orphan toolResult(s): {shown}{more}"
