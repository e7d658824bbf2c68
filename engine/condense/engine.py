"""The engine: condense's answer to each agent event, and the `/pruner` command.

Everything it knows lives in the session (index, summaries, aliases, frontier, stats), so every
`session_start` and `session_tree` rebuilds it from the branch; in memory there is only what a
restart may lose without harm (the pending queue, the budget trigger's last fraction, counters).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, cast

from condense.branch_switch import Held, carry_over
from condense.budget import BudgetLevel, compaction_limit, should_delta_flush, usage_fraction
from condense.capture import capture_batch, records_for_keys, turn_records, without_protected
from condense.chains import (
    BranchMessages,
    ChainDetector,
    ChainPhase,
    ChainRange,
    ChainRegistry,
    compress_eligible,
    with_closing_message,
)
from condense.chains.derive import ChainOutputs, complete_entries
from condense.chains.model import newest_message_time
from condense.chains.select import is_candidate
from condense.config import CondenseConfig
from condense.diagnostics import DiagnosticSink, status_suffix
from condense.entry_log import MemoryLog
from condense.figure import ContextFigure
from condense.flush import BatchFilter, Flusher, FlushResult, FlushTrigger, Progress
from condense.fold import FOLD, HistoryFold, reconstruct_folds
from condense.frontier import reconstruct as reconstruct_frontier
from condense.frontier import trim_batch
from condense.host import CompactingHost, ContextUsage, Host
from condense.index import ToolCallIndexer
from condense.local_host import LocalHost
from condense.measure import estimate_from_chars, model_chars
from condense.messages import AgentMessage, ToolResultMessage, tool_calls
from condense.metrics import REARMED, ContextMetrics, MetricsScan, compute_context_metrics
from condense.occurrence import Numbering, message_key, originals
from condense.paging import FIRST_PAGE, Page
from condense.plural import counted
from condense.protect import is_protected
from condense.query import QUERY_TOOL_DESCRIPTION, QUERY_TOOL_LABEL, QUERY_TOOL_NAME, QUERY_TOOL_PARAMETERS, run_query
from condense.record_bursts import RecordWriter, entry_reader
from condense.records import FLUSH_METRICS, SUMMARY, Batch, SummaryRef
from condense.render.args_purge import ArgsPurgeMemo
from condense.render.orphans import sweep_dedup_key, sweep_detail
from condense.render.pipeline import IncrementalRender, RenderOptions, prune_messages
from condense.render.stub import StubMemo
from condense.spill import spill_oversized_batch, spill_record
from condense.stats import PruneStats, Reclaim, status_line, status_text
from condense.summarize import Summarizer, SummaryHook
from condense.supersede import without_keys

log = logging.getLogger("condense")

STATUS_KEY = "condense"
ConfigSaver = Callable[[dict[str, Any]], bool]
"""Where a change a user asks for goes when the engine's config is kept by its host (pi-tui's settings): the
fields it alters, as `model_dump` gives them. The host saves them and hands the engine its new config
through `set_config`; False when they could not be saved (the host has said why)."""


def _last_reply(messages: Sequence[object]) -> int | None:
    """Where the newest reply the host reckons its context from (no error, no abort) sits in `messages`."""
    for position in range(len(messages) - 1, -1, -1):
        message = messages[position]
        if (isinstance(message, dict) and message.get("role") == "assistant"
                and message.get("stopReason") not in ("error", "aborted")):
            return position
    return None


def _ends_with_prompt(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the request of `messages` ends with a user's prompt (a failed reply to it left aside)."""
    for message in reversed(messages):
        if message.get("role") == "assistant" and message.get("stopReason") in ("error", "aborted"):
            continue
        return bool(message.get("role") == "user")
    return False


def _entry_messages(branch: list[dict[str, Any]]) -> list[Any]:
    """The message of each `message` entry of `branch`, None for any other entry (positions kept)."""
    return [entry.get("message") if entry.get("type") == "message" else None for entry in branch]


@dataclass
class _Cancel:
    aborted: bool = False


class CondenseEngine:
    """condense itself: answers the agent's events (`on_*`), renders each request, runs the recovery
    tool. Drive it through a Host; `condense.facade` does that for agents that only hold messages."""

    def __init__(self, host: Host, config: CondenseConfig, save_config: ConfigSaver | None = None, *,
                 batch_filter: BatchFilter | None = None, on_summary: SummaryHook | None = None) -> None:
        """`batch_filter` and `on_summary` are a simulation's hooks (`pi-tui whatif`): which batches may
        flush, and a look at every summary's prompt and text. The live agent passes neither."""
        self.host = host
        self.config = config
        self._save_config = save_config
        self.index = ToolCallIndexer(copies=config.index_copies, branch=host.branch)
        self.records = RecordWriter(host, lambda: not self.config.index_copies)
        self.stats = PruneStats()
        self.diagnostics = DiagnosticSink(host.append_entry)
        self.summarizer = Summarizer(host, config, on_summary=on_summary)
        self.flusher = Flusher(host, self.records, self.index, self.summarizer, self.stats, lambda: self.config,
                               batch_filter)
        self.chains = ChainRegistry()
        self.pending: list[Batch] = []
        self.flushing = False
        self.rearmed = False
        self.previous_fraction: float | None = None
        self._budget = BudgetLevel()  # the level trigger, with its hysteresis
        self._cancel = _Cancel()
        self._reclaim_version: tuple[int, int] | None = None
        self._stub_memo = StubMemo()
        self._renderer = IncrementalRender()
        self.history_fold = HistoryFold()
        self._fold_saving = 0  # characters the fold in force keeps out of the last render
        self._fold_key: tuple[int, ...] | None = None  # what `_fold_saving` was measured for
        self._options: tuple[object, RenderOptions] | None = None
        self._metrics = MetricsScan()  # the branch as measured for the last flush's metrics
        self._chain_detector = ChainDetector()
        self._branch = BranchMessages()  # the branch's messages as of the last compression
        self._whole = BranchMessages()  # and the whole branch's, a compaction's cut or not (`ChainOutputs`)
        self._settled: tuple[int, ChainRange | None, int] = (0, None, 0)  # the chains `_unsettled` passes over
        self._config_version = 0
        self._args_memo = ArgsPurgeMemo()
        self._last_input: list[AgentMessage] | None = None  # the last request's messages, measured again after a flush
        self._numbering = Numbering()  # the results repeating an id and time, as numbered copies (condense.occurrence)
        self._unread: list[set[str]] = []  # result keys of the newest tool turns, newest last (`keep_recent`)
        self._last_request_ms: int | None = None  # when the last request was sent; None: none since loading
        self._unsent = False  # the newest tool turn's results came after the last request: no model read them
        self.found_pending: frozenset[str] = frozenset()  # outputs a reload found pending: while `rearmed`
        self.figure = ContextFigure(self.stats)
        self.check_renders = os.environ.get("CONDENSE_CHECK_RENDERS") == "1"

    # ----- protection -------------------------------------------------------------------------

    def is_protected(self, tool_name: str, args: dict[str, Any]) -> bool:
        return is_protected(tool_name, args, self.config.protected_tools, self.config.protected_paths)

    # ----- session lifecycle ------------------------------------------------------------------

    def rebuild(self) -> None:
        """Rebuild every piece of state from the branch (session start, reload, `/tree`)."""
        self.records.settle()
        branch, read = self.host.branch(), entry_reader(self.host)
        self.index.rebuild(branch, ChainOutputs(branch), read)
        self._repair_unindexed_summaries(branch)
        self.stats.reconstruct(branch)
        self.flusher.frontier = reconstruct_frontier(branch)
        self.history_fold.reset(reconstruct_folds(branch, read))
        self.index.register_summary_refs(ref for fold in self.history_fold.folds for raw in fold.refs
                                         if (ref := SummaryRef.from_json(raw)) is not None)
        # after every ref is known: a compact chain entry's body names its outputs by ref
        self.chains.rebuild(branch, lambda entries: complete_entries(entries, branch, self.index), read)
        self._fold_saving, self._fold_key = 0, None
        self.diagnostics.reset()
        self.pending = []
        self.previous_fraction = None
        self._budget = BudgetLevel()
        self._reclaim_version = None
        self._stub_memo = StubMemo()  # the index was rebuilt: no decision carries over
        self._renderer = IncrementalRender()
        self._chain_detector = ChainDetector()
        self._branch = BranchMessages()
        self._whole = BranchMessages()
        self._settled = (0, None, 0)
        self._last_input = None
        self._numbering = Numbering()
        self.figure.reset()
        self.rearmed = self._probe_rearm()
        self.update_status()

    def _repair_unindexed_summaries(self, branch: list[dict[str, Any]]) -> None:
        """Finish a flush a crash cut short. A summary is the commit point of its batch: once it is on the
        branch, the index records it promises are rebuilt from the branch and persisted, instead of the
        batch being summarised a second time."""
        promised: set[str] = set()
        for entry in branch:
            if entry.get("type") == "custom_message" and entry.get("customType") == SUMMARY:
                details = entry.get("details") or {}
                refs = details.get("toolCallRefs") if isinstance(details, dict) else None
                for raw in refs if isinstance(refs, list) else []:
                    ref = SummaryRef.from_json(raw) if isinstance(raw, dict) else None
                    if ref is not None and ref.key not in self.index:
                        promised.add(ref.key)
        records = records_for_keys(branch, promised) if promised else []
        if records:
            try:
                with self.records.burst():
                    self.index.add_batch(records, self.records.append)
            except Exception as exc:
                log.exception("pruner: could not repair an interrupted flush: %s", exc)

    def on_session_start(self) -> None:
        self.summarizer.reset()
        self.rebuild()
        self._measure_loaded()

    async def on_session_tree(self, left: str | None = None) -> None:
        """Another branch (`/tree`): rebuilt from it, after writing onto it what the branch left behind
        did for the outputs it holds (condense/branch_switch.py), so none is summarised a second time.
        `left`: the id of the leaf left behind (Pi's `oldLeafId`), where a host that reads entries by id
        (`EntryReader`) finds the records the new branch then names instead of copying."""
        held = Held(self.index.detached(), self.chains.entries(), list(self.history_fold.folds),
                    self.flusher.frontier, left)
        spent = self.stats.session_delta()
        self.rebuild()
        try:
            with self.records.burst():
                carried = await carry_over(held, self.index, self.chains.entries(), self.history_fold.folds,
                                           self.flusher.frontier, self.records)
        except Exception as exc:  # what was written is whole; the rest is summarised again when due
            log.exception("pruner: could not keep the work of the branch left behind: %s", exc)
            carried = 1
        if carried:
            self.rebuild()
        self.stats.keep_spent(spent)
        self._measure_loaded()

    def _measure_loaded(self) -> None:
        """A branch just (re)loaded: measure it, so the figures show at once, and find the saving its last
        reply's usage (the host's context figure) already had. That reply's request saw only the branch
        before it: what a flush after it took out (the final reply's own flush, `/pruner now` before
        quitting) is not in the figure yet, and the next flush must not be taken as counted in it."""
        if not self.config.enabled:
            return
        branch, messages = self.host.branch(), self.host.context_messages()
        self._measure_quietly(messages)
        cut, reply = _last_reply(_entry_messages(branch)), _last_reply(messages)
        if cut is None or reply is None:  # no reply: the host estimates the whole conversation, unpruned
            self.figure.count(0)
        elif any(entry.get("type") in ("custom", "custom_message") for entry in branch[cut:]):
            earlier = self._measured(branch[:cut], messages[:reply])
            self.figure.count(earlier.saved_tokens if earlier is not None else 0)
        else:  # nothing of ours came after the reply: its request had what we have now
            self.figure.count()
        self.update_status()

    def _measure_quietly(self, messages: list[AgentMessage]) -> None:
        """The saving a request of `messages` would have now, from a full render that reports nothing:
        opening a session writes nothing (a render's diagnostics are a request's to report)."""
        rendered = self.history_fold.apply(self._render_quietly(self._numbering.of(messages)))
        self.stats.set_live_reclaim(model_chars(messages), model_chars(rendered))

    def _render_quietly(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """A full render that reports nothing (no diagnostics, no orphan notices) and keeps no state."""
        options = self._render_options()
        quiet = replace(options, memo=None, report_orphans=lambda swept: None,
                        chains=None if options.chains is None else self._chain_phase(None))
        return prune_messages(messages, self.index, quiet)

    def _measured(self, branch: list[dict[str, Any]], messages: list[AgentMessage]) -> Reclaim | None:
        """What a request of `messages` would have left out when the session held only `branch` (an
        earlier point of it), measured by an engine loaded with that branch alone, in memory."""
        memory = MemoryLog(cwd=None)
        memory.entries = list(branch)
        engine = CondenseEngine(LocalHost(memory), self.config)
        engine.rebuild()
        engine.render(messages)
        return engine.stats.live_reclaim()

    def _probe_rearm(self) -> bool:
        """Work left pending by a reload must still be able to trigger a flush without new results."""
        self.found_pending = frozenset()
        if not self.config.enabled:
            return False
        try:
            found = self.flusher.collect(self.is_protected)
        except Exception as exc:
            log.exception("pruner: reload rearm probe failed: %s", exc)
            return False
        self.found_pending = frozenset(record.key for batch in found for record in batch.tool_calls)
        return bool(found)

    # ----- live capture and triggers ----------------------------------------------------------

    def _context(self) -> list[AgentMessage]:
        """The host's context messages, each repeated result as its numbered copy."""
        return self._numbering.of(self.host.context_messages())

    def _numbered(self, results: Sequence[ToolResultMessage]) -> list[ToolResultMessage]:
        """A turn's results as the context numbers them (they are in it by now)."""
        self._context()
        copies = {id(source): copy for source, copy in self._numbering.copies.values()}
        return [cast(ToolResultMessage, copies.get(id(result), result)) for result in results]

    def _capture(self, message: AgentMessage, results: Sequence[ToolResultMessage], turn_index: int) -> bool:
        stamp = message.get("timestamp")
        batch: Batch | None = capture_batch(message, results, turn_index, stamp if isinstance(stamp, int) else 0)
        batch = without_protected(batch, self.is_protected) if batch else None
        if batch is None:
            return False
        blobs = self.host.blobs_dir()
        if blobs is not None:
            with self.records.burst():
                handled = spill_oversized_batch(batch, self.index, threshold=self.config.spill_threshold,
                                                preview_bytes=self.config.spill_preview_bytes,
                                                dedup=self.config.dedup_by_content_hash, blobs_dir=blobs,
                                                append=self.records.append)
            batch.tool_calls = [r for r in batch.tool_calls if r.key not in handled]
        trimmed = trim_batch(batch, self.flusher.frontier, self.index.is_summarized) if batch.tool_calls else None
        if trimmed is None:
            return False
        self.pending.append(trimmed)
        self.update_status()
        return True

    async def on_turn_end(self, message: AgentMessage, results: Sequence[ToolResultMessage], turn_index: int) -> None:
        if not self.config.enabled or (not results and not self.rearmed):
            return
        results = self._numbered(results)
        pushed = self._capture(message, results, turn_index) if results else False
        if results:
            self._note_unread(results)
        if not pushed and not self.rearmed:
            return
        usage = self.host.context_usage()
        budget_hit = self._budget.due(usage, self.config.auto_budget_threshold)
        delta_hit = should_delta_flush(usage, self.previous_fraction, self.config.budget_turn_delta)
        fraction = usage_fraction(usage)
        if fraction is not None:
            self.previous_fraction = fraction
        keep = self._unread_keys()
        if (self._pending_beyond(keep) or self.rearmed) and not self.flushing and (budget_hit or delta_hit):
            trigger: FlushTrigger = "rearmed" if not self.pending else "budget" if budget_hit else "delta"
            self.host.notify(f"pruner: context {'budget reached' if budget_hit else 'jumped this turn'}"
                             " — summarizing pending tool work", "info")
            await self.flush(trigger, keep=keep)
            if budget_hit:
                self._budget.flushed(usage, self.config.auto_budget_threshold, self.rendered_tokens())

    async def before_request(self, now_ms: int) -> None:
        """The agent is about to send a request at `now_ms`: flush if the cache is cold anyway, then fall
        back to the host's compaction if even the pruned request would not fit the window."""
        await self._flush_if_cold(now_ms)
        await self._compact_if_too_long()

    async def _compact_if_too_long(self) -> None:
        """Past the point where even the pruned request no longer fits the model's window (less the
        reserve for the reply: `compaction_limit`), pruning cannot help: Pi's compaction, where the host
        offers it, said in one line. Hosts without it (replay, whatif, the library) send the request as it is."""
        if not self.config.enabled or not isinstance(self.host, CompactingHost):
            return
        usage = self.host.context_usage()  # the last request as the provider counted it, and what came since
        if usage is None or usage.tokens is None or usage.tokens <= compaction_limit(usage):
            return
        self.render(self._context())
        tokens = self.rendered_tokens()
        if tokens > compaction_limit(usage):
            reply = usage.context_window - compaction_limit(usage)
            self.host.notify(f"pruner: even pruned, the next request ({tokens:,} tokens) does not fit the"
                             f" {usage.context_window:,}-token window with {reply:,} kept for the reply:"
                             " trying Pi's compaction", "warning")
            await self.host.compact()

    async def _flush_if_cold(self, now_ms: int) -> None:
        """When the provider's cache is cold anyway (the previous request is older than `cold_cache_ms`,
        or none was sent since the session opened: a resumed session), pending work is flushed first: the
        request rewrites the whole prompt either way, so the flush costs no extra rewrite, and a resumed
        session over the budget is not sent whole."""
        last, self._last_request_ms = self._last_request_ms, now_ms
        window = self.config.cold_cache_ms
        if not self.config.enabled or not window or self.flushing or (last is not None and now_ms - last < window):
            self._unsent = False
            return
        keep = frozenset(self._unread[-1]) if self._unread and self._unsent else frozenset()
        self._unsent = False
        if last is None:
            keep |= self._trailing_results()
        if self._pending_beyond(keep) or self.rearmed:
            await self.flush("cold-cache", keep=keep)
        else:
            self._maybe_fold()

    def _trailing_results(self) -> frozenset[str]:
        """The results after a loaded branch's last assistant message: no model has read them yet."""
        keys = set()
        for message in reversed(self._context()):
            if message.get("role") == "assistant":
                break
            if message.get("role") == "toolResult":
                keys.add(message_key(message))
        return frozenset(keys)

    def _note_unread(self, results: Sequence[ToolResultMessage]) -> None:
        self._unread.append({message_key(result) for result in results})
        self._unsent = True
        del self._unread[:-self.config.keep_recent or len(self._unread)]

    def _unread_keys(self) -> frozenset[str]:
        """The outputs a budget flush must leave alone: those of the newest `keep_recent` tool turns, which
        no request has carried to the model yet (or only one it answered with more calls)."""
        recent = self._unread[-self.config.keep_recent:] if self.config.keep_recent else []
        return frozenset(key for keys in recent for key in keys)

    def _pending_beyond(self, keep: frozenset[str]) -> bool:
        return any(record.key not in keep for batch in self.pending for record in batch.tool_calls)

    async def on_message_end(self, message: AgentMessage) -> None:
        """The final reply of a run closes the batch: flush (agent-message mode)."""
        if message.get("role") == "assistant" and message.get("stopReason") not in ("error", "aborted"):
            self._note_reply()
        if not self.config.enabled or self.config.prune_on != "agent-message":
            return
        if message.get("role") != "assistant" or tool_calls(message):
            return
        if message.get("stopReason") in ("error", "aborted"):
            return
        if self.config.min_flush_chars and not self._enough_pending(self.config.min_flush_chars):
            return  # the work stays pending; the budget triggers still apply
        await self.flush("message-end", closing=message)

    def _enough_pending(self, minimum: int) -> bool:
        """Do the outputs a flush would summarise now hold at least `minimum` characters?"""
        return sum(batch.raw_chars for batch in self.flusher.collect(self.is_protected)) >= minimum

    def on_agent_end(self) -> None:
        self.update_status()

    # ----- flushing ---------------------------------------------------------------------------

    def abort(self) -> None:
        """Abandon a running flush (Esc): unfinished batches stay pending, nothing half-written."""
        self._cancel.aborted = True

    async def flush(self, trigger: FlushTrigger, sequential: bool = False, progress: Progress | None = None,
                    closing: AgentMessage | None = None, keep: frozenset[str] = frozenset()) -> FlushResult:
        """`keep`: occurrence keys this flush leaves pending (the budget triggers' unread outputs). Its
        records are written as one burst (`condense.record_bursts`), summaries between them."""
        if self.flushing:
            return FlushResult("already-flushing")
        with self.records.burst():
            return await self._flush(trigger, sequential, progress, closing, keep)

    async def _flush(self, trigger: FlushTrigger, sequential: bool, progress: Progress | None,
                     closing: AgentMessage | None, keep: frozenset[str]) -> FlushResult:
        self.rearmed = False
        self.flushing = True
        self._cancel = _Cancel()
        result = FlushResult("error")
        try:
            batches = without_keys(self.flusher.collect(self.is_protected), set(keep))
            self.index.reserve_refs(record.key for batch in batches for record in batch.tool_calls)
            batches = self.flusher.supersede(batches, self.is_protected)
            unread = [batch for batch in self.pending if any(record.key in keep for record in batch.tool_calls)]
            self.pending = []
            counter = _SummaryCount(self, progress)
            result, restore = await self.flusher.run(batches, self._cancel, sequential, counter.heard, counter.start)
            self.pending = [*restore, *unread]
            chains = self.config.chain_compression
            if result.processed and chains.enabled:
                await self.compress(chains.rolling_window, closing)
            if result.processed:
                self._maybe_fold()
            if result.halted:
                held = counted(len(restore), "batch")
                self.host.notify(f"pruner: summarization stopped: {result.halted.rstrip('.')}. The tool work"
                                 f" stays pending ({held}) for the next flush", "error")
            elif result.outcome == "summarizer-failed":
                self.host.notify("pruner: no usable summary came back; the tool work stays pending for the"
                                 " next flush", "warning")
            for notice in result.notices:
                self.host.notify(notice, "info")
            return result
        except Exception as exc:
            log.exception("pruner: flush failed: %s", exc)
            self.host.notify(f"pruner: flush failed: {exc}", "error")
            return result
        finally:
            self.flushing = False
            if result.outcome != "empty":  # a flush with nothing to do changed nothing worth a record
                self._write_flush_metrics(trigger, result)
            self._measure_again()
            self.update_status()

    async def compress(self, keep: int, closing: AgentMessage | None = None) -> list[str]:
        """Compress closed chains beyond the `keep` most recent; returns the new block ids. Never raises:
        a chain that could not be written stays raw and is tried again next time."""
        entries = self.host.branch()
        cut = self.flusher.cut()  # a chain a compaction left out is no longer sent
        branch = self._branch.of(entries[cut.position:] if cut.position else entries)
        messages = with_closing_message(list(branch.messages), closing)
        # a closing reply not on the branch yet adds an assistant timestamp (not a user turn or a result)
        boundaries = branch.boundaries if len(messages) == len(branch.messages) else None
        blobs = self.host.blobs_dir()
        spill = (partial(spill_record, threshold=self.config.spill_threshold,
                         preview_bytes=self.config.spill_preview_bytes, blobs_dir=blobs) if blobs else None)
        fuse = self.summarizer if self.config.chain_compression.fuse_range_summary else None
        try:
            chains = self._unsettled(self._chain_detector.detect(messages, self.is_protected, self._config_version))
            with self.records.burst():
                result = await compress_eligible(
                    chains, keep, messages=messages, registry=self.chains,
                    index=self.index, append=self.records.append, compressed_at=newest_message_time(entries),
                    grace_keys=branch.ages.in_grace(self.config.recovery_grace_turns), fuser=fuse,
                    signal=self._cancel, spill=spill, diagnostics=self.diagnostics, stats=self.stats,
                    boundaries=boundaries, names_limit=self.config.summary_names,
                    outputs=ChainOutputs(entries, self._whole), min_chars=self.config.chain_compression.min_chars)
        except Exception as exc:
            log.exception("pruner: chain compression failed: %s", exc)
            return []
        ids = [entry.block_id for entry in result.entries]
        if ids:
            named = ", ".join(ids) if len(ids) <= 3 else f"{ids[0]} to {ids[-1]}"  # a toast, not a list
            self.host.notify(f"pruner: compressed {counted(len(ids), 'chain')} ({named})", "info")
        return ids

    def _unsettled(self, chains: list[ChainRange]) -> list[ChainRange]:
        """`chains` from the first one that may still be compressed: those before it are compressed, cut
        short, used no tool or are too small (`min_chars`), and stay so while that setting does (the
        registry only grows), so a flush looks at them no more."""
        count, last, minimum = self._settled
        if minimum != self.config.chain_compression.min_chars or not (0 < count <= len(chains)
                                                                      and chains[count - 1] == last):
            count, minimum = 0, self.config.chain_compression.min_chars
        while count < len(chains) and not is_candidate(chains[count], self.chains, minimum):
            count += 1
        self._settled = (count, chains[count - 1] if count else None, minimum)
        return chains[count:]

    async def compact(self) -> list[str]:
        """`/pruner compact`: every eligible chain, whatever the window and the enabled flag say."""
        return await self.compress(0)

    async def on_context_overflow(self, retried: bool) -> bool:
        """The provider refused the request as too long: flush and compress everything; True (retry once)
        only when that shrank the request, so an identical one is never sent again (the host compacts
        instead). With pruning off nothing is done: no summariser call the user turned off. Where the
        request ends with the user's prompt, only what adds no message is done (chains, stubs): a summary
        after the prompt would be the last thing the model reads."""
        if not self.config.enabled:
            return False
        if retried:
            self.host.notify("pruner: the conversation is still over the model's context window after pruning"
                             " everything; start a new session (/new) or go back to an earlier point (/tree)",
                             "error")
            return False
        before = self._request_tokens()
        if not _ends_with_prompt(self.host.context_messages()):
            await self.flush("overflow")
        await self.compact()
        return self._request_tokens() < before

    def _request_tokens(self) -> int:
        """Estimated tokens of the next request as pruning renders it now."""
        self.render(self.host.context_messages())
        return self.rendered_tokens()

    def _write_flush_metrics(self, trigger: FlushTrigger, result: FlushResult) -> None:
        branch = self.host.branch()
        metrics = compute_context_metrics(branch, self.flusher.frontier, self.index.is_summarized,
                                          self.is_protected, self._metrics, self.flusher.cut().turn)
        data = {"ts": newest_message_time(branch), "trigger": trigger, "capturedBatches": result.captured,
                "processedBatches": result.processed, "outcome": result.outcome, "metrics": metrics.to_json()}
        try:
            self.records.append(FLUSH_METRICS, data)
        except Exception as exc:
            log.exception("pruner: could not write flush metrics: %s", exc)

    def context_metrics(self) -> ContextMetrics:
        return compute_context_metrics(self.host.branch(), self.flusher.frontier, self.index.is_summarized,
                                       self.is_protected, self._metrics, self.flusher.cut().turn)

    # ----- rendering --------------------------------------------------------------------------

    def render(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """The `context` transform; the same list object when pruning is off or changes nothing. Each
        request renders only what changed since the previous one (`IncrementalRender`)."""
        if not self.config.enabled:
            return messages
        self._last_input = messages
        out = self._render_unfolded(self._numbering.of(messages))
        folded = self.history_fold.apply(out)
        self._count_fold_saving(out, folded)
        if folded is out and out is not messages:
            folded = list(out)  # the render's own list, or the numbering's: the next one changes it
        folded = originals(folded, self._numbering.copies)
        version = (len(self.index), len(self.history_fold.folds))
        if folded is not messages and self._reclaim_version != version:
            self._reclaim_version = version
            # what the model reads (text, thinking, arguments, results), counted as the history grows,
            # where serialising the whole unpruned context would cost seconds with a 10 MB output in it
            chars_in, chars_out = self._renderer.model_chars()
            self.stats.set_live_reclaim(chars_in, chars_out - self._fold_saving)
            self.figure.count_if_unknown()
            self.update_status()
        return folded

    def _count_fold_saving(self, out: list[AgentMessage], folded: list[AgentMessage]) -> None:
        """What the fold keeps out of this render, measured again only when what it folds may differ:
        another cut, another fold, or a flush or compression that re-rendered the folded stretch."""
        cut = len(out) - len(folded) + 1 if folded is not out else 0
        key = (cut, len(self.history_fold.folds), len(self.index.changed_keys), self.chains.version)
        if key != self._fold_key:
            self._fold_key = key
            # what it took out, less its block: the render's size less the folded one's, whose messages
            # past the block are the render's own, measured already
            self._fold_saving = self._renderer.model_chars()[1] - self._renderer.chars(folded) if cut else 0

    def _render_unfolded(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        options = self._render_options()
        key = (options.version, self.chains.version if options.chains is not None else None)
        out = self._renderer.render(messages, self.index, options, key, copy=False)
        return self._checked(messages, out, options) if self.check_renders else out

    @property
    def last_render_kind(self) -> str:
        """"incremental" (only new messages rendered), "refresh" (after a flush: only what it changed),
        or "full"."""
        return self._renderer.kind

    def rendered_tokens(self) -> int:
        """Estimated tokens of the last render (what the model reads, plus the system prompt)."""
        return estimate_from_chars(self._renderer.model_chars()[1] - self._fold_saving)

    def model_view(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """What the model reads of `messages` (any stretch of the context) with pruning as it stands:
        summaries and refs for the outputs pruned, compressed chains, the fold's block. A host's compaction
        summarises this, so its request is the size of the pruned conversation. A full render that reports
        nothing and keeps no state; `messages` itself with pruning off."""
        if not self.config.enabled:
            return messages
        numbering = Numbering()
        rendered = self.history_fold.apply(self._render_quietly(numbering.of(messages)))
        return originals(list(rendered), numbering.copies)

    def full_render(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """The reference render: every phase over every message, nothing reused from an earlier render."""
        if not self.config.enabled:
            return messages
        numbered = self._numbering.of(messages)
        full = self.history_fold.apply(prune_messages(numbered, self.index, replace(self._render_options(), memo=None)))
        return originals(list(full) if full is numbered and full is not messages else full, self._numbering.copies)

    def _checked(self, messages: list[AgentMessage], out: list[AgentMessage],
                 options: RenderOptions) -> list[AgentMessage]:
        """Debug mode (CONDENSE_CHECK_RENDERS=1): the incremental render against the full one; a
        difference is logged, and the full render is what the model gets."""
        full = prune_messages(messages, self.index, replace(options, memo=None))
        if json.dumps(full) != json.dumps(out):
            log.error("condense: the incremental render differs from the full render (%d messages)",
                      len(messages))
            self._renderer.reset()
            return full
        return out

    def _measure_again(self) -> None:
        """A flush changes what the next request will carry: measure it now, so the status line shows the
        new saving and the estimate of that request without waiting for it. The host's messages as of now,
        not the last request's input: a flush on the final reply compresses a chain that ends with that
        reply, which the last request never carried (rendering that input again would report the chain's
        range as unresolved); not the branch's messages either, which a compaction cut and which lack the
        summaries."""
        if not self.config.enabled:
            return
        if self._last_input is not None:
            self.render(self.host.context_messages())
        elif self.figure.known:  # measured on load, no request since: measure the same way
            self._measure_quietly(self.host.context_messages())

    def _note_reply(self) -> None:
        """A reply's usage (the host's context figure) already counts the saving its request had."""
        self.figure.count()
        self.update_status()

    def context_figure(self) -> ContextUsage | None:
        """The context usage a host shows (pi-tui's footer), from `condense.figure`: the host's own while
        its count holds the saving pruning has now, else the estimate of the next request; the host's
        own with pruning off."""
        usage = self.host.context_usage()
        return self.figure.shown(usage) if self.config.enabled else usage

    def _render_options(self) -> RenderOptions:
        """The options of a render, the same object while nothing they hold has changed."""
        state = (len(self.index.changed_keys), self.index.next_ref_number, self._config_version, self.chains.version,
                 self._stub_memo)
        if self._options is None or self._options[0] != state:
            self._options = (state, self._new_render_options())
        return self._options[1]

    def _new_render_options(self) -> RenderOptions:
        purge = self.config.purge_errors
        chains = self.config.chain_compression
        phase3 = self._chain_phase(self.diagnostics) if chains.enabled and len(self.chains) else None
        # every record, dedup alias and ref the index gained changes it (an alias adds no record)
        version = (len(self.index.changed_keys), self.index.next_ref_number, self._config_version)
        args_memo = self._args_memo if self.config.purge_summarized_args else None
        return RenderOptions(self.is_protected, self.config.recovery_grace_turns, purge.enabled,
                             purge.cooldown_turns, purge.min_arg_chars, self._report_orphans, phase3,
                             self._stub_memo, version, args_memo)

    def _chain_phase(self, diagnostics: DiagnosticSink | None) -> ChainPhase:
        strip = self.config.chain_compression.strip_final_assistant_thinking
        return ChainPhase(self.chains, self.index, strip, diagnostics)

    def _report_orphans(self, swept: list[str]) -> None:
        self.diagnostics.report("orphan-sweep", sweep_dedup_key(swept), sweep_detail(swept))

    # ----- status -----------------------------------------------------------------------------

    def status(self) -> str:
        reads = self.figure.status_reads(self.host.context_usage())
        return status_text(self.config.enabled, self.stats.live_reclaim(), self.diagnostics.counts(), reads)

    def update_status(self) -> None:
        if not self.config.show_prune_status_line:
            self.host.set_status(STATUS_KEY, None)
            return
        diag = status_suffix(self.diagnostics.counts())  # shown in every state while a counter is non-zero
        if self.config.enabled and self.pending and not self.flushing:
            self.host.set_status(STATUS_KEY, status_line(f"prune: {len(self.pending)} pending{diag}"))
            return
        if self.config.enabled and self.rearmed and not self.pending:  # found on load, none captured since
            self.host.set_status(STATUS_KEY, status_line(f"prune: ON · {REARMED}{diag}"))
            return
        self.host.set_status(STATUS_KEY, status_line(self.status()))

    # ----- the recovery tool ------------------------------------------------------------------

    tool_name = QUERY_TOOL_NAME
    tool_label = QUERY_TOOL_LABEL
    tool_description = QUERY_TOOL_DESCRIPTION
    tool_parameters = QUERY_TOOL_PARAMETERS

    def query(self, tool_call_ids: list[str], page: Page = FIRST_PAGE) -> tuple[str, dict[str, Any]]:
        return run_query(self.index, tool_call_ids, self.host.blobs_dir(), self.folded_transcript, page)

    def folded_transcript(self, ref: str) -> str | None:
        """The stretch fold `ref` took out of view, as a transcript; None when no fold of the branch has it."""
        return self.history_fold.transcript(ref, self._context())

    # ----- folding ----------------------------------------------------------------------------

    def _maybe_fold(self) -> None:
        """Fold the oldest requests out of view when enough has gathered before the newest
        `fold_keep_turns` (see `condense.fold`); called only where the prompt is rewritten anyway. The
        outputs no flush indexed are indexed first, so each stays recoverable by its id. Never raises."""
        config = self.config
        if not config.enabled or not config.fold_keep_turns:
            return
        try:
            inputs = self._context()
            # rendered as `_measure_again` renders them: the next request's way once one was sent
            out = self._render_unfolded(inputs) if self._last_input is not None else self._render_quietly(inputs)
            plan = self.history_fold.plan(inputs, out, config.fold_keep_turns, config.fold_min_chars,
                                          self.is_protected, self._renderer.chars, self._config_version)
            if plan is None:
                return
            keys = {message_key(m) for m in plan.folded_inputs if m.get("role") == "toolResult"}
            wanted = {key for key in keys if not self.index.is_summarized(key)}
            records = turn_records(self.flusher.turns(plan.folded_inputs), wanted)
            if len(records) < len(wanted):  # a host whose messages are not its entries' own objects
                records = turn_records(self.flusher.turns(), wanted)
            refs = self.index.allocate_summary_refs(records)
            with self.records.burst():
                self.index.add_batch(records, self.records.append)
                self.index.register_summary_refs(refs)
                fold = plan.fold(self.index.get_short_ref, [ref.to_json() for ref in refs])
                self.records.append(FOLD, fold.to_json(self.index.copies))
        except Exception as exc:
            log.exception("pruner: folding history failed: %s", exc)
            return
        self.history_fold.add(fold)
        self.host.notify(f"pruner: folded the first {counted(fold.folded, 'request')} out of view ({fold.ref})", "info")

    # ----- settings ---------------------------------------------------------------------------

    def set_config(self, config: CondenseConfig) -> None:
        """Use `config` from now on."""
        self.config = config
        self._config_version += 1
        self.summarizer.config = config
        self.index.copies = config.index_copies
        self.update_status()

    def configure(self, config: CondenseConfig) -> bool:
        """A change a user asked for (`/pruner off`): taken at once, or, when the host keeps the config
        (`save_config`), saved there first, so the host's settings, the file and this engine never
        disagree. False when the host could not save it (it has said why); nothing changed then."""
        if self._save_config is None:
            self.set_config(config)
            return True
        old = self.config.model_dump()
        changes = {key: value for key, value in config.model_dump().items() if value != old[key]}
        return not changes or self._save_config(changes)


class _SummaryCount:
    """A flush's progress, passed on, and the status line saying how far it got (`summarizing 12/228…`):
    the first request of a long session resumed with work pending waits on hundreds of summaries."""

    def __init__(self, engine: CondenseEngine, progress: Progress | None) -> None:
        self._engine, self._progress = engine, progress
        self._done = self._total = 0

    def start(self, total: int) -> None:
        self._total = total
        if total:
            self._show()

    def heard(self, batch: int, state: str, chars: int) -> None:
        if state in ("done", "failed"):
            self._done += 1
            self._show()
        if self._progress is not None:
            self._progress(batch, state, chars)

    def _show(self) -> None:
        engine = self._engine
        diag = status_suffix(engine.diagnostics.counts())
        engine.host.set_status(STATUS_KEY, status_line(f"prune: summarizing {self._done}/{self._total}…{diag}"))
