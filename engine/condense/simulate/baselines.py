"""The two pruning baselines condense is compared with, applied to a full history before each request.

- Observation masking (arXiv 2508.21433): the newest tool outputs stay, every older one becomes a
  one-line placeholder. Cheap, but each new output pushes another old one out, so the prompt changes
  a little way back on every request.
- Pi's compaction: when the context nears the window, everything but the most recent stretch is
  folded into one summary. Rare, but each one rewrites almost the whole prompt. The summary here is
  extractive (the first line of each folded message) so runs need no model; its size is that of the
  summaries Pi's model wrote in the corpus.

Both keep every object they hand out stable across requests (a masked copy is made once per
output), so the meter can recognise unchanged messages by identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from condense.budget import COMPACTION_RESERVE
from condense.simulate.prompt import Meter, message_text

MASK_KEEP_RESULTS = 10
COMPACTION_RESERVE_TOKENS = COMPACTION_RESERVE
COMPACTION_KEEP_RECENT_TOKENS = 20_000
# A model's compaction summary is about this long: the mean of the five that Pi's model wrote in the
# corpus sessions (3,649 to 6,982 characters). The extractive stand-in is cut to it, so the summary
# weighs in the context, and is priced, as a model's would.
COMPACTION_SUMMARY_CHARS = 4_800
COMPACTION_LINE_CHARS = 200


def mask_placeholder(message: dict[str, Any]) -> str:
    return f"[Output of {message.get('toolName')} omitted; call {message.get('toolCallId')}]"


class ObservationMasking:
    """Applied request after request to a growing history, it walks only the new messages: the result
    positions and the masked list of the previous call are kept while the history only grew."""

    def __init__(self, keep: int = MASK_KEEP_RESULTS) -> None:
        self.keep = keep
        self._masked: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}  # pins the original
        self._inputs: list[dict[str, Any]] = []
        self._results: list[int] = []  # positions of the tool results in `_inputs`
        self._out: list[dict[str, Any]] = []  # `_inputs` with all but the last `keep` results masked

    def _masked_copy(self, message: dict[str, Any]) -> dict[str, Any]:
        pinned = self._masked.get(id(message))
        if pinned is None:
            copy = {**message, "content": [{"type": "text", "text": mask_placeholder(message)}]}
            pinned = (message, copy)
            self._masked[id(message)] = pinned
        return pinned[1]

    def apply(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The context with all but the last `keep` tool results masked; the same list if none is."""
        grown = len(messages) >= len(self._inputs) and messages[:len(self._inputs)] == self._inputs
        start = len(self._inputs) if grown else 0
        if not grown:
            self._results, self._out = [], []
        masked_before = max(0, len(self._results) - self.keep)
        self._results += [i for i in range(start, len(messages)) if messages[i].get("role") == "toolResult"]
        self._inputs, self._out = list(messages), self._out + messages[start:]
        for position in self._results[masked_before:max(0, len(self._results) - self.keep)]:
            self._out[position] = self._masked_copy(messages[position])
        return list(self._out) if len(self._results) > self.keep else messages


@dataclass(frozen=True)
class Compaction:
    """One summary replacing older history. The summariser reads `folded` as messages, unless the
    strategy builds its prompt as text: then `prompt`, after `head_tokens` of fixed instructions."""

    folded: list[dict[str, Any]]  # what was folded: the previous summary, then the messages
    summary: str
    prompt: str | None = None
    head_tokens: float = 0.0


def _first_line(message: dict[str, Any]) -> str:
    body = message_text(message).split("\n", 1)
    lines = body[1].splitlines() if len(body) > 1 else []
    first = next((line.strip() for line in lines if line.strip()), "")
    return f"{message.get('role')}: {first}"[:COMPACTION_LINE_CHARS]


def extractive_compaction(previous: str | None, folded: Sequence[dict[str, Any]]) -> str:
    """The previous summary and a line per folded message; the newest `COMPACTION_SUMMARY_CHARS` kept."""
    lines = ([previous] if previous else []) + [_first_line(m) for m in folded]
    return "\n".join(lines)[-COMPACTION_SUMMARY_CHARS:]


PI_IMAGE_CHARS = 4_800


def pi_estimate(message: dict[str, Any]) -> float:
    """Pi's token estimate for a message (`estimateTokens`): its characters / 4, an image as 4,800."""
    text = message_text(message)
    return (len(text) + text.count("[image]") * (PI_IMAGE_CHARS - len("[image]"))) / 4


def keep_recent_cut(weights: Sequence[float | None], cuttable: Sequence[bool], start: int,
                    keep_recent: float) -> int:
    """Where Pi's compaction cuts (its `findCutPoint`), the one rule of the simulation and of pi-tui's
    `/compact`: walking back from the newest, the first index at which what is kept reaches `keep_recent`
    tokens by Pi's estimate, moved forward to the nearest index a cut may fall on (never a tool result,
    which stays with its call). With nothing that large, the first index a cut may fall on; with none,
    `start`. `weights` are Pi's estimates (`pi_estimate`), None for entries that are no message (they
    weigh nothing); only indexes from `start` on are considered."""
    points = [index for index in range(start, len(cuttable)) if cuttable[index]]
    if not points:
        return start
    kept = 0.0
    for index in range(len(weights) - 1, start - 1, -1):
        weight = weights[index]
        if weight is None:
            continue
        kept += weight
        if kept >= keep_recent:
            return next((point for point in points if point >= index), points[0])
    return points[0]


class PiCompaction:
    """Pi's compaction rule over a growing history; `context` is what a request carries."""

    def __init__(self, meter: Meter, context_window: int, reserve: int = COMPACTION_RESERVE_TOKENS,
                 keep_recent: int = COMPACTION_KEEP_RECENT_TOKENS) -> None:
        self.meter = meter
        self.threshold = context_window - reserve
        self.keep_recent = keep_recent
        self.summary: dict[str, Any] | None = None
        self.first_kept = 0

    def context(self, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = history[self.first_kept:]
        return kept if self.summary is None else [self.summary, *kept]

    def _cut(self, history: list[dict[str, Any]]) -> int | None:
        """First kept index as Pi finds it (`keep_recent_cut`); None when nothing could be folded."""
        weights = [pi_estimate(m) if i >= self.first_kept else None for i, m in enumerate(history)]
        cuttable = [m.get("role") != "toolResult" for m in history]
        index = keep_recent_cut(weights, cuttable, self.first_kept, self.keep_recent)
        return index if self.first_kept < index < len(history) else None

    def maybe_compact(self, history: list[dict[str, Any]], time_ms: int) -> Compaction | None:
        """Compact before a request whose context is over the threshold; returns what was folded."""
        context = self.context(history)
        if self.meter.tokens(context) <= self.threshold:
            return None
        cut = self._cut(history)
        if cut is None:
            return None
        folded = history[self.first_kept:cut]
        previous = self.summary["summary"] if self.summary is not None else None
        text = extractive_compaction(previous, folded)
        read = ([self.summary] if self.summary is not None else []) + folded
        self.summary = {"role": "compactionSummary", "summary": text,
                        "tokensBefore": round(self.meter.tokens(context)), "timestamp": time_ms}
        self.first_kept = cut
        return Compaction(read, text)
