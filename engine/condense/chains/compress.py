"""Deciding and persisting chain compressions (the rendering is `render.py`'s job).

For each chain beyond the rolling window: first every output the compression will drop and the
index lacks (a batch skipped as trivial, a capture miss) is indexed as it is, so all of them stay
recoverable by `tN` ref; then, if per-batch summaries cover the chain, the entry points at them
(with two or more, one summariser call fuses them into a single body); if none does, the chain gets a
mechanical body (`backfill.py`). Each decision is one `context-prune-chain` entry with a fresh block
id, written before memory changes: an entry that is in memory but not in the session would compress
now and silently come back after a restart.

pi-condense 2.9.1 indexes missing outputs only for chains with no summary at all; a partly covered
chain there loses the recoverability of its unsummarised outputs, which our "nothing is ever lost"
rule does not allow.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from condense.chains.backfill import extract_chain_records
from condense.chains.derive import ChainOutputs, chain_members, deterministic_text
from condense.chains.model import ChainEntry, ChainRange, ChainRegistry
from condense.chains.render import Boundaries, Reporter
from condense.chains.select import select_eligible
from condense.host import CancelSignal
from condense.index import Append, Spiller, Taken, ToolCallIndexer, told_by_chain
from condense.names import carried_names
from condense.records import CHAIN, STATS
from condense.stats import PruneStats
from condense.summarize import SummaryOutcome

log = logging.getLogger("condense")

SkipReason = Literal["no-summary", "already-compressed"]


class RangeFuser(Protocol):
    """What fusion needs of `condense.summarize.Summarizer`."""

    def summarize_range(
        self, summaries: Sequence[str], signal: CancelSignal,
        on_usage: Callable[[SummaryOutcome], None] | None = None,
    ) -> Awaitable[str | None]: ...


@dataclass(frozen=True)
class Skipped:
    start_user_timestamp: int
    reason: SkipReason


@dataclass
class CompressResult:
    entries: list[ChainEntry] = field(default_factory=list)  # the new entries, oldest chain first
    skipped: list[Skipped] = field(default_factory=list)


class _NotAborted:
    aborted = False


@dataclass
class _Job:
    messages: Sequence[dict[str, Any]]
    registry: ChainRegistry
    index: ToolCallIndexer
    append: Append
    compressed_at: int
    fuser: RangeFuser | None
    signal: CancelSignal
    spill: Spiller | None
    diagnostics: Reporter | None
    stats: PruneStats | None
    boundaries: Boundaries | None
    names_limit: int
    outputs: ChainOutputs | None
    held: Taken = field(default_factory=Taken)  # a chain's index entry, until its chain's is written
    told: tuple[str, ...] = ()  # the refs of `held`'s records, where the chain entry can stand for it


async def compress_eligible(
    chains: Sequence[ChainRange], k: int, *, messages: Sequence[dict[str, Any]], registry: ChainRegistry,
    index: ToolCallIndexer, append: Append, compressed_at: int, grace_keys: AbstractSet[str] = frozenset(),
    fuser: RangeFuser | None = None, signal: CancelSignal | None = None, spill: Spiller | None = None,
    diagnostics: Reporter | None = None, stats: PruneStats | None = None, boundaries: Boundaries | None = None,
    names_limit: int = 0, outputs: ChainOutputs | None = None, min_chars: int = 0,
) -> CompressResult:
    """Compress every eligible chain of `chains` (detected on `messages`, which must be the very list
    detection walked, closing message included). `fuser` None means no fusion. An append failure of
    a chain entry propagates; entries written before it stay written and registered. `boundaries`, when
    given, are those of `messages` (kept by the caller as the branch grows); `names_limit` is
    `summary_names` (`condense.names`). `outputs` (of the host's branch): where a compact chain entry can
    stand for the index entry of the outputs it indexes (`derive.py`); `append` must then hold what it
    takes until the burst ends (`RecordWriter`), as a chain's records are indexed before its entry is
    written. A chain with fewer than `min_chars` of calls and outputs stays raw (`select.is_candidate`)."""
    job = _Job(messages, registry, index, append, compressed_at, fuser, signal or _NotAborted(), spill,
               diagnostics, stats, boundaries, names_limit, None if index.copies else outputs)
    result = CompressResult(skipped=[
        Skipped(chain.start_user_timestamp, "already-compressed")
        for chain in chains if chain.closed and chain.start_user_timestamp in registry
    ])
    for chain in select_eligible(chains, registry, k, grace_keys, min_chars):
        entry: ChainEntry | None = None
        try:
            entry = await _decide(chain, job)
        finally:
            told = _settle(job, entry is not None)
        if entry is None:
            result.skipped.append(Skipped(chain.start_user_timestamp, "no-summary"))
            continue
        entry = replace(entry, backfilled_refs=told)
        append(CHAIN, entry.to_json(index.copies, compressed_at, registry.next_recorded()))
        registry.register(entry)
        result.entries.append(entry)
        if stats is not None:
            stats.add_chains_compressed(1)
    if result.entries and stats is not None:
        _persist_stats(append, stats)
    return result


async def _decide(chain: ChainRange, job: _Job) -> ChainEntry | None:
    keys = _archive(chain, job)
    if keys is None:
        return None
    summaries = job.index.summaries_covering(chain.lookup_keys)
    if not summaries:
        return _deterministic(chain, job, keys)
    fused = await _fuse(summaries, job) if len(summaries) >= 2 else None
    return _entry(chain, job, fused, None, _tool_refs(keys, job.index))


def _archive(chain: ChainRange, job: _Job) -> tuple[str, ...] | None:
    """Index the chain's unprotected outputs that the index lacks, in one backfilled
    `context-prune-index` entry written before the chain entry. Returns the keys of the chain's
    outputs, or None when that write failed: nothing was committed, and the chain stays raw. A retry
    after a failed chain entry finds the records already indexed and writes no second index entry.
    Where a rebuild finds those very outputs from the chain entry (`derive.ChainOutputs`), the index
    entry is held until the chain's is written, which then stands for it (`_settle`)."""
    fresh = extract_chain_records(job.messages, chain, job.index.__contains__, job.boundaries)
    if fresh:
        found = [] if job.outputs is None else job.outputs(_range_data(chain), job.index.__contains__)
        append = job.held if found == [record.key for record in fresh] else job.append
        try:
            refs = job.index.backfill_chain_records(fresh, append, job.spill)
        except Exception as error:
            log.warning("pruner: could not index chain %s for compression: %s",
                        chain.start_user_timestamp, error)
            return None
        job.told = tuple(ref.short_id for ref in refs) if told_by_chain(job.held) else ()
    return tuple(dict.fromkeys([*chain.lookup_keys, *(record.key for record in fresh)]))


def _range_data(chain: ChainRange) -> dict[str, Any]:
    """A chain entry's data as far as it names the chain's range (what `derive.ChainOutputs` reads)."""
    return ChainEntry("b0", chain.start_user_timestamp, (), chain.final_assistant_timestamp, (), 0,
                      protected_tool_call_ids=chain.protected_tool_call_ids).to_json(False)


def _settle(job: _Job, written: bool) -> tuple[str, ...]:
    """After a chain's decision: the refs its entry stands for, when it is to be written and can; else
    its held index entry is written now (before the chain's), on every way out."""
    told, held = job.told if written else (), job.held
    job.held, job.told = Taken(), ()
    if not told:
        for kind, data in held:
            job.append(kind, data)
    return told


async def _fuse(summaries: list[str], job: _Job) -> str | None:
    """One summary out of several; None on any failure (the renderer then joins the per-batch
    texts), because a failed fusion must never keep a chain from compressing."""
    if job.fuser is None:
        return None
    stats = job.stats
    on_usage = None if stats is None else (lambda outcome: stats.add_call(outcome.usage))
    try:
        text = await job.fuser.summarize_range(summaries, job.signal, on_usage=on_usage)
    except Exception as error:  # the summariser reports its own failures to the user
        log.warning("pruner: range fusion failed, keeping the per-batch summaries: %s", error)
        return None
    if not text or not text.strip():
        return None
    if stats is not None:
        stats.add_ranges_summarized(1)
    carried = [line for line in carried_names(summaries) if line not in text]
    return "\n".join([text.rstrip(), *carried]) if carried else text


def _deterministic(chain: ChainRange, job: _Job, keys: tuple[str, ...]) -> ChainEntry | None:
    """Describe a chain no summary covers from its indexed records. With none at all, the span did
    not resolve (or held nothing indexable): a diagnostic, unless every output is protected, which
    is a healthy chain with nothing to compress. A body a rebuild can make again from the branch (its
    outputs are the range's own, none spilled) is left out of a compact entry."""
    members = chain_members(keys, job.index)
    if not members:
        fully_protected = set(chain.middle_tool_call_ids) <= set(chain.protected_tool_call_ids)
        if not fully_protected and job.diagnostics is not None:
            job.diagnostics.report("backfill-empty", str(chain.start_user_timestamp),
                                   f"middles={len(chain.middle_tool_call_ids)}")
        return None
    refs = _tool_refs(keys, job.index)
    text = deterministic_text(members, refs, job.names_limit, job.index)
    again = chain_members(chain.lookup_keys, job.index) == members and not any(r.spill_path for r in members)
    return _entry(chain, job, text, "deterministic", refs, job.names_limit if again else None)


def _entry(chain: ChainRange, job: _Job, body: str | None, source: Literal["deterministic"] | None,
           refs: tuple[str, ...], body_names: int | None = None) -> ChainEntry:
    assert chain.final_assistant_timestamp is not None  # only closed chains are selected
    return ChainEntry(
        block_id=job.registry.issue_block_id(),
        start_user_timestamp=chain.start_user_timestamp,
        dropped_tool_call_ids=chain.middle_tool_call_ids,
        final_assistant_timestamp=chain.final_assistant_timestamp,
        tool_refs=refs,
        compressed_at=job.compressed_at,
        dropped_occurrence_keys=chain.middle_occurrence_keys,
        protected_tool_call_ids=chain.protected_tool_call_ids,
        range_summary_text=body,
        body_source=source,
        body_names=body_names,
    )


def _tool_refs(keys: Sequence[str], index: ToolCallIndexer) -> tuple[str, ...]:
    """The `tN` refs of the chain's outputs, in chain order, once each (protected outputs have none)."""
    refs = (index.get_short_ref(key) for key in keys)
    return tuple(dict.fromkeys(ref for ref in refs if ref))


def _persist_stats(append: Append, stats: PruneStats) -> None:
    """Best effort: the chain entries are already durable, and the next flush writes a full snapshot."""
    try:
        append(STATS, stats.to_json())
    except Exception as error:
        log.exception("pruner: could not persist stats after chain compression: %s", error)
