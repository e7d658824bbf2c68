"""A read-only view of what condense did on a branch, for the screens that show it.

The views are plain frozen dataclasses built from an engine and its branch, so a screen or a widget
never reads the index, the stub lookup or the session's custom entries itself: those stay free to
change. Nothing here writes to the engine or the session.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from condense.chains.model import ChainEntry, chain_records
from condense.fold import Fold, reconstruct_folds
from condense.index import alias_keys
from condense.messages import content_text
from condense.occurrence import occ_key
from condense.record_bursts import Read, entry_reader, records_of
from condense.records import DEDUP_ALIAS, SUMMARY, SummaryRef, ToolCallRecord
from condense.render.stub import lookup_key

if TYPE_CHECKING:
    from condense.engine import CondenseEngine

MarkState = Literal["off", "raw", "pending", "protected", "summarized", "chain", "folded", "spilled", "superseded",
                    "deduped", "stubbed"]
"""What the model reads of one tool output. `off`: pruning is off, the output itself; `raw`: the output
itself, condense has not taken it (new, too small to be worth a summary, or never captured); `pending`:
captured, waiting for the next flush (a failed one puts it back); `protected`: kept verbatim by a
protected tool or path; `summarized`: a stub, its summary in the context; `chain`: inside a compressed
chain, whose block stands for it; `folded`: before a history fold, whose block stands for it; `spilled`:
a stub with a preview, the output in a sidecar file; `superseded`: a stub saying a later edit, write or
read made it stale; `deduped`: a stub naming an identical earlier output; `stubbed`: a stub with a ref,
covered by no summary (a session that lost it)."""


@dataclass(frozen=True)
class CallView:
    """One pruned tool call. `recorded` is False when a summary names a call the index does not hold
    (an old or damaged session): then only `key`, `ref` and `tool` are known."""

    key: str  # the occurrence key, what `context_tree_query` takes
    ref: str  # `tN`, "" when it has none
    tool: str
    args: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    size: int = 0  # characters of the original output (bytes of a spill file)
    error: bool = False
    spilled: bool = False
    deduped: bool = False
    protected: bool = False
    superseded: bool = False
    recorded: bool = True
    same_as: str | None = None  # a dedup alias: the original's ref ("" when it has none); None otherwise


@dataclass(frozen=True)
class SummaryView:
    turn: int | None
    text: str
    calls: tuple[CallView, ...]

    @property
    def refs(self) -> tuple[str, ...]:
        return tuple(call.ref for call in self.calls)


@dataclass(frozen=True)
class ChainView:
    block: str  # `bN`
    refs: tuple[str, ...]
    start_user_timestamp: int
    text: str  # its range summary, else the summaries covering its calls
    calls: tuple[CallView, ...]
    task: str = ""  # the user message that started it ("" when the branch no longer holds it)


@dataclass(frozen=True)
class FoldView:
    """A history fold: the block the model reads in place of the oldest requests, and the outputs no
    flush had indexed, which the fold gave refs of its own."""

    ref: str  # `fN`
    requests: int  # every request folded out of view, by this fold and the ones before it
    text: str  # the block
    calls: tuple[CallView, ...]


@dataclass(frozen=True)
class ChainMark:
    """The mark of a compressed chain, shown beside the user message that starts it."""

    block: str
    refs: tuple[str, ...]


@dataclass(frozen=True)
class PruneTree:
    """Chains, then summaries in session order, then spilled outputs no summary covers and dedup aliases,
    and the history folds, oldest first."""

    chains: tuple[ChainView, ...]
    summaries: tuple[SummaryView, ...]
    spilled: tuple[CallView, ...]
    aliases: tuple[CallView, ...]
    folds: tuple[FoldView, ...] = ()

    @property
    def call_count(self) -> int:
        """Calls the tree names, each once: a chain lists the calls its summaries cover too."""
        groups = (*(chain.calls for chain in self.chains), *(summary.calls for summary in self.summaries),
                  self.spilled, self.aliases, *(fold.calls for fold in self.folds))
        return len({call.key for calls in groups for call in calls})


@dataclass(frozen=True)
class CallMark:
    """What the model sees instead of one tool result (see MarkState), with the ref that brings the output
    back (`tN`; for `deduped`, the identical original's) and the block that stands for it (`bN`, `fN`)."""

    state: MarkState
    ref: str = ""
    block: str = ""


def _call(engine: CondenseEngine, key: str, ref: str, fallback_tool: str = "",
          same_as: str | None = None) -> CallView:
    index = engine.index
    record = index.get_record(key)
    if record is None:
        return CallView(key, ref, fallback_tool, recorded=False, same_as=same_as)
    size = record.spill_bytes if record.spill_bytes is not None else len(record.result_text)
    return CallView(key, ref, record.tool_name, MappingProxyType(record.args), size, record.is_error,
                    spilled=bool(record.spill_path),
                    deduped=key not in index and index.is_summarized(key),
                    protected=engine.is_protected(record.tool_name, record.args),
                    superseded=record.superseded_by is not None, same_as=same_as)


def _summary_entries(branch: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for entry in branch:
        if entry.get("type") == "custom_message" and entry.get("customType") == SUMMARY:
            yield entry


def _chain_entries(branch: Iterable[Mapping[str, Any]], read: Read | None = None) -> dict[int, ChainEntry]:
    """The branch's compressed chains by the timestamp of the user message that starts each (last wins)."""
    return {chain.start_user_timestamp: chain for chain in chain_records(branch, read)}


def _ref_order(ref: str) -> tuple[int, str]:
    """`t2` before `t10`; anything that is no `tN` ref after them."""
    number = ref[1:]
    return (int(number), "") if ref.startswith("t") and number.isdigit() else (1 << 62, ref)


def _in_ref_order(refs: Iterable[str]) -> tuple[str, ...]:
    """A chain's refs as the tree and the marks list them, as its summaries and the recovery tool name them:
    a chain records its calls in the order they ran, but the calls a summary covered got their refs first,
    the rest when the chain was compressed."""
    return tuple(sorted(refs, key=_ref_order))


def chain_marks(branch: Iterable[dict[str, Any]], read: Read | None = None) -> dict[int, ChainMark]:
    """The compressed chains' marks by the timestamp of the user message that starts each, refs in ref order;
    `read` (the session's entry by id) finds the chains `/tree` carried onto the branch where they are held."""
    return {start: ChainMark(chain.block_id, _in_ref_order(chain.tool_refs))
            for start, chain in _chain_entries(branch, read).items()}


def _chain(engine: CondenseEngine, chain: ChainEntry, tasks: Mapping[int, str]) -> ChainView:
    chain = engine.chains.find_by_block_id(chain.block_id) or chain  # completed from the branch (derive.py)
    refs = _in_ref_order(chain.tool_refs)
    keys = [engine.index.resolve_tool_call_id(ref) or ref for ref in refs]
    text = chain.range_summary_text or "\n\n".join(engine.index.summaries_covering(keys))
    calls = tuple(_call(engine, key, ref) for key, ref in zip(keys, refs, strict=True))
    return ChainView(chain.block_id, refs, chain.start_user_timestamp, text, calls,
                     tasks.get(chain.start_user_timestamp, ""))


def _user_texts(branch: Iterable[dict[str, Any]]) -> dict[int, str]:
    """The branch's user messages by timestamp: what a chain starting at one was asked to do."""
    texts: dict[int, str] = {}
    for entry in branch:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "user" and isinstance(message.get("timestamp"), int):
            texts[message["timestamp"]] = content_text(message.get("content") or "")
    return texts


def _summary(engine: CondenseEngine, entry: dict[str, Any]) -> SummaryView:
    raw = entry.get("details")
    details: dict[str, Any] = raw if isinstance(raw, dict) else {}
    raw_refs = [r for r in details.get("toolCallRefs") or [] if isinstance(r, dict)]
    refs = [ref for ref in map(SummaryRef.from_json, raw_refs) if ref is not None]
    names = details.get("toolNames") or []
    calls = tuple(_call(engine, ref.key, ref.short_id, str(names[i]) if i < len(names) else "")
                  for i, ref in enumerate(refs))
    turn = details.get("turnIndex")
    return SummaryView(turn if isinstance(turn, int) else None, content_text(entry.get("content") or ""), calls)


def _alias(engine: CondenseEngine, data: dict[str, Any]) -> CallView:
    key, original = alias_keys(data) or (str(data.get("newToolCallId", "")), str(data.get("originalToolCallId", "")))
    return _call(engine, key, "", same_as=engine.index.get_short_ref(original) or "")


def _fold(engine: CondenseEngine, fold: Fold) -> FoldView:
    refs = [ref for ref in map(SummaryRef.from_json, fold.refs) if ref is not None]
    return FoldView(fold.ref, fold.folded, fold.text, tuple(_call(engine, ref.key, ref.short_id) for ref in refs))


def prune_tree(engine: CondenseEngine, branch: list[dict[str, Any]]) -> PruneTree:
    """Everything condense did on `branch`, as `/pruner tree` shows it."""
    summaries = tuple(_summary(engine, entry) for entry in _summary_entries(branch))
    covered = {call.ref or call.key for summary in summaries for call in summary.calls}
    spilled = tuple(_call(engine, record.key, "") for record in engine.index.records()
                    if record.spill_path and (engine.index.get_short_ref(record.key) or record.key) not in covered)
    aliases = tuple(_alias(engine, data) for data in records_of(branch, DEDUP_ALIAS) if isinstance(data, dict))
    tasks = _user_texts(branch)
    read = entry_reader(engine.host)
    chains = tuple(_chain(engine, chain, tasks) for chain in _chain_entries(branch, read).values())
    folds = tuple(_fold(engine, fold) for fold in reconstruct_folds(branch, read))
    return PruneTree(chains, summaries, spilled, aliases, folds)


def unknown_refs(engine: CondenseEngine, refs: Iterable[str]) -> list[str]:
    """The refs, ids or occurrence keys among `refs` that `context_tree_query` finds nothing for."""
    return [ref for ref in refs if not engine.index.get_records_for_id(ref) and engine.folded_transcript(ref) is None]


def call_mark(engine: CondenseEngine, tool_call_id: str, result_timestamp: int | None, tool_name: str = "",
              args: Mapping[str, Any] | None = None) -> CallMark:
    """The mark of one tool result, named by its occurrence (call id and the result's timestamp); the
    call's tool and arguments tell a protected output that condense never captured."""
    if not engine.config.enabled:
        return CallMark("off")
    index = engine.index
    key = lookup_key({"toolCallId": tool_call_id, "timestamp": result_timestamp}, index)
    own = occ_key(tool_call_id, result_timestamp)
    record = index.get_record(key) if key is not None else None
    ref = (index.get_short_ref(key) or "") if key is not None else ""
    covering = _covering_block(engine, own, ref, result_timestamp)
    name, arguments = (record.tool_name, record.args) if record is not None else (tool_name, dict(args or {}))
    if name and engine.is_protected(name, arguments):
        return CallMark("protected", ref)
    if covering is not None:
        return CallMark(covering[0], ref, covering[1])
    if key is None or record is None:
        return CallMark("pending" if own in _pending_keys(engine) else "raw")
    return CallMark(_stub_state(engine, key, record), ref)


def _stub_state(engine: CondenseEngine, key: str, record: ToolCallRecord) -> MarkState:
    """Which stub stands for an indexed output, in the order the render decides it."""
    if record.spill_path:
        return "spilled"
    if key not in engine.index:
        return "deduped"
    if record.superseded_by is not None:
        return "superseded"
    return "summarized" if engine.index.summaries_covering([key]) else "stubbed"


def _covering_block(engine: CondenseEngine, key: str, ref: str, result_timestamp: int | None
                    ) -> tuple[MarkState, str] | None:
    """The block the model reads in place of this output: the history fold before which it came, or the
    compressed chain that dropped it."""
    folds = engine.history_fold.folds
    boundary = _fold_boundary_time(folds[-1].boundary) if folds else None
    if boundary is not None and result_timestamp is not None and result_timestamp < boundary:
        return "folded", folds[-1].ref
    if not engine.config.chain_compression.enabled:
        return None
    for chain in engine.chains:
        if key in chain.lookup_keys or (ref and ref in chain.tool_refs):
            return "chain", chain.block_id
    return None


def _fold_boundary_time(boundary: str) -> int | None:
    """The timestamp of the user message a fold keeps in view first (its identity is `time:hash`)."""
    stamp = boundary.partition(":")[0]
    return int(stamp) if stamp.isdigit() else None


def _pending_keys(engine: CondenseEngine) -> set[str]:
    """Outputs captured for the next flush, and those a reload found still to flush."""
    keys = {record.key for batch in engine.pending for record in batch.tool_calls}
    return keys | engine.found_pending if engine.rearmed else keys
