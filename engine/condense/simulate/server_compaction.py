"""Server-side compaction as Anthropic (`compact_20260112`) and OpenAI (Responses `compact_threshold`)
document it.

The client enables it per request (`context_management.edits: [{"type": "compact_20260112"}]`, the
`compact-2026-01-12` beta). When a request's input passes the trigger (default 150,000 tokens, at
least 50,000), the API first samples a summary of the whole conversation, returns it as a compaction
block in the reply, and answers from the compacted context; every later request drops what came
before that block. So past the trigger the context becomes: the system prompt, the summary, and what
came after it.

What it costs, as modelled here: the summarising step reads the request's own prompt, so it is priced
on the main request stream's cache (the prefix the previous request wrote is read, the rest written),
plus the summary as output; then the answer is sent with the compacted context, which rewrites the
prompt after the system prompt. The summary is extractive (a line per folded message, the previous
summary first) cut to the length of the summaries Pi's model wrote (`COMPACTION_SUMMARY_CHARS`), as
for the other compaction baselines. Nothing folded can be asked back.

OpenAI's Responses API does the same when a request sets `context_management` with a
`compact_threshold`: once the rendered input crosses it, the server compacts within that response and
returns an opaque compaction item; the documentation says everything before the newest item may be
dropped from later input, so the later context is the same shape. Its documentation sets no default
threshold and no minimum; `openai_compaction` uses 80% of the model's window, the share Codex-style
clients configure (`model_auto_compact_token_limit`), and the item's size (opaque, encrypted) is modelled
as the same summary length.
"""

from __future__ import annotations

from typing import Any

from condense.simulate.baselines import Compaction, extractive_compaction
from condense.simulate.prompt import Meter

COMPACT_TRIGGER_TOKENS = 150_000
COMPACT_MIN_TRIGGER_TOKENS = 50_000
OPENAI_THRESHOLD_SHARE = 0.8


class ServerCompaction:
    """The compacted view over a growing history; `context` is what a request carries."""

    server_side = True  # its summary is sampled on the request itself, not by a separate summariser call

    def __init__(self, meter: Meter, trigger: int = COMPACT_TRIGGER_TOKENS,
                 minimum: int = COMPACT_MIN_TRIGGER_TOKENS) -> None:
        if trigger < minimum:
            raise ValueError(f"compaction trigger {trigger}: the provider's minimum is {minimum}")
        self.meter = meter
        self.trigger = trigger
        self.summary: dict[str, Any] | None = None
        self.first_kept = 0

    def context(self, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = history[self.first_kept:]
        return kept if self.summary is None else [self.summary, *kept]

    def maybe_compact(self, history: list[dict[str, Any]], time_ms: int) -> Compaction | None:
        """Before a request over the trigger: everything it would carry becomes one summary."""
        context = self.context(history)
        if self.meter.tokens(context) <= self.trigger:
            return None
        folded = history[self.first_kept:]
        previous = self.summary["summary"] if self.summary is not None else None
        text = extractive_compaction(previous, folded)
        self.summary = {"role": "compactionSummary", "summary": text,
                        "tokensBefore": round(self.meter.tokens(context)), "timestamp": time_ms}
        self.first_kept = len(history)
        return Compaction(context, text)


def openai_compaction(meter: Meter, window: int) -> ServerCompaction:
    """OpenAI's Responses compaction with the threshold a client sets for a model of this window."""
    return ServerCompaction(meter, trigger=round(window * OPENAI_THRESHOLD_SHARE), minimum=0)
