"""Phase 3: each compressed chain renders as its start user message, one `<compressed-chain>` user
message, and its final reply; the tool-using turns in between leave the context.

What to drop is decided by position, never by id: provider ids get reused, and dropping by id once
deleted a live turn that happened to reuse a compressed chain's id, orphaning its results. An entry
applies only when its boundaries are unambiguous (exactly one user message at its start timestamp,
exactly one assistant message at its final timestamp, in that order); otherwise it changes nothing
and leaves a diagnostic, so the chain stays raw rather than being compressed wrongly.

Inside an applied range only assistant turns, tool results and condense's own per-batch summaries go;
user messages (the synthetic included, which makes a second pass a no-op) and other extensions'
messages stay. A per-batch summary outside the range goes too when it speaks about an output the
range dropped (in agent-message batching it is written after the final reply).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import groupby
from operator import is_
from typing import Any, Protocol

from condense.chains.model import ChainEntry
from condense.chains.placeholders import substitute_block_refs
from condense.diagnostics import DiagnosticKind
from condense.messages import content_text, tool_calls
from condense.occurrence import bare_id, message_key, occ_key, occurrence_of, result_timestamp_of
from condense.records import SUMMARY


class SummarySource(Protocol):
    def summaries_covering(self, keys: Iterable[str]) -> list[str]: ...


class ChainSource(Protocol):
    """What rendering reads of the compressed chains (`ChainRegistry` is the real one)."""

    def entries(self) -> list[ChainEntry]: ...
    def find_by_block_id(self, block_id: str) -> ChainEntry | None: ...


class Reporter(Protocol):
    def report(self, kind: DiagnosticKind, dedup_key: str, detail: str) -> None: ...


_SYNTHETIC_ID = re.compile(r'<compressed-chain id="([^"]+)"')
_DROPPABLE_ROLES = ("assistant", "toolResult")

Span = tuple[int, int]


# ----- boundaries ---------------------------------------------------------------------------------


class Boundaries:
    """Positions of user and assistant messages by timestamp, and the block ids of chains already
    rendered in the messages; grown as the conversation grows (phases 1 and 2 keep every user and
    assistant message where it is, with its timestamp, so the raw messages give the same tables)."""

    def __init__(self, messages: Sequence[dict[str, Any]] = ()) -> None:
        self.users: dict[int, list[int]] = {}
        self.assistants: dict[int, list[int]] = {}
        self.rendered: set[str] = set()
        self.summaries: list[int] = []  # positions of condense's per-batch summaries
        self.summary_keys: dict[str, list[int]] = {}  # of what they speak about (`summary_refs`)
        self.summary_bare: dict[str, list[int]] = {}
        self.earliest: int | None = None  # the oldest user or assistant timestamp the messages hold
        self.size = 0
        self.extend(messages)

    def extend(self, messages: Sequence[dict[str, Any]]) -> None:
        for position, message in enumerate(messages, start=self.size):
            role = message.get("role")
            if role == "user" and (block := _synthetic_block_id(message)) is not None:
                self.rendered.add(block)
            elif is_per_batch_summary(message):
                self.summaries.append(position)
                keys, bare = summary_refs(message)
                for key in keys:
                    self.summary_keys.setdefault(key, []).append(position)
                for name in bare:
                    self.summary_bare.setdefault(name, []).append(position)
            table = self.users if role == "user" else self.assistants if role == "assistant" else None
            stamp = result_timestamp_of(message.get("timestamp")) if table is not None else None
            if table is not None and stamp is not None:
                table.setdefault(stamp, []).append(position)
                self.earliest = stamp if self.earliest is None else min(self.earliest, stamp)
        self.size += len(messages)

    def summaries_about(self, keys: Iterable[str], bare: Iterable[str]) -> set[int]:
        """Positions of the per-batch summaries that speak about any of these outputs."""
        return ({p for key in keys for p in self.summary_keys.get(key, ())}
                | {p for name in bare for p in self.summary_bare.get(name, ())})

    def before_all(self, final_assistant_timestamp: int | None) -> bool:
        """A chain that ended before the oldest message held: compacted out of the context, not broken."""
        return (final_assistant_timestamp is not None and self.earliest is not None
                and final_assistant_timestamp < self.earliest)

    def resolve(self, start_user_timestamp: int, final_assistant_timestamp: int | None) -> Span | None:
        if final_assistant_timestamp is None:
            return None
        starts = self.users.get(start_user_timestamp, [])
        ends = self.assistants.get(final_assistant_timestamp, [])
        if len(starts) != 1 or len(ends) != 1 or starts[0] >= ends[0]:
            return None
        return starts[0], ends[0]


@dataclass
class ChainScan:
    """What phase 3 keeps from one render to the next while the conversation only grows: the boundary
    tables, and what each applied range holds (its messages cannot have changed)."""

    boundaries: Boundaries = field(default_factory=Boundaries)
    ranges: dict[tuple[str, int, int], _RangeContent] = field(default_factory=dict)
    synthetics: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=dict)  # per block


def resolve_range(messages: Sequence[dict[str, Any]], start_user_timestamp: int,
                  final_assistant_timestamp: int | None) -> Span | None:
    """(start, end) positions of a chain, or None unless both boundaries are unique and ordered."""
    return Boundaries(messages).resolve(start_user_timestamp, final_assistant_timestamp)


# ----- message helpers ----------------------------------------------------------------------------


def is_per_batch_summary(message: dict[str, Any]) -> bool:
    return message.get("role") == "custom" and message.get("customType") == SUMMARY


def summary_refs(message: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The outputs a per-batch summary speaks about: occurrence keys of its refs with a result timestamp,
    and the ids it has nothing but the id to go by for (legacy refs, legacy `toolCallIds`)."""
    keys: set[str] = set()
    bare: set[str] = set()
    details = message.get("details")
    if not isinstance(details, dict):
        return keys, bare
    for ref in _dicts(details.get("toolCallRefs")):
        call_id, stamp = ref.get("toolCallId"), result_timestamp_of(ref.get("resultTimestamp"))
        if not isinstance(call_id, str):
            continue
        if stamp is None:
            bare.add(bare_id(call_id))
        else:
            keys.add(occ_key(call_id, stamp, occurrence_of(ref, "resultOccurrence")))
    legacy_ids = details.get("toolCallIds")
    if isinstance(legacy_ids, list):
        bare.update(i for i in legacy_ids if isinstance(i, str))
    return keys, bare


def summary_overlaps_dropped(message: dict[str, Any], dropped_keys: AbstractSet[str],
                             dropped_bare: AbstractSet[str]) -> bool:
    """Whether a per-batch summary speaks about a dropped output. A ref with a result timestamp must
    match that exact occurrence (a live turn reusing a dropped id keeps its summary); a legacy ref
    has nothing but its id to go by."""
    keys, bare = summary_refs(message)
    return not (keys.isdisjoint(dropped_keys) and bare.isdisjoint(dropped_bare))


def without_thinking(message: dict[str, Any]) -> dict[str, Any]:
    """A copy without thinking blocks; the message itself when it has none."""
    content = message.get("content")
    if not isinstance(content, list) or not any(_is_thinking(block) for block in content):
        return message
    return {**message, "content": [block for block in content if not _is_thinking(block)]}


def synthetic_chain_message(entry: ChainEntry, body: str,
                            protected_outputs: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """The user message standing for a compressed chain, stamped with the entry's own time so every
    render produces the same bytes. Protected outputs (tool name, text) follow the body verbatim."""
    relocated = "".join(
        f'\n\n<protected-output tool="{tool}">\n{text}\n</protected-output>'
        for tool, text in protected_outputs
    )
    head = f'<compressed-chain id="{entry.block_id}" tools="{",".join(entry.tool_refs)}">'
    return {
        "role": "user",
        "content": [{"type": "text", "text": f"{head}\n{body}{relocated}\n</compressed-chain>"}],
        "timestamp": entry.compressed_at,
    }


def chain_body(entry: ChainEntry, summaries: SummarySource) -> str:
    """The fused (or deterministic) text when the entry has one, else the per-batch summaries that
    cover its outputs, joined."""
    if entry.range_summary_text:
        return entry.range_summary_text
    return "\n\n".join(summaries.summaries_covering(entry.lookup_keys))


# ----- the pass -----------------------------------------------------------------------------------


@dataclass
class _Applied:
    entry: ChainEntry
    start: int
    end: int
    protected_outputs: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class _RangeContent:
    """What a range drops: result keys, call ids (seen in calls and results), and the protected outputs
    it relocates; `mismatch` is the health-check detail when the entry recorded other ids."""

    dropped_keys: set[str]
    seen: set[str]
    protected_outputs: list[tuple[str, str]]
    mismatch: str | None
    kept: list[int] = field(default_factory=list)  # positions inside that stay (user and other messages)


@dataclass
class ChainLayout:
    """What phase 3 decided over a pass, kept for the next one. A conversation that grew renders only its
    new messages from it (`extend`); after a flush that only added chains after every range it resolved,
    phase 3 runs again only from the first place that may differ (`ChainPhase.resume`). Ranges are found
    by timestamp, so a new message at an entry's boundary timestamp, older than every message held, or
    already a rendered chain can change earlier decisions: then neither applies and a full pass runs."""

    entries: list[ChainEntry] = field(default_factory=list)  # the registry's, in its order
    size: int = 0  # messages it decided over
    watched: set[int] = field(default_factory=set)  # boundary timestamps of every entry
    earliest: int | None = None  # the oldest user or assistant timestamp of those messages
    reach: int = -1  # the furthest end of a range that resolved: a later chain must start after it
    applied: list[_Applied] = field(default_factory=list)  # by start; they never overlap
    dropped_keys: set[str] = field(default_factory=set)
    dropped_bare: set[str] = field(default_factory=set)
    body_keys: set[str] = field(default_factory=set)  # outputs whose summaries the synthetic bodies show
    missing_blocks: set[str] = field(default_factory=set)  # `{bN}` of those bodies that named no chain
    marks: list[int] = field(default_factory=list)  # input positions after which the output moves,
    shifts: list[int] = field(default_factory=list)  # by this much in all (output less input position)

    def accepts(self, suffix: Sequence[dict[str, Any]]) -> bool:
        """Whether messages appended to those decided over leave every earlier decision as it was."""
        for message in suffix:
            role = message.get("role")
            if role in ("user", "assistant"):
                stamp = result_timestamp_of(message.get("timestamp"))
                if stamp in self.watched or (stamp is not None and self.earliest is not None and stamp < self.earliest):
                    return False
            if role == "user" and _synthetic_block_id(message) is not None:
                return False
        return True

    def extend(self, suffix: Sequence[dict[str, Any]]) -> list[Any] | None:
        """Phase 3 of messages appended to those decided over; None when they may change earlier decisions."""
        if not self.accepts(suffix):
            return None
        out = []
        for position, message in enumerate(suffix, start=self.size):
            if is_per_batch_summary(message) and summary_overlaps_dropped(message, self.dropped_keys,
                                                                          self.dropped_bare):
                self._shift(position, -1)
            else:
                out.append(message)
        self.size += len(suffix)
        return out

    def output_position(self, position: int) -> int:
        """Where the message at input `position` (which no applied range holds) is in the output."""
        before = bisect.bisect_left(self.marks, position)
        return position + (self.shifts[before - 1] if before else 0)

    def holding(self, position: int) -> _Applied | None:
        """The applied range whose start is before `position` and whose end is not."""
        before = bisect.bisect_left(self.applied, position, key=_start)
        item = self.applied[before - 1] if before else None
        return item if item is not None and position <= item.end else None

    def placed(self, changed: Sequence[int], begin: int) -> tuple[int, list[int]]:
        """Of the positions `changed` before `begin` (in order), those whose message the output shows where
        it was; and `begin`, moved back to the start of a range whose output they change: one holding
        protected outputs (relocated into its synthetic message) or ending at one of them. Elsewhere in
        a range a changed message (a result or a call: phases 1 and 2 change no other) is dropped with it."""
        shown = []
        for position in changed:
            if position >= begin:
                break
            holder = self.holding(position)
            if holder is None:
                shown.append(position)
            elif position == holder.end or holder.entry.protected_tool_call_ids:
                begin = holder.start
                break
        return begin, [position for position in shown if position < begin]

    def _shift(self, position: int, by: int) -> None:
        self.marks.append(position)
        self.shifts.append((self.shifts[-1] if self.shifts else 0) + by)

    def _take(self, entries: Sequence[ChainEntry], boundaries: Boundaries, applied: list[_Applied]) -> None:
        """Record `entries` as decided: their boundary timestamps, how far their ranges reach, `applied`."""
        self.entries += entries
        self.watched |= {stamp for entry in entries for stamp in (entry.start_user_timestamp,
                                                                  entry.final_assistant_timestamp) if stamp is not None}
        for entry in entries:
            span = boundaries.resolve(entry.start_user_timestamp, entry.final_assistant_timestamp)
            self.reach = max(self.reach, span[1]) if span is not None else self.reach
        self.applied += applied


@dataclass(frozen=True)
class ChainPhase:
    """Phase 3 of the render pipeline over one registry; call it on messages, or `run` it for its layout."""

    registry: ChainSource
    index: SummarySource
    strip_final_thinking: bool
    diagnostics: Reporter | None = None

    def __call__(self, messages: list[Any]) -> list[Any]:
        return self.run(messages)[0]

    def run(self, messages: list[Any], scan: ChainScan | None = None) -> tuple[list[Any], ChainLayout]:
        """Phase 3 over `messages`, and what it decided. `scan` holds what an earlier pass over the same
        messages (or fewer of them) learnt; a fresh one learns it all."""
        scan = scan or ChainScan(Boundaries(messages))
        layout = ChainLayout(size=len(messages), earliest=scan.boundaries.earliest)
        entries = self.registry.entries()
        applied = _accept(scan.boundaries, entries, self.diagnostics) if entries else []
        layout._take(entries, scan.boundaries, applied)
        self._drop(layout, _contents(messages, applied, self.diagnostics, scan.ranges).values())
        out, changed = self._emit(messages, 0, layout, scan)
        return (out if changed else messages), layout

    def resume(self, messages: list[Any], begin: int, changed: Sequence[int], layout: ChainLayout, scan: ChainScan,
               changed_keys: AbstractSet[str]) -> tuple[int, int, list[Any], list[tuple[int, Any]]] | None:
        """Phase 3 after a flush, from where it may differ from `layout`'s pass: `begin` (the first new
        message), the first new range or summary it drops, moved to the start of a range holding it; the
        earlier positions phases 1 and 2 changed (`changed`, in order) are placed in the output as they
        are, unless one is a range's final reply or relocated with its range's protected outputs (then
        that range runs again). Returns that position, where it was in `layout`'s output, the output of
        the messages from it, and where each change before it goes in `layout`'s output, with its message;
        `layout` becomes this pass's. None, with `layout` untouched, unless the registry only gained chains
        after every range `layout` resolved and no body it rendered may read differently (then a full
        pass runs)."""
        entries, old = self.registry.entries(), layout.entries
        if len(entries) < len(old) or not all(map(is_, old, entries)) or not changed_keys.isdisjoint(layout.body_keys):
            return None
        fresh = entries[len(old):]
        boundaries = scan.boundaries
        spans = [boundaries.resolve(e.start_user_timestamp, e.final_assistant_timestamp) for e in fresh]
        if (not layout.accepts(messages[layout.size:])
                or not layout.missing_blocks.isdisjoint(e.block_id for e in fresh)
                or any(span[0] <= layout.reach if span else not boundaries.before_all(e.final_assistant_timestamp)
                       for e, span in zip(fresh, spans, strict=True))):
            return None
        added = _accept(boundaries, fresh, self.diagnostics) if fresh else []
        contents = _contents(messages, added, self.diagnostics, scan.ranges).values()
        keys = set().union(*(c.dropped_keys for c in contents)) - layout.dropped_keys
        bare = set().union(*(c.seen for c in contents)) - layout.dropped_bare
        begin = min([begin, *(item.start for item in added), *boundaries.summaries_about(keys, bare)])
        holder = layout.holding(begin)
        begin, shown = layout.placed(changed, holder.start if holder is not None else begin)
        at = layout.output_position(begin)
        placed = [(layout.output_position(position), messages[position]) for position in shown]
        kept = bisect.bisect_left(layout.marks, begin)
        del layout.marks[kept:], layout.shifts[kept:]
        layout.size, layout.earliest = len(messages), boundaries.earliest
        layout._take(fresh, boundaries, added)
        self._drop(layout, contents)
        out, _ = self._emit(messages, begin, layout, scan)
        return begin, at, out, placed

    @staticmethod
    def _drop(layout: ChainLayout, contents: Iterable[_RangeContent]) -> None:
        for content in contents:
            layout.dropped_keys |= content.dropped_keys
            layout.dropped_bare |= content.seen

    def _emit(self, messages: list[Any], begin: int, layout: ChainLayout, scan: ChainScan) -> tuple[list[Any], bool]:
        """The messages from `begin` with every applied range from there replaced: its start, the synthetic
        message (unless one is already there), what stays inside it, its final reply; per-batch summaries
        outside the ranges that speak about a dropped output go too. Untouched stretches are copied as
        slices; where the output moves is added to `layout`. Returns the output and whether it differs."""
        out: list[Any] = []
        changed = False
        summaries = scan.boundaries.summaries
        items = layout.applied[bisect.bisect_left(layout.applied, begin, key=_start):]
        contents = _contents(messages, items, self.diagnostics, scan.ranges, report=False)

        def copy(start: int, stop: int) -> None:
            nonlocal changed
            for position in summaries[bisect.bisect_left(summaries, start):bisect.bisect_left(summaries, stop)]:
                out.extend(messages[start:position])
                start = position + 1
                if summary_overlaps_dropped(messages[position], layout.dropped_keys, layout.dropped_bare):
                    changed = True
                    layout._shift(position, -1)
                else:
                    out.append(messages[position])
            out.extend(messages[start:stop])

        position = begin
        for item in items:
            copy(position, item.start + 1)
            before = len(out)
            if item.entry.block_id not in scan.boundaries.rendered:
                out.append(self._synthetic(item, layout, scan.synthetics))
                changed = True
            kept = contents[item.start].kept
            out.extend(messages[i] for i in kept)
            changed = changed or len(kept) < item.end - item.start - 1
            final = messages[item.end]
            if self.strip_final_thinking:
                stripped = without_thinking(final)
                changed = changed or stripped is not final
                final = stripped
            out.append(final)
            layout._shift(item.end, len(out) - before - (item.end - item.start))
            position = item.end + 1
        copy(position, len(messages))
        return out, changed

    def _synthetic(self, item: _Applied, layout: ChainLayout,
                   made: dict[str, tuple[tuple[Any, ...], dict[str, Any]]]) -> dict[str, Any]:
        """The synthetic message of an applied range; the one `made` before when its inputs are the same.
        What its body read is noted in `layout`, so a later pass knows when it may read differently."""
        def lookup(block_id: str) -> str | None:
            other = self.registry.find_by_block_id(block_id)
            if other is None:
                layout.missing_blocks.add(block_id)
                return None
            layout.body_keys.update(other.lookup_keys)
            return chain_body(other, self.index) or None

        layout.body_keys.update(item.entry.lookup_keys)
        body = substitute_block_refs(chain_body(item.entry, self.index), lookup, item.entry.block_id)
        inputs = (item.entry, body, tuple(item.protected_outputs))
        known = made.get(item.entry.block_id)
        if known is not None and known[0][0] is item.entry and known[0][1:] == inputs[1:]:
            return known[1]
        message = synthetic_chain_message(item.entry, body, item.protected_outputs)
        made[item.entry.block_id] = (inputs, message)
        return message


def apply_chain_compressions(messages: list[Any], registry: ChainSource, index: SummarySource, *,
                             strip_final_thinking: bool, diagnostics: Reporter | None = None) -> list[Any]:
    """Render every compressed chain of `registry` into `messages`; the very same list when nothing
    changes (no entries, none resolved, or all already rendered)."""
    return ChainPhase(registry, index, strip_final_thinking, diagnostics)(messages)


def _accept(boundaries: Boundaries, entries: Sequence[ChainEntry], diagnostics: Reporter | None) -> list[_Applied]:
    """Entries whose range resolves, minus those starting inside another range or on a start
    already claimed: one synthetic per slot, and no range ever cut in two."""
    resolved: list[_Applied] = []
    for entry in entries:
        span = boundaries.resolve(entry.start_user_timestamp, entry.final_assistant_timestamp)
        if span is None and boundaries.before_all(entry.final_assistant_timestamp):
            continue
        if span is None:
            final = "null" if entry.final_assistant_timestamp is None else entry.final_assistant_timestamp
            _report(diagnostics, "unresolved-range", entry.block_id,
                    f"blockId={entry.block_id} start={entry.start_user_timestamp} final={final}")
        else:
            resolved.append(_Applied(entry, *span))
    accepted: list[_Applied] = []
    widest: _Applied | None = None  # of the ranges starting earlier, the one reaching furthest
    for start, same_start in groupby(sorted(resolved, key=_start), key=_start):
        group = list(same_start)  # in registry order: the first one claims the slot
        host = widest if widest is not None and widest.end > start else None
        if host is None:
            accepted.append(group[0])
        for loser in group if host is not None else group[1:]:
            block = loser.entry.block_id
            why = (f"nests inside blockId={host.entry.block_id}" if host
                   else f"duplicates startIndex={start} already claimed")
            detail = f"blockId={block} skipped: range {why}"
            _report(diagnostics, "unresolved-range", f"overlap:{block}", detail)
        furthest = max(group, key=lambda item: item.end)
        if widest is None or furthest.end > widest.end:
            widest = furthest
    return accepted


def _start(item: _Applied) -> int:
    return item.start


def _contents(messages: Sequence[dict[str, Any]], applied: list[_Applied], diagnostics: Reporter | None,
              known: dict[tuple[str, int, int], _RangeContent], report: bool = True) -> dict[int, _RangeContent]:
    """What each range holds, by its start; `report`: say when a range holds other ids than its entry
    recorded (a health check only: the range has already decided)."""
    contents = {}
    for item in applied:
        slot = (item.entry.block_id, item.start, item.end)
        content = known.get(slot) or _range_content(messages, item)
        if not item.entry.protected_tool_call_ids:  # protected outputs are read, not just counted: no reuse
            known[slot] = content
        item.protected_outputs = list(content.protected_outputs)
        contents[item.start] = content
        if report and content.mismatch is not None:
            _report(diagnostics, "range-id-mismatch", item.entry.block_id, content.mismatch)
    return contents


def _range_content(messages: Sequence[dict[str, Any]], item: _Applied) -> _RangeContent:
    protected = set(item.entry.protected_tool_call_ids)
    content = _RangeContent(set(), set(), [], None)
    for position in range(item.start + 1, item.end):
        message = messages[position]
        if not (is_per_batch_summary(message) or message.get("role") in _DROPPABLE_ROLES):
            content.kept.append(position)
        if message.get("role") == "toolResult":
            call_id = str(message.get("toolCallId"))
            content.seen.add(call_id)
            content.dropped_keys.add(message_key(message))
            if call_id in protected:
                content.protected_outputs.append((str(message.get("toolName")),
                                                  content_text(message.get("content") or [])))
        else:
            content.seen.update(str(call.get("id")) for call in tool_calls(message))
    recorded = {bare_id(call_id) for call_id in item.entry.dropped_tool_call_ids}
    if recorded != content.seen:
        block = item.entry.block_id
        content.mismatch = f"blockId={block} recorded={len(recorded)} actual={len(content.seen)}"
    return content


def _synthetic_block_id(message: dict[str, Any]) -> str | None:
    """The block id of a user message that is a rendered `<compressed-chain>`, else None."""
    content = message.get("content")
    if isinstance(content, list):
        content = content_text(content[:1])
    match = _SYNTHETIC_ID.match(content) if isinstance(content, str) else None
    return match.group(1) if match else None


def _report(diagnostics: Reporter | None, kind: DiagnosticKind, key: str, detail: str) -> None:
    if diagnostics is not None:
        diagnostics.report(kind, key, detail)


def _is_thinking(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") == "thinking"


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
