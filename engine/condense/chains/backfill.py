"""Compressing a chain that no per-batch summary covers, without a model.

A chain can age out of the rolling window with none of its outputs summarised (a trivial batch, an
oversized summary, a fully deduplicated batch, a capture miss), and the frontier has already moved
past it, so no later flush will ever summarise it. Rather than leave it raw forever, its outputs are
indexed as they are (so every one stays recoverable by `tN` ref) and the chain gets a mechanical body
that says what was done. Both are deterministic: a reload renders the same bytes.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from condense.capture import call_args
from condense.chains.model import ChainRange
from condense.chains.render import Boundaries
from condense.messages import content_text, tool_calls
from condense.occurrence import occurrence_of, result_timestamp_of
from condense.records import ToolCallRecord

BACKFILL_TURN_INDEX = -1  # no batch turn; the recovery tool shows "Turn: -1"
HEADLINE = ("Deterministic chain compression (no per-batch summary existed for this span; raw outputs "
            "recoverable via context_tree_query).")
ARGS_EXCERPT_CHARS = 200

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def extract_chain_records(messages: Sequence[dict[str, Any]], chain: ChainRange,
                          is_indexed: Callable[[str], bool], boundaries: Boundaries | None = None,
                          ) -> list[ToolCallRecord]:
    """Records for the chain's answered calls that still need indexing: protected outputs are left
    out (they are relocated verbatim at render time), and so are occurrences already in the index
    (a retry after a half-finished attempt must not index them twice). The span is resolved the way
    the renderer resolves it, so what is indexed is exactly what rendering will drop."""
    boundaries = boundaries or Boundaries(messages)
    span = boundaries.resolve(chain.start_user_timestamp, chain.final_assistant_timestamp)
    if span is None:
        return []
    protected = set(chain.protected_tool_call_ids)
    calls: dict[str, list[Mapping[str, Any]]] = {}  # a reply may repeat an id: its calls answer in order
    records: list[ToolCallRecord] = []
    for message in messages[span[0] + 1 : span[1]]:
        if message.get("role") == "assistant":
            for block in tool_calls(message):
                calls.setdefault(str(block.get("id")), []).append(block)
            continue
        if message.get("role") != "toolResult":
            continue
        call_id = str(message.get("toolCallId"))
        waiting = calls.get(call_id)
        call: Mapping[str, Any] | None = waiting.pop(0) if waiting else None
        stamp = result_timestamp_of(message.get("timestamp"))
        if call is None or call_id in protected or stamp is None:
            continue
        record = ToolCallRecord(
            tool_call_id=call_id, tool_name=str(call.get("name", "")), args=call_args(call),
            result_text=content_text(message.get("content") or []), is_error=message.get("isError") is True,
            turn_index=BACKFILL_TURN_INDEX, timestamp=stamp, result_timestamp=stamp,
            result_occurrence=occurrence_of(message),
        )
        if not is_indexed(record.key):
            records.append(record)
    return records


def deterministic_body(records: Sequence[ToolCallRecord], tool_refs: Sequence[str]) -> str:
    """What the chain did, by the numbers: calls, tools used, time span, first and last call, refs."""
    counts = Counter(record.tool_name for record in records)
    tools = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    lines = [HEADLINE, f"Calls: {len(records)}", "Tools: " + ", ".join(f"{name} x{n}" for name, n in tools)]
    ordered = sorted(records, key=_when)
    if ordered:
        first, last = ordered[0], ordered[-1]
        seconds = math.floor((_when(last) - _when(first)) / 1000 + 0.5)
        lines += [
            f"Span: {_iso(_when(first))} -> {_iso(_when(last))} ({seconds}s)",
            f"First: {first.tool_name} {_args_excerpt(first.args)}",
            f"Last: {last.tool_name} {_args_excerpt(last.args)}",
        ]
    refs = list(tool_refs) or [record.tool_call_id for record in records]
    lines.append("Refs: " + ", ".join(refs))
    return "\n".join(lines)


def _when(record: ToolCallRecord) -> int:
    return record.result_timestamp if record.result_timestamp is not None else record.timestamp


def _iso(ms: int) -> str:
    """Like JavaScript's `toISOString`: UTC, milliseconds, `Z`."""
    return (_EPOCH + timedelta(milliseconds=ms)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _args_excerpt(args: dict[str, Any]) -> str:
    text = json.dumps(args, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= ARGS_EXCERPT_CHARS else text[:ARGS_EXCERPT_CHARS] + "..."
