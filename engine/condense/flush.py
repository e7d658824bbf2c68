"""The flush: captured batches -> dedup -> trivial skip -> summariser -> summaries delivered -> index.

Order matters for safety. A summary is persisted (and so is in the model's context) BEFORE the index
records that make its outputs render as stubs, so a crash or a failed write can leave a summary
without stubs (harmless: the raw outputs are still there) but never stubs without a summary. A batch
whose summary failed goes back to the pending queue, with every batch after it, for the next flush.
A flush the summariser halted (a missing or rejected key) keeps all its unsummarised batches pending
and carries the reason, so the engine says it once instead of once per batch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from condense.capture import Turn, TurnScan, capture_unindexed, group_batches
from condense.compaction_cut import CompactionCut, Cut
from condense.config import CondenseConfig
from condense.frontier import BatchOutcome, Frontier, trim_batch
from condense.host import CancelSignal, Host
from condense.index import INDEXED, ToolCallIndexer
from condense.plural import counted
from condense.record_bursts import RecordWriter
from condense.records import FRONTIER, STATS, SUMMARY, Batch, ToolCallRecord
from condense.stats import PruneStats
from condense.summarize import Summarizer, build_summary_content
from condense.supersede import SupersededReads, without_keys

log = logging.getLogger("condense")

Outcome = BatchOutcome | Literal["empty", "summarizer-failed", "already-flushing", "error"]
_PRECEDENCE: tuple[BatchOutcome, ...] = ("summarized", "skipped-oversized", "skipped-deduped", "skipped-trivial")

Progress = Callable[[int, str, int], None]  # (batch number, state, streamed chars)
BatchFilter = Callable[[Batch], bool]  # False keeps a batch out of every flush (a simulation's restriction)
FlushTrigger = Literal["manual", "message-end", "budget", "delta", "rearmed", "overflow", "cold-cache"]
"""Why a flush ran (recorded in its metrics entry): a command, the final reply, a budget trigger, work a
reload found pending, or a request the provider refused as too long."""


@dataclass
class FlushResult:
    """What a flush did: its outcome, batches captured and processed, summaries written, notices."""

    outcome: Outcome
    captured: int = 0
    processed: int = 0
    summarized: int = 0
    notices: list[str] = field(default_factory=list)
    halted: str | None = None  # the summariser stopped the flush early, and why


@dataclass
class _Work:
    batch: Batch
    kind: str  # summarize | trivial | deduped
    deduped: list[ToolCallRecord] = field(default_factory=list)


class Flusher:
    """Runs flushes for one engine. Besides the frontier it keeps only what it learnt of the branch (its
    turns, its superseded reads), so a flush in a long session walks what grew since the last one."""

    def __init__(self, host: Host, records: RecordWriter, index: ToolCallIndexer, summarizer: Summarizer,
                 stats: PruneStats, config_source: Callable[[], CondenseConfig],
                 batch_filter: BatchFilter | None = None) -> None:
        """`records`: where its records and summaries are written (the engine's, in bursts)."""
        self.host = host
        self.records = records
        self.index = index
        self.summarizer = summarizer
        self.stats = stats
        self._config = config_source
        self.frontier: Frontier | None = None
        self._turns = TurnScan()
        self._superseded = SupersededReads()
        self._cut = CompactionCut()
        self.trivial_skips = 0  # batches of the last flush too small to summarise: for /pruner status only
        self._batch_filter = batch_filter  # a simulation's restriction of what flushes

    # ----- collecting -------------------------------------------------------------------------

    def turns(self, messages: Iterable[Any] | None = None) -> list[Turn]:
        """The branch's tool-using turns (of these of its messages), walked only where it grew since."""
        turns = self._turns.of(self.host.branch())
        return turns if messages is None else self._turns.of_messages(messages)

    def cut(self) -> Cut:
        """Where the context starts on the branch: a compaction left out what comes before."""
        return self._cut.of(self.host.branch())

    def collect(self, is_protected: Callable[[str, dict[str, Any]], bool]) -> list[Batch]:
        """Everything pending on the branch past the frontier and the compaction's cut, grouped as the
        batching mode says."""
        start = self.frontier.last_attempted_turn_index if self.frontier is not None else 0
        start = max(start, self.cut().turn)
        batches = capture_unindexed(self.host.branch(), self.index.is_summarized, is_protected, start, self._turns)
        trimmed = [b for b in (trim_batch(batch, self.frontier, self.index.is_summarized) for batch in batches) if b]
        if self._batch_filter is not None:
            trimmed = [b for b in trimmed if self._batch_filter(b)]
        return group_batches(trimmed, self._config().batching_mode)

    def supersede(self, batches: list[Batch], is_protected: Callable[[str, dict[str, Any]], bool]) -> list[Batch]:
        """With `superseded_reads` on, index the branch's superseded reads (stubbed from now on, with no
        summary) and return `batches` without them. Only when there is work to flush: a flush rewrites
        the cached prompt anyway, an empty one must not. A failed write leaves everything as it was."""
        if not batches or not self._config().superseded_reads:
            return batches
        first = self.cut().turn  # a read the compaction left out is no longer sent: nothing to stub
        stale = [record for record in self._superseded.find(self._turns, self.host.branch(), self.host.cwd(),
                                                            self.index.is_summarized, is_protected)
                 if record.turn_index >= first]
        if not stale:
            return batches
        try:
            self.index.backfill_chain_records(stale, self.records.append, None)
        except Exception as exc:
            log.exception("pruner: could not index superseded reads: %s", exc)
            return batches
        return without_keys(batches, {record.key for record in stale})

    def _dedup(self, batch: Batch) -> _Work:
        config = self._config()
        if not config.dedup_by_content_hash:
            return self._classify(batch, [])
        kept: list[ToolCallRecord] = []
        deduped: list[ToolCallRecord] = []
        for record in batch.tool_calls:
            original = self.index.lookup_by_content(record.tool_name, record.result_text)
            if original is not None and original != record.key:
                self.index.register_duplicate(record.key, original, self.records.append)
                deduped.append(record)
            else:
                kept.append(record)
        remaining = Batch(batch.turn_index, batch.timestamp, batch.assistant_text, kept, batch.user_turn_group)
        return self._classify(remaining, deduped)

    def _classify(self, batch: Batch, deduped: list[ToolCallRecord]) -> _Work:
        minimum = self._config().min_batch_chars
        if deduped and not batch.tool_calls:
            return _Work(batch, "deduped", deduped)
        if minimum > 0 and batch.tool_calls and batch.raw_chars < minimum:
            return _Work(batch, "trivial", deduped)
        return _Work(batch, "summarize", deduped)

    # ----- delivering -------------------------------------------------------------------------

    async def _deliver(self, batch: Batch, llm_text: str) -> tuple[BatchOutcome, int]:
        """Persist one summary, then its index records. Returns (outcome, summary chars)."""
        refs = self.index.allocate_summary_refs(batch.tool_calls)
        names = [r.tool_name for r in batch.tool_calls]
        content = build_summary_content(llm_text, refs, batch.tool_calls, self._config().summary_names)
        if len(content) >= batch.raw_chars:  # ARCHITECTURE decision: >= skips
            return "skipped-oversized", len(content)
        details: dict[str, Any] = {"toolCallRefs": [r.to_json() for r in refs], "toolNames": names,
                                   "turnIndex": batch.turn_index, "timestamp": batch.timestamp}
        told = self.index.told_by_summary(batch.tool_calls)
        if told:
            details[INDEXED] = True
        await self.records.append_custom_message(SUMMARY, content, False, details)
        if told:
            self.index.add_told(batch.tool_calls, refs, original=True)
        else:
            self.index.add_batch(batch.tool_calls, self.records.append)
            self.index.register_summary_refs(refs)
        self.index.register_summary_body([r.key for r in batch.tool_calls], content)
        return "summarized", len(content)

    async def run(self, batches: list[Batch], signal: CancelSignal, sequential: bool = False,
                  progress: Progress | None = None, on_calls: Callable[[int], None] | None = None,
                  ) -> tuple[FlushResult, list[Batch]]:
        """Flush `batches`; returns the result and the batches to put back in the pending queue. `on_calls`
        hears how many of them go to the summariser (the others are repeats of outputs summarised before)."""
        result = FlushResult("empty", captured=len(batches))
        if not batches:
            return result, []
        work = [self._dedup(batch) for batch in batches]
        to_summarize = [w.batch for w in work if w.kind == "summarize"]
        if on_calls is not None:
            on_calls(len(to_summarize))
        batch_summaries = await self.summarizer.summarize_batches(to_summarize, signal, sequential=sequential,
                                                                  on_progress=progress)
        result.halted = batch_summaries.halted
        summaries = iter(batch_summaries.outcomes)
        outcomes: list[BatchOutcome] = []
        raw = summary_chars = calls = 0
        last: tuple[_Work, ToolCallRecord] | None = None
        for position, item in enumerate(work):
            if item.kind == "summarize":
                summary = next(summaries)
                if summary is None:
                    counts = (raw, summary_chars, calls)
                    return self._finish(result, outcomes, last, counts), [w.batch for w in work[position:]]
                self.stats.add_call(summary.usage)
                try:
                    outcome, chars = await self._deliver(item.batch, summary.text)
                except Exception as exc:  # a failed write: keep the rest for later, lose nothing
                    log.exception("pruner: could not persist a summary: %s", exc)
                    counts = (raw, summary_chars, calls)
                    return self._finish(result, outcomes, last, counts), [w.batch for w in work[position:]]
                summary_chars += chars
                if outcome == "summarized":
                    result.summarized += 1
            else:
                outcome = "skipped-trivial" if item.kind == "trivial" else "skipped-deduped"
            outcomes.append(outcome)
            raw += item.batch.raw_chars
            calls += len(item.batch.tool_calls) + len(item.deduped)
            tail = item.batch.tool_calls[-1] if item.batch.tool_calls else item.deduped[-1]
            last = (item, tail)
        return self._finish(result, outcomes, last, (raw, summary_chars, calls)), []

    def _finish(self, result: FlushResult, outcomes: list[BatchOutcome], last: tuple[_Work, ToolCallRecord] | None,
                counts: tuple[int, int, int]) -> FlushResult:
        raw, summary_chars, calls = counts
        result.processed = len(outcomes)
        if last is None:
            result.outcome = "summarizer-failed"
            return result
        outcome = next(o for o in _PRECEDENCE if o in outcomes)
        result.outcome = outcome
        item, record = last
        self.frontier = Frontier(
            last_attempted_tool_call_id=record.tool_call_id, last_attempted_tool_name=record.tool_name,
            last_attempted_turn_index=item.batch.turn_index, last_attempted_timestamp=record.timestamp,
            attempted_batch_count=len(outcomes), attempted_tool_call_count=calls,
            raw_char_count=raw, summary_char_count=summary_chars, outcome=outcome)
        self.records.append(FRONTIER, self.frontier.to_json())
        self.records.append(STATS, self.stats.to_json())
        self._notices(result, outcomes)
        return result

    def _notices(self, result: FlushResult, outcomes: list[BatchOutcome]) -> None:
        """Toasts for what a user may wonder about; batches too small to summarise are routine, and only
        `/pruner status` counts them."""
        self.trivial_skips = outcomes.count("skipped-trivial")
        if self._config().quiet_oversized_skips:
            return
        notable: tuple[tuple[BatchOutcome, str], ...] = (
            ("skipped-oversized", "a summary came out larger than its outputs: kept the outputs"),
            ("skipped-deduped", "outputs identical to earlier ones now point at those"))
        for outcome, text in notable:
            count = outcomes.count(outcome)
            if count:
                result.notices.append(f"pruner: {counted(count, 'batch')}: {text}")
