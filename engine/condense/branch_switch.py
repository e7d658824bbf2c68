"""Keeping condense's work across `/tree`: what another branch did for outputs this branch still holds.

Everything condense knows is rebuilt from the branch, and a flush writes its entries at the leaf of its
day. Moving to an earlier entry (or to a sibling branch) leaves those entries behind, on the old branch,
although the outputs they summarised are still on the new one: its next flush would summarise them all a
second time, and the model would read them raw meanwhile. So, on a branch switch, the engine hands the
index, chains, folds and frontier it had to `carry_over`, which writes onto the new branch, in a flush's
commit order, what covers the outputs the new branch holds and its own entries do not: the summaries
(each naming only those outputs), the index records of the summarised and spilled outputs under the refs
they had, the dedup aliases, the compressed chains and folds whose whole range is on the branch (with the
records they name), and the frontier when it lies on the branch too. A read stubbed as stale is not
carried: the edit that made it stale may be on the old branch only, and the next flush decides again.
The engine then rebuilds from the branch, so what it knows is again what a reload would find.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from condense.capture import branch_records
from condense.chains.derive import ChainOutputs
from condense.chains.model import ChainEntry, chain_positions, chain_records, newest_message_time, next_block_id
from condense.fold import FOLD, Fold, user_identity
from condense.frontier import Frontier
from condense.index import INDEXED, Taken, ToolCallIndexer, told_by_chain
from condense.messages import SUMMARY_TYPE
from condense.occurrence import Occurrences, occ_key, result_timestamp_of
from condense.record_bursts import Read, RecordWriter, Source, entry_reader, held_records, sourced
from condense.records import CARRIED, CHAIN, FRONTIER, SummaryRef, ToolCallRecord


@dataclass(frozen=True)
class Held:
    """What the engine knew on the branch it is leaving."""

    index: ToolCallIndexer
    chains: list[ChainEntry]
    folds: list[Fold]
    frontier: Frontier | None
    left: str | None = None  # the id of its leaf, where a host that reads entries by id finds its records


@dataclass
class _Branch:
    """What the new branch holds: its outputs, its messages by role and time, and its user messages."""

    keys: set[str] = field(default_factory=set)  # every result's occurrence key and bare id
    stamps: set[tuple[str, int]] = field(default_factory=set)  # (role, timestamp) of every message
    users: set[str] = field(default_factory=set)  # user_identity of every user message

    @classmethod
    def of(cls, entries: Iterable[Mapping[str, Any]]) -> _Branch:
        branch = cls()
        occurrences = Occurrences()  # a result repeating an id and a timestamp is keyed by its number too
        for entry in entries:
            message = entry.get("message") if entry.get("type") == "message" else None
            if not isinstance(message, dict):
                continue
            role, stamp = str(message.get("role")), message.get("timestamp")
            if isinstance(stamp, int):
                branch.stamps.add((role, stamp))
            if role == "toolResult":
                call_id = str(message.get("toolCallId", ""))
                branch.keys |= {occ_key(call_id, result_timestamp_of(stamp), occurrences.count(message)), call_id}
            elif role == "user":
                branch.users.add(user_identity(message))
        return branch


async def carry_over(held: Held, now: ToolCallIndexer, chains: Iterable[ChainEntry], folds: Iterable[Fold],
                     frontier: Frontier | None, writer: RecordWriter) -> int:
    """Write onto the host's branch (through `writer`, the engine's) the work `held` did for
    outputs it holds and `now` (its own index, chains, folds and frontier) lacks; returns how many
    records were written. A failed write stops there: what was written is whole (every summary before
    its records), the rest stays raw."""
    entries = writer.host.branch()
    branch = _Branch.of(entries)
    old = held.index
    missing = [record for record in old.records() if record.key in branch.keys and record.key not in now]
    chains_ = [c for c in held.chains if c.start_user_timestamp not in {k.start_user_timestamp for k in chains}
               and _chain_on(c, branch)]
    known = {fold.ref for fold in folds}
    folds_ = [fold for fold in held.folds if fold.ref not in known and fold.boundary in branch.users]
    written = 0
    keys = {record.key for record in missing}
    summarised: set[str] = set()
    for text, covered in old.summaries():
        on_branch = [key for key in covered if key in keys]
        if on_branch:
            await _carry_summary(old, now, writer, text, on_branch)
            summarised.update(on_branch)
            written += 1
    named = {ref for chain in chains_ for ref in chain.tool_refs} | {ref for fold in folds_ for ref in _fold_refs(fold)}
    records = [record for record in missing if record.key not in now and (
        record.key in summarised or record.spill_path or (old.get_short_ref(record.key) or "") in named)]
    told, records, chain_indexes = _told_by_chains(old, now, chains_, records, ChainOutputs(entries))
    for original in (True, False):
        chosen = [r for r in records if _is_original(old, r) == original]
        now.add_with_refs(chosen, _old_refs(old, chosen), writer.append, original=original)
        written += bool(chosen)
    for kind, data in chain_indexes:
        writer.append(kind, data)
    indexed = {record.key for record in records} | {r.key for r in now.records()}
    for duplicate, source in old.aliases().items():
        if duplicate in branch.keys and duplicate not in now.aliases() and source in indexed:
            now.register_duplicate(duplicate, source, writer.append)
            written += 1
    chains_ = [replace(chain, backfilled_refs=told.get(chain.start_user_timestamp, ())) for chain in chains_]
    for kind, data in _chains_and_folds(held, now, chains_, folds_, entries, entry_reader(writer.host)):
        writer.append(kind, data)
    carried_frontier = _frontier(held.frontier, frontier, entries)
    if carried_frontier is not None:
        writer.append(FRONTIER, carried_frontier.to_json())
    return written + len(chains_) + len(folds_) + (carried_frontier is not None)


async def _carry_summary(old: ToolCallIndexer, now: ToolCallIndexer, writer: RecordWriter, text: str,
                         keys: list[str]) -> None:
    """A summary of the branch left behind, naming only `keys`; one that can stand for their index records
    (`told_by_summary`: the first summarised, each named by its entry and nothing else) says so and is
    theirs, as a flush's is."""
    records = [record for key in keys if (record := old.get_record(key)) is not None]
    details = _details(old, keys)
    told = now.told_by_summary(records) and all(_is_original(old, record) for record in records)
    if told:
        details[INDEXED] = True
    await writer.append_custom_message(SUMMARY_TYPE, text, False, details)
    if told:
        now.add_told(records, _old_refs(old, records), original=True)


def _told_by_chains(old: ToolCallIndexer, now: ToolCallIndexer, chains: list[ChainEntry],
                    records: list[ToolCallRecord], outputs: ChainOutputs,
                    ) -> tuple[dict[int, tuple[str, ...]], list[ToolCallRecord], Taken]:
    """Which carried chains stand for the index records of the outputs of their range (`derive.py`), as
    a compressed chain does for those it indexed: by the start of each, the refs it lists; the records
    still to be written; and the index entries written for the chains that cannot (their records taken
    out of the rest). The records said more of (a stale mark, a spill) are written apart, before every
    chain, so a rebuild finds the others exactly."""
    if now.copies:
        return {}, records, Taken()
    carried = {record.key: record for record in records}
    apart = {key for key, record in carried.items() if not now.plain_backfill(record)}
    told: dict[int, tuple[str, ...]] = {}
    unsaid = Taken()
    for chain in chains:
        keys = outputs(chain.to_json(False), lambda key: key in now or key in apart)
        chosen = [carried[key] for key in keys if key in carried and not _is_original(old, carried[key])]
        refs = _old_refs(old, chosen)
        if not keys or len(chosen) != len(keys) or len(refs) != len(keys):
            continue
        written = Taken()
        now.add_with_refs(chosen, refs, written, original=False)
        if told_by_chain(written):
            told[chain.start_user_timestamp] = tuple(ref.short_id for ref in refs)
        else:
            unsaid += written
        for key in keys:
            del carried[key]
    return told, list(carried.values()), unsaid


def _old_refs(index: ToolCallIndexer, records: list[ToolCallRecord]) -> list[SummaryRef]:
    """The refs `index` gave these records (a record without one has none)."""
    return [SummaryRef(ref, r.tool_call_id, r.result_timestamp, r.result_occurrence) for r in records
            if (ref := index.get_short_ref(r.key))]


Wanted = tuple[str, dict[str, Any], Source | None]  # a record to carry and where the branch left behind holds it


def _chains_and_folds(held: Held, now: ToolCallIndexer, chains: list[ChainEntry], folds: list[Fold],
                      entries: list[dict[str, Any]], read: Read | None) -> list[tuple[str, Any]]:
    """The records that carry `chains` and `folds` onto the branch (`entries`), in order: where the host
    reads entries by id, a carried record names those the branch left behind holds, with what differs
    here (a chain's block id and time of compression are the branch's to say; see `record_bursts`);
    else, or with `index_copies`, each a copy."""
    found = _Held.of(read, held.left) if read is not None and held.left and not now.copies else _Held()
    recorded = [chain.block_id for chain in chain_records(entries, read)]
    wanted: list[Wanted] = []
    for chain in chains:
        data = chain.to_json(now.copies, newest_message_time(entries), next_block_id(recorded))
        wanted.append((CHAIN, data, found.chains.get(chain.block_id)))
        recorded.append(chain.block_id)
    wanted += [(FOLD, fold.to_json(now.copies), found.folds.get(fold.ref)) for fold in folds]
    return _named(wanted, read) if read is not None else [(kind, data) for kind, data, _ in wanted]


@dataclass
class _Held:
    """Where the branch left behind holds each of its chains (by block id) and folds (by ref): the newest
    record of each, found by walking back from its leaf."""

    chains: dict[str, Source] = field(default_factory=dict)
    folds: dict[str, Source] = field(default_factory=dict)

    @classmethod
    def of(cls, read: Read, leaf: str) -> _Held:
        path: list[Mapping[str, Any]] = []
        seen: set[str] = set()
        entry = read(leaf)
        while entry is not None and str(entry.get("id")) not in seen:
            seen.add(str(entry.get("id")))
            path.append(entry)
            parent = entry.get("parentId")
            entry = read(parent) if isinstance(parent, str) else None
        path.reverse()
        found = cls()
        sources = [source for _, source in sourced(path, read)]
        for position, chain in chain_positions(path, read):
            found.chains[chain.block_id] = sources[position]
        for record, source in sourced(path, read):
            data = record.get("data")
            if record.get("customType") == FOLD and isinstance(data, dict) and isinstance(data.get("ref"), str):
                found.folds[data["ref"]] = source
        return found


def _named(wanted: list[Wanted], read: Read) -> list[tuple[str, Any]]:
    """`wanted` as records: a run of them held by one entry as one carried record naming them there, with
    what each says differently (the same for all said once); any other as a copy."""
    out: list[tuple[str, Any]] = []
    run: list[tuple[int, dict[str, Any]]] = []
    held_by: str | None = None
    for kind, data, source in [*wanted, ("", {}, None)]:
        base = _record_data(read, source, kind)
        if run and (base is None or source is None or source[0] != held_by):
            out.append((CARRIED, _carried(held_by or "", run)))
            run = []
        if base is None or source is None:
            if kind:
                out.append((kind, data))
            continue
        held_by = source[0]
        run.append((source[1], _changes(base, data)))
    return out


def _record_data(read: Read, source: Source | None, kind: str) -> dict[str, Any] | None:
    """The data of the record of `kind` held where `source` says (None where it is not)."""
    if source is None:
        return None
    held = held_records(read(source[0]))
    record = held[source[1]] if source[1] < len(held) else None
    data = record.get("data") if record is not None and record.get("customType") == kind else None
    return data if isinstance(data, dict) else None


def _changes(base: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """What turns `base` into `wanted` (`record_bursts.merged`): a field set, or removed by a null."""
    said = {key: value for key, value in wanted.items() if value is not None}
    return {**{key: value for key, value in said.items() if base.get(key) != value},
            **{key: None for key, value in base.items() if value is not None and key not in said}}


def _carried(entry: str, run: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """A carried record naming the records at these positions of `entry`, with their changes."""
    common = dict(run[0][1]) if len(run) > 1 else {}
    for _, changes in run[1:]:
        common = {key: value for key, value in common.items() if key in changes and changes[key] == value}
    items: list[Any] = []
    for position, changes in run:
        own = {key: value for key, value in changes.items() if key not in common}
        items.append([position, own] if own else position)
    data: dict[str, Any] = {"entry": entry, "records": items}
    if common:
        data["with"] = common
    return data


def _chain_on(chain: ChainEntry, branch: _Branch) -> bool:
    """A compressed chain applies to a branch that holds its whole range: both ends and every output."""
    final = chain.final_assistant_timestamp
    return (("user", chain.start_user_timestamp) in branch.stamps and final is not None
            and ("assistant", final) in branch.stamps and all(key in branch.keys for key in chain.lookup_keys))


def _fold_refs(fold: Fold) -> list[str]:
    return [ref.short_id for raw in fold.refs if (ref := SummaryRef.from_json(raw)) is not None]


def _is_original(index: ToolCallIndexer, record: ToolCallRecord) -> bool:
    """Whether the record is the output identical ones were deduplicated to (the first summarised)."""
    return index.lookup_by_content(record.tool_name, record.result_text) == record.key


def _details(index: ToolCallIndexer, keys: list[str]) -> dict[str, Any]:
    """A summary's details (pi-condense's shape) naming only `keys`, the outputs of it the branch holds."""
    records = [record for key in keys if (record := index.get_record(key)) is not None]
    refs = [SummaryRef(index.get_short_ref(r.key) or r.tool_call_id, r.tool_call_id, r.result_timestamp,
                       r.result_occurrence) for r in records]
    return {"toolCallRefs": [ref.to_json() for ref in refs], "toolNames": [r.tool_name for r in records],
            "turnIndex": max((r.turn_index for r in records), default=0),
            "timestamp": max((r.timestamp for r in records), default=0)}


def _frontier(held: Frontier | None, now: Frontier | None, entries: list[dict[str, Any]]) -> Frontier | None:
    """The frontier the old branch reached, when its last attempted call is on the new branch and beyond
    the new branch's own frontier: the batches before it were attempted there (summarised, or skipped as
    too small or too big), and attempting them again would only repeat that."""
    if held is None or (now is not None and now.last_attempted_turn_index >= held.last_attempted_turn_index):
        return None
    target = held.last_attempted_tool_call_id
    on_branch = any(record.turn_index == held.last_attempted_turn_index and target in (record.tool_call_id,
                                                                                       record.key)
                    for record in branch_records(entries))
    return held if on_branch else None
