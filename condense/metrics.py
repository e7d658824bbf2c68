"""Context metrics: how much of the branch pruning cannot take back (yet), made visible.

A session that runs one long tool loop never closes a chain, so chain compression never touches it and
per-batch summaries are the only lever; without these numbers such a session looks healthy. All three
are estimates from the persisted branch (not the rendered context): characters of compact JSON, as
JavaScript's `JSON.stringify` writes them, divided by 4 and rounded half up (the footer's convention).

- Open-cycle thinking: thinking blocks after the last text-only assistant reply. Not windowed by the
  frontier, since a skipped flush advances the frontier without removing anything from the context.
- Largest chain share: the larger of the biggest chain (closed, or interrupted by a new user message)
  and the open segment, as a percentage of the whole branch. Near 100 for a single-chain session.
- Frontier gap: tool results past the frontier that a flush could still summarize (not summarized yet,
  not protected). 0 when there is nothing left to capture.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from condense.capture import call_args, entry_ms
from condense.frontier import Frontier
from condense.measure import json_chars
from condense.messages import tool_calls
from condense.occurrence import bare_id, message_key
from condense.stats import format_compact_count

# Work a reload found on the branch, outside the pending count: said the same in the footer and the status.
REARMED = "earlier tool output not summarized yet (next flush)"

IsSummarized = Callable[[str], bool]
IsProtected = Callable[[str, dict[str, Any]], bool]


@dataclass(frozen=True)
class ContextMetrics:
    open_cycle_thinking_tokens: int = 0
    largest_chain_share_pct: int = 0
    frontier_gap_tokens: int = 0

    def to_json(self) -> dict[str, int]:
        """The `metrics` object of a `context-prune-flush-metrics` entry."""
        return {
            "openCycleThinkingTokens": self.open_cycle_thinking_tokens,
            "largestChainSharePct": self.largest_chain_share_pct,
            "frontierGapTokens": self.frontier_gap_tokens,
        }


def _tokens(chars: int) -> int:
    """chars / 4 rounded half up, in integers (Python's round() would round 2.5 to 2)."""
    return (chars + 2) // 4


def _percent(part: int, whole: int) -> int:
    """100 * part / whole rounded half up, in integers; 0 for an empty whole."""
    return (200 * part + whole) // (2 * whole) if whole else 0


def _custom_message(entry: dict[str, Any]) -> dict[str, Any]:
    """A `custom_message` entry as the message it puts into the context (the shape Pi builds)."""
    message = {
        "role": "custom",
        "customType": entry.get("customType"),
        "content": entry.get("content", ""),
        "display": bool(entry.get("display", False)),
        "timestamp": entry_ms(entry),
    }
    if "details" in entry:
        message["details"] = entry["details"]
    return message


def _branch_messages(branch_entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages the branch keeps in context: `message` entries, and `custom_message` entries (the
    pruner's own summaries among them), which count toward the whole but never start or join a chain."""
    messages: list[dict[str, Any]] = []
    for entry in branch_entries:
        kind = entry.get("type")
        if kind == "message" and isinstance(entry.get("message"), dict):
            messages.append(entry["message"])
        elif kind == "custom_message":
            messages.append(_custom_message(entry))
    return messages


def _is_text_only_assistant(message: dict[str, Any]) -> bool:
    return message.get("role") == "assistant" and not tool_calls(message)


def _open_segment_start(messages: list[dict[str, Any]]) -> int:
    """Position just after the last text-only assistant reply (0 when there is none)."""
    for position in range(len(messages) - 1, -1, -1):
        if _is_text_only_assistant(messages[position]):
            return position + 1
    return 0


def _thinking_chars(messages: list[dict[str, Any]]) -> int:
    assistant_blocks = (
        message["content"] for message in messages
        if message.get("role") == "assistant" and isinstance(message.get("content"), list)
    )
    return sum(json_chars(block) for blocks in assistant_blocks for block in blocks
               if isinstance(block, dict) and block.get("type") == "thinking")


def _chain_spans(messages: list[dict[str, Any]]) -> Iterator[tuple[int, int]]:
    """(first, last) positions of each chain: a user message through the text-only assistant reply that
    closes it, or through the message before the next user message that interrupted it. A chain still
    open at the end is not yielded: it lies inside the open segment, which is measured on its own."""
    start: int | None = None
    for position, message in enumerate(messages):
        if message.get("role") == "user":
            if start is not None:
                yield start, position - 1
            start = position
        elif start is not None and _is_text_only_assistant(message):
            yield start, position
            start = None


def _largest_chain_share(messages: list[dict[str, Any]], open_start: int) -> int:
    sizes = [json_chars(message) for message in messages]
    largest_chain = max((sum(sizes[first : last + 1]) for first, last in _chain_spans(messages)), default=0)
    return _percent(max(largest_chain, sum(sizes[open_start:])), sum(sizes))


def _frontier_boundary(messages: list[dict[str, Any]],
                       frontier: Frontier | None) -> tuple[int, int, frozenset[str]]:
    """Where counting starts: (first position to scan, end of the frontier's own turn, ids of that turn's
    calls up to and including the last attempted one). Exclusion is positional because ids are reused:
    a later turn's call with the same id still counts. When the frontier's turn or call is not on this
    branch the whole branch counts."""
    nothing = (0, 0, frozenset[str]())
    if frontier is None:
        return nothing
    assistants = [position for position, m in enumerate(messages) if m.get("role") == "assistant"]
    turn = frontier.last_attempted_turn_index
    if not 0 <= turn < len(assistants):
        return nothing
    last = frontier.last_attempted_tool_call_id  # a bare id or an occurrence key
    ids = [str(call.get("id")) for call in tool_calls(messages[assistants[turn]])]
    found = next((i for i, call_id in enumerate(ids) if call_id in (last, bare_id(last))), None)
    if found is None:
        return nothing
    turn_end = assistants[turn + 1] if turn + 1 < len(assistants) else len(messages)
    return assistants[turn] + 1, turn_end, frozenset(ids[: found + 1])


def _frontier_gap_tokens(messages: list[dict[str, Any]], frontier: Frontier | None,
                         is_summarized: IsSummarized, is_protected: IsProtected) -> int:
    scan_from, turn_end, attempted = _frontier_boundary(messages, frontier)
    latest_args: dict[str, dict[str, Any]] = {}  # per id, the arguments of its nearest preceding call
    tokens = 0
    for position, message in enumerate(messages):
        role = message.get("role")
        if role == "assistant":
            latest_args.update((str(call.get("id")), call_args(call)) for call in tool_calls(message))
        if role != "toolResult" or position < scan_from:
            continue
        call_id = str(message.get("toolCallId"))
        if position < turn_end and call_id in attempted:
            continue
        if is_summarized(message_key(message)):
            continue
        if is_protected(str(message.get("toolName", "")), latest_args.get(call_id, {})):
            continue
        tokens += _tokens(json_chars(message))
    return tokens


def compute_context_metrics(branch_entries: list[dict[str, Any]], frontier: Frontier | None,
                            is_summarized: IsSummarized, is_protected: IsProtected) -> ContextMetrics:
    """The three metrics of the branch (session entries, root to leaf). Turn indexes count every
    assistant message from 0, as capture does, so the frontier's turn is found where the flush left it."""
    messages = _branch_messages(branch_entries)
    if not messages:
        return ContextMetrics()
    open_start = _open_segment_start(messages)
    return ContextMetrics(
        open_cycle_thinking_tokens=_tokens(_thinking_chars(messages[open_start:])),
        largest_chain_share_pct=_largest_chain_share(messages, open_start),
        frontier_gap_tokens=_frontier_gap_tokens(messages, frontier, is_summarized, is_protected),
    )


def status_block(metrics: ContextMetrics | None, rearmed: bool) -> list[str]:
    """The `--- context ---` lines of `/pruner status` (none when metrics are unavailable), then
    a line saying so when a reload found tool output not summarized yet (it is not in the pending count);
    that line does not depend on the metrics."""
    lines = []
    if metrics is not None:
        lines += [
            "--- context ---",
            f"thinking:     {format_compact_count(metrics.open_cycle_thinking_tokens)} tokens (open segment)",
            f"chain share:  {metrics.largest_chain_share_pct}%",
            f"frontier gap: {format_compact_count(metrics.frontier_gap_tokens)} tokens",
        ]
    if rearmed:
        lines.append(REARMED)
    return lines
