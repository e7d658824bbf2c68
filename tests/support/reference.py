"""Whole-list versions of the engine's streaming scans, for tests only.

The engine feeds its scans (orphans, errored calls, recovery ages) one growing piece at a time; these
functions run a scan over a whole list in one go, the way the TypeScript original's functions of the
same names did, so its ported tests and our oracles stay readable. Nothing in condense calls them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from condense.grace import RecoveryAges
from condense.index import ToolCallIndexer
from condense.messages import content_parts
from condense.render.orphans import OrphanScan, without_positions
from condense.render.purge import ErroredCalls, purge_cooled


def sweep_orphans(messages: list[Any]) -> tuple[list[Any], list[str]]:
    """The messages without orphaned results (the same list when there are none), and the swept ids."""
    swept_at = OrphanScan().feed(messages)
    if not swept_at:
        return messages, []
    swept_ids = [str(messages[i].get("toolCallId")) for i in swept_at]
    return without_positions(messages, swept_at), swept_ids


def purge_errored_args(messages: list[Any], *, enabled: bool, cooldown_turns: int,
                       min_arg_chars: int) -> list[Any]:
    """The messages with cooled-down failed calls' long argument strings shrunk (the same list when
    nothing qualifies, or when the feature is off)."""
    if not enabled:
        return messages
    calls = ErroredCalls()
    calls.feed(messages)
    return purge_cooled(messages, calls, cooldown_turns, min_arg_chars)


def in_grace_recovery_keys(messages: Sequence[dict[str, Any]], k: int) -> set[str]:
    """Keys of the recovery results whose age (user messages after them) is at most `k`."""
    ages = RecoveryAges()
    ages.feed(messages)
    return ages.in_grace(k)


def tool_result_chars(messages: list[Any]) -> int:
    """Characters of tool-result text only: what per-batch pruning replaces."""
    return sum(len(part.text) for m in messages if m.get("role") == "toolResult"
               for part in content_parts(m.get("content")) if part.kind == "text")


def summary_body_for(indexer: ToolCallIndexer, key: str) -> str | None:
    """The first per-batch summary that covers the occurrence `key`."""
    bodies = indexer.summaries_covering([key])
    return bodies[0] if bodies else None
