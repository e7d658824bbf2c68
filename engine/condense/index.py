"""The engine's memory of what it pruned: records by occurrence, short refs, dedup aliases, bodies.

Everything here is rebuilt from the session on every start, so the session entries are the truth and
this class is a cache of them. That is why every write persists first and touches memory only after
the append succeeded: a record that is in memory but not in the session would be stubbed now and
then silently come back (or be lost) after a restart.

Keys are opaque strings. Occurrence keys (`id@resultTimestamp`) and the bare ids of records written
before result timestamps existed live side by side; the bare id is only ever used as a fallback where
it cannot pick the wrong occurrence (see `resolve_tool_call_id` and `has_legacy_bare_record`).
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from condense.capture import Answered, TurnScan, answers_by_key
from condense.dedup import content_hash
from condense.messages import content_text
from condense.occurrence import ResultEntries, bare_id, occ_key, occurrence_of, parse_occ_key, result_timestamp_of
from condense.record_bursts import Read, expanded
from condense.records import CHAIN, DEDUP_ALIAS, INDEX, SUMMARY, SummaryRef, ToolCallRecord
from condense.ref_ranges import packed, unpacked

Append = Callable[[str, Any], None]
Branch = Callable[[], list[dict[str, Any]]]
Spiller = Callable[[ToolCallRecord], ToolCallRecord]
"""Moves an oversized record's body to a sidecar and returns the record to persist (unchanged when
small). Raises when the sidecar cannot be written."""


class Taken(list[tuple[str, Any]]):
    """An `Append` that keeps what it is given (type, data), in order: records held until the entry that
    may stand for them is decided on (`told_by_chain`)."""

    def __call__(self, custom_type: str, data: Any) -> None:
        self.append((custom_type, data))


ChainOutputs = Callable[[dict[str, Any], Callable[[str], bool]], list[str]]
"""The occurrence keys of the outputs a compact chain record indexes (its data), in call order: those of
its range the index lacks (`is_indexed`) where it holds them (`chains.derive.ChainOutputs`)."""

INDEXED = "indexed"
"""A compact summary's details say `"indexed": true` where the summary stands for its outputs' index
record: each is named by its result's entry and by nothing else (`ToolCallIndexer.told_by_summary`)."""

_SHORT_REF = re.compile(r"t([0-9]+)")
MISSING_OUTPUT = "(the output's own entry is not on this branch: its text cannot be read back)"


class ToolCallIndexer:
    def __init__(self, copies: bool = True, branch: Branch | None = None) -> None:
        """`copies`: persist each record with its output's text and arguments (pi-condense's format);
        False writes a reference to the output's entry instead (its id, found on `branch`), read back on
        `rebuild`."""
        self.copies = copies
        self._branch = branch
        self._results = ResultEntries()  # the entry holding each output, followed as the branch grows
        self._reset()

    def _reset(self) -> None:
        self._records: dict[str, ToolCallRecord] = {}
        self._keys_by_bare: dict[str, list[str]] = {}
        self._ref_to_key: dict[str, str] = {}
        self._key_to_ref: dict[str, str] = {}
        self._aliases: dict[str, str] = {}  # duplicate key -> original key
        self._by_hash: dict[str, str] = {}  # content hash -> first key seen with it
        self._bodies: list[str] = []  # summary texts in registration order
        self._bodies_by_key: dict[str, list[int]] = {}  # occurrence key -> positions in _bodies
        self._next_ref = 1
        self._reserved: dict[str, int] = {}  # occurrence key -> the ref number set aside for it
        # every key whose lookups may answer differently since, in order: renders re-decide only these
        self.changed_keys: list[str] = []

    # ----- reading -----
    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, key: object) -> bool:
        """Strict membership of the record map (aliases and bare fallbacks do not count)."""
        return key in self._records

    def records(self) -> Iterator[ToolCallRecord]:
        return iter(list(self._records.values()))

    @property
    def next_ref_number(self) -> int:
        return self._next_ref

    def is_summarized(self, occ_key: str) -> bool:
        """Strict: a live result that merely reuses the id of a pruned one is not summarised."""
        return occ_key in self._records or occ_key in self._aliases

    def has_legacy_bare_record(self, bare: str) -> bool:
        """The one sanctioned bare-id path: only when that id has nothing but its legacy record."""
        return bare in self._records and len(self._keys_by_bare.get(bare, ())) == 1

    def resolve_tool_call_id(self, text: str) -> str | None:
        if text in self._records:
            return text
        for table in (self._aliases, self._ref_to_key):
            if text in table:
                return table[text]
        keys = self._keys_by_bare.get(text, [])
        return keys[0] if len(keys) == 1 else None

    def get_record(self, key_or_ref: str) -> ToolCallRecord | None:
        key = self.resolve_tool_call_id(key_or_ref)
        return None if key is None else self._records.get(key)

    def get_records_for_id(self, text: str) -> list[tuple[str, ToolCallRecord]]:
        """Everything `text` can denote, labelled by occurrence key. A bare id lists every occurrence,
        aliases included under their own key, in time order; a key or a ref names exactly one."""
        found: list[tuple[str, ToolCallRecord | None]]
        found = [(key, self._records[key]) for key in self._keys_by_bare.get(text, [])]
        found += [(alias, self._alias_record(alias)) for alias in self._aliases if bare_id(alias) == text]
        listed = [(label, record) for label, record in found if record is not None]
        if listed:
            return sorted(listed, key=lambda item: _when(item[1]))
        if text in self._aliases:
            record = self._alias_record(text)
            return [] if record is None else [(text, record)]
        key = self.resolve_tool_call_id(text)
        return [] if key is None or key not in self._records else [(key, self._records[key])]

    def _alias_record(self, alias: str) -> ToolCallRecord | None:
        """The original's record re-stamped with the alias's own identity, so listings tell them apart."""
        record = self._records.get(self._aliases[alias])
        if record is None:
            return None
        parsed = parse_occ_key(alias)
        return record.with_changes(tool_call_id=parsed.tool_call_id, result_timestamp=parsed.result_timestamp,
                                   result_occurrence=parsed.occurrence)

    def get_short_ref(self, key: str) -> str | None:
        return self._key_to_ref.get(key)

    def lookup_by_content(self, tool_name: str, text: str) -> str | None:
        return self._by_hash.get(content_hash(tool_name, text))

    def summaries(self) -> list[tuple[str, list[str]]]:
        """Every summary text with the occurrence keys it covers (in the order their outputs came), in
        the order the summaries were registered."""
        keys: list[list[str]] = [[] for _ in self._bodies]
        for key, positions in self._bodies_by_key.items():
            for position in positions:
                keys[position].append(key)
        by_time = {key: _when(record) for key, record in self._records.items()}
        return [(text, sorted(covered, key=lambda key: by_time.get(key, (0, 1))))
                for text, covered in zip(self._bodies, keys, strict=True)]

    def aliases(self) -> dict[str, str]:
        """Dedup aliases: a duplicate's occurrence key -> its original's."""
        return dict(self._aliases)

    def detached(self) -> ToolCallIndexer:
        """A copy that later writes and rebuilds of this index leave as it is (what a branch held, kept
        while the engine rebuilds for another branch)."""
        other = copy.copy(self)
        for name, value in vars(self).items():
            if isinstance(value, dict | list):
                setattr(other, name, copy.copy(value))
        return other

    def summaries_covering(self, keys: Iterable[str]) -> list[str]:
        """Distinct summary texts covering any of `keys`, in the order they were registered."""
        positions = sorted({p for key in set(keys) for p in self._bodies_by_key.get(key, ())})
        return list(dict.fromkeys(self._bodies[p] for p in positions))

    # ----- writing (persist first, then memory) -----
    def add_batch(self, records: list[ToolCallRecord], append: Append) -> None:
        if not records:
            return
        append(INDEX, self._persisted(records))
        for record in records:
            self._index(record)
            self._seed_hash(record)

    def told_by_summary(self, records: list[ToolCallRecord]) -> bool:
        """Whether a summary naming `records` (compact) can stand for their index entry: none is indexed
        yet, and the entry would name each by its result's entry and say nothing else. A rebuild then
        indexes them at the summary (`INDEXED`), which is their batch's commit point in either form."""
        return not self.copies and bool(records) and not any(record.key in self._records for record in records) \
            and _plain(self._persisted(records), {})

    def plain_backfill(self, record: ToolCallRecord) -> bool:
        """Whether a chain's backfilled record, written alone, would name its output by its result's entry
        and say nothing else but that it was written outside any turn (`told_by_chain`)."""
        return not self.copies and _plain(self._persisted([record]), {"turnIndex": -1})

    def add_told(self, records: list[ToolCallRecord], refs: list[SummaryRef], *, original: bool) -> None:
        """Index records an entry already written stands for (a summary's, a chain's): memory only."""
        for record in records:
            self._index(record)
            if original:
                self._seed_hash(record)
        self.register_summary_refs(refs)

    def register_duplicate(self, new_key: str, original_key: str, append: Append) -> None:
        if new_key == original_key:
            return
        new, original = parse_occ_key(new_key), parse_occ_key(original_key)
        data: dict[str, Any] = {"newToolCallId": new.tool_call_id}
        data["originalToolCallId"] = original.tool_call_id
        for side, parsed in (("new", new), ("original", original)):
            if parsed.result_timestamp is not None:
                data[f"{side}ResultTimestamp"] = parsed.result_timestamp
            if parsed.occurrence > 1:
                data[f"{side}ResultOccurrence"] = parsed.occurrence
        append(DEDUP_ALIAS, data)
        self._alias(new_key, original_key)

    def backfill_chain_records(
        self, records: list[ToolCallRecord], append: Append, spill: Spiller | None
    ) -> list[SummaryRef]:
        """Index outputs no summary covers (a chain's, so its compression can point at them; superseded
        reads) under fresh refs. All or nothing:
        a spill or append failure raises with memory untouched (ref numbers may be burned). These
        records never become dedup originals: nothing vouched for them as a summarised canonical."""
        stored = [spill(record) for record in records] if spill else list(records)
        refs = self.allocate_summary_refs(stored)
        self.add_with_refs(stored, refs, append, original=False)
        return refs

    def add_with_refs(self, records: list[ToolCallRecord], refs: list[SummaryRef], append: Append, *,
                      original: bool) -> None:
        """Index records under refs already minted, in one entry that names them (persist first). Only
        an `original` record may become the output a later identical one is deduplicated to; the rest
        are written `backfilled`, as pi-condense marks records no summary vouched for."""
        if not records:
            return
        data = self._persisted(records)
        if not original:
            data["backfilled"] = True
        aligned = not self.copies and [ref.key for ref in refs] == [record.key for record in records]
        named = packed([ref.short_id for ref in refs]) if aligned else [ref.to_json() for ref in refs]
        append(INDEX, {**data, "refs": named})
        for record in records:
            self._index(record)
            if original:
                self._seed_hash(record)
        self.register_summary_refs(refs)

    def _persisted(self, records: list[ToolCallRecord]) -> dict[str, Any]:
        """An index entry's records. Compact, a record names its output by the id of the result's entry
        (its call id and timestamps are that entry's: they were two thirds of a compact file's growth),
        alone where pruning added nothing to it; the turn or stale mark most records have is said once (a
        record with another, or none, says its own)."""
        items = [record.to_json(self.copies) for record in records]
        if self.copies:
            return {"toolCalls": items}
        entries = self._entries_of(records)
        named = [_by_entry(item, entries.get(record.key)) for item, record in zip(items, records, strict=True)]
        if not all("entry" in item for item in named):
            return {"toolCalls": named}
        shared = {field: value for field in _SHARED
                  if (value := _most_common([item.get(field) for item in named])) is not None}
        return {"toolCalls": [_alone(_against(item, shared)) for item in named], **shared}

    def _entries_of(self, records: list[ToolCallRecord]) -> dict[str, str]:
        if self._branch is not None and any(record.key not in self._results.by_key for record in records):
            return self._results.of(self._branch())
        return self._results.by_key

    # ----- refs and bodies (memory only: their entries are written by the caller) -----
    def reserve_refs(self, keys: Iterable[str]) -> None:
        """Set ref numbers aside for outputs a flush is about to take, in the order they ran: whichever
        of them gets its ref first (a stale read, a summary, a chain, a fold), the refs read in call
        order. Kept until used, or until the index is rebuilt."""
        for key in keys:
            if key not in self._reserved and key not in self._key_to_ref:
                self._reserved[key] = self._next_ref
                self._next_ref += 1

    def allocate_summary_refs(self, records: list[ToolCallRecord]) -> list[SummaryRef]:
        """Mint `tN` refs (a reserved number where there is one). Numbers are burned even if the refs
        are never registered, so a ref the model may have seen in a discarded summary is never reused
        for another output."""
        return [SummaryRef(f"t{self._number_for(record.key)}", record.tool_call_id, record.result_timestamp,
                           record.result_occurrence) for record in records]

    def _number_for(self, key: str) -> int:
        number = self._reserved.pop(key, None)
        if number is None:
            number, self._next_ref = self._next_ref, self._next_ref + 1
        return number

    def register_summary_refs(self, refs: Iterable[SummaryRef]) -> None:
        for ref in refs:
            if not ref.short_id or not ref.tool_call_id:
                continue
            if ref.short_id != ref.key:  # legacy summaries named outputs by id: no alias
                self._ref_to_key[ref.short_id] = ref.key
                self._key_to_ref[ref.key] = ref.short_id
                self.changed_keys.append(ref.key)
            match = _SHORT_REF.fullmatch(ref.short_id)
            if match:
                self._next_ref = max(self._next_ref, int(match.group(1)) + 1)

    def register_summary_body(self, occ_keys: Iterable[str], text: str) -> None:
        keys = set(occ_keys)
        if text and keys:
            self._bodies.append(text)
            for key in keys:
                self._bodies_by_key.setdefault(key, []).append(len(self._bodies) - 1)

    # ----- rebuild -----
    def rebuild(self, branch_entries: Iterable[object], chain_outputs: ChainOutputs | None = None,
                read: Read | None = None) -> None:
        """Replace all state with what the branch's entries say. Aliases are applied after every
        other entry so one inherits its original's ref whatever order the entries were written in.
        A record written as a reference (no `resultText`) gets its text and arguments from the
        branch's own call and result entries; one a compact summary or chain record stands for
        (`told_by_summary`, `told_by_chain`) is indexed where that record is (`chain_outputs` finds a
        chain's; without it a chain indexes nothing); `read`: the host's way to the records a carried
        record names."""
        self._reset()
        entries = [entry for entry in expanded((e for e in branch_entries if isinstance(e, Mapping)), read)
                   if isinstance(entry, dict)]
        self._results = ResultEntries()
        results = {entry: key for key, entry in self._results.of(entries).items()}
        indexes = {id(entry): named_records(entry["data"], results) for entry in entries
                   if entry.get("type") == "custom" and entry.get("customType") == INDEX
                   and isinstance(entry.get("data"), dict)}
        on_branch = set(results.values())
        told = {id(entry): _summary_records(entry, on_branch) for entry in entries
                if entry.get("type") == "custom_message" and entry.get("customType") == SUMMARY}
        outputs = _Outputs(entries)
        outputs.read([*indexes.values(), *told.values()])
        aliases: list[dict[str, Any]] = []
        for entry in entries:
            kind, custom_type, data = entry.get("type"), entry.get("customType"), entry.get("data")
            if kind == "custom" and custom_type == INDEX and id(entry) in indexes:
                self._replay_index(entry["data"], indexes[id(entry)], outputs.by_key)
            elif kind == "custom_message" and custom_type == SUMMARY:
                self._replay_index({}, told[id(entry)], outputs.by_key)
                self._replay_summary(entry)
            elif kind == "custom" and custom_type == CHAIN and isinstance(data, dict) and data.get("backfilled"):
                self._replay_chain(data, chain_outputs, outputs)
            elif kind == "custom" and custom_type == DEDUP_ALIAS and isinstance(data, dict):
                aliases.append(data)
        for alias in aliases:
            keys = alias_keys(alias)
            if keys is not None:
                self._alias(*keys)

    def _replay_index(self, data: dict[str, Any], raws: list[dict[str, Any]],
                      outputs: dict[str, ToolCallRecord]) -> None:
        backfilled = data.get("backfilled") is True
        records: list[ToolCallRecord] = []
        for raw in raws:
            if not isinstance(raw.get("toolCallId"), str) or not raw["toolCallId"]:
                continue
            record = _read_back(raw, outputs)
            records.append(record)
            self._index(record)
            if not backfilled and record.result_text != MISSING_OUTPUT:
                self._seed_hash(record)
        self.register_summary_refs(_refs(data.get("refs"), records))

    def _replay_chain(self, data: dict[str, Any], chain_outputs: ChainOutputs | None, outputs: _Outputs) -> None:
        """A compact chain record's index records: the outputs of its range the index lacks, under the refs
        it lists, in order (none where they are not as many as its refs: a damaged record)."""
        keys = chain_outputs(data, self.__contains__) if chain_outputs is not None else []
        raws = _identities(keys, {"turnIndex": -1})
        outputs.read([raws])
        if raws and len(raws) == len(unpacked(data["backfilled"])):
            self._replay_index({"backfilled": True, "refs": data["backfilled"]}, raws, outputs.by_key)

    def _replay_summary(self, entry: dict[str, Any]) -> None:
        details = entry.get("details")
        if not isinstance(details, dict):
            return
        if isinstance(details.get("toolCallRefs"), list):
            refs = _refs(details["toolCallRefs"], [])
        else:
            ids = details.get("toolCallIds")
            refs = [SummaryRef(i, i) for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
        self.register_summary_refs(refs)
        content = entry.get("content")
        text = content_text(content) if isinstance(content, str | list) else ""
        self.register_summary_body((ref.key for ref in refs), text)

    # ----- internals -----
    def _index(self, record: ToolCallRecord) -> None:
        key = record.key
        self._records[key] = record
        self.changed_keys.append(key)
        keys = self._keys_by_bare.setdefault(record.tool_call_id, [])
        if key not in keys:
            keys.append(key)

    def _seed_hash(self, record: ToolCallRecord) -> None:
        """First seen wins, so the canonical original of some content never moves."""
        digest = record.content_hash or content_hash(record.tool_name, record.result_text)
        self._by_hash.setdefault(digest, record.key)

    def _alias(self, new_key: str, original_key: str) -> None:
        self._aliases[new_key] = original_key
        self.changed_keys.append(new_key)
        ref = self._key_to_ref.get(original_key)
        if ref is not None:  # the duplicate's stub shows the same `tN` as its original, unless a chain's
            # backfill gave it its own after the alias (a rebuild replays aliases last: keep that ref)
            self._key_to_ref.setdefault(new_key, ref)


def alias_keys(data: dict[str, Any]) -> tuple[str, str] | None:
    """(duplicate, original) occurrence keys of a dedup-alias entry's data, None when it names no ids."""
    new, original = data.get("newToolCallId"), data.get("originalToolCallId")
    if not (isinstance(new, str) and new and isinstance(original, str) and original):
        return None
    return (occ_key(new, result_timestamp_of(data.get("newResultTimestamp")),
                    occurrence_of(data, "newResultOccurrence")),
            occ_key(original, result_timestamp_of(data.get("originalResultTimestamp")),
                    occurrence_of(data, "originalResultOccurrence")))


def _by_entry(item: dict[str, Any], entry: str | None) -> dict[str, Any]:
    """A compact record naming its output by `entry` (as it is where the entry is unknown, or a copy)."""
    if entry is None or "resultText" in item:
        return item
    return {"entry": entry, **{k: v for k, v in item.items() if k not in _TOLD_BY_ENTRY_ID}}


def _most_common(values: list[Any]) -> Any:
    """The value most records have (None: most have none; the first of the most common)."""
    counts = Counter(json.dumps(value) for value in values)
    return next(value for value in values if counts[json.dumps(value)] == max(counts.values()))


def _against(item: dict[str, Any], shared: dict[str, Any]) -> dict[str, Any]:
    """A record as its entry's shared fields leave it: what it has of its own (null for none)."""
    own = {k: v for k, v in item.items() if k not in shared or v != shared[k]}
    return {**own, **{field: None for field in shared if field not in item}}


def _alone(item: dict[str, Any]) -> str | dict[str, Any]:
    """A record naming its output by entry and nothing else is that entry's id."""
    return item["entry"] if list(item) == ["entry"] else item


_TOLD_BY_ENTRY_ID = ("toolCallId", "resultTimestamp", "resultOccurrence")
_SHARED = ("turnIndex", "supersededBy")  # said once by an entry whose records are all named by entry


def named_records(data: dict[str, Any], results: dict[str, str]) -> list[dict[str, Any]]:
    """An index entry's records as pi-condense's dicts: a record named by its result's entry id (by
    `results`, entry id -> occurrence key) gets that output's identity and the turn and stale mark the
    entry says for its records, unless it says its own (null: none). An entry not on the branch leaves a
    record without identity, skipped as a damaged one is."""
    items = data.get("toolCalls")
    shared = {field: data[field] for field in _SHARED if field in data}
    raws: list[dict[str, Any]] = []
    for item in items if isinstance(items, list) else []:
        raw = {"entry": item} if isinstance(item, str) else item
        if not isinstance(raw, dict):
            continue
        if "entry" in raw:
            key = results.get(str(raw["entry"]))
            if key is None:
                raws.append({})
                continue
            parsed = parse_occ_key(key)
            identity = {"toolCallId": parsed.tool_call_id, "resultTimestamp": parsed.result_timestamp}
            if parsed.occurrence > 1:
                identity["resultOccurrence"] = parsed.occurrence
            merged = {**shared, **identity, **{k: v for k, v in raw.items() if k != "entry"}}
            raw = {k: v for k, v in merged.items() if v is not None}  # null: not the entry's shared value
        raws.append(raw)
    return raws


class _Outputs:
    """The branch's own records of the outputs that index records refer to, by occurrence key: only
    those are built, so reading back a few outputs of a long session costs no text of the others. The
    branch's answered calls are found by key in one walk, made at the first ask: a rebuild asks once per
    chain entry, and a walk per ask made reopening a 16,000-message session quadratic."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self._entries = entries
        self._answers: dict[str, Answered] | None = None
        self._asked: set[str] = set()
        self.by_key: dict[str, ToolCallRecord] = {}

    def read(self, records: Iterable[list[dict[str, Any]]]) -> None:
        """Build the records of the outputs these raw records refer to (each output once)."""
        keys = {ToolCallRecord.from_json(raw).key for raws in records for raw in raws if "resultText" not in raw}
        keys -= self._asked
        if not keys:
            return
        self._asked |= keys
        if self._answers is None:
            self._answers = answers_by_key(TurnScan().of(self._entries))
        for key in keys:
            found = self._answers.get(key)
            if found is not None:
                turn, call, result = found
                self.by_key[key] = turn.record(call, result)


def _summary_records(entry: dict[str, Any], on_branch: set[str]) -> list[dict[str, Any]]:
    """The records a compact summary stands for (`INDEXED`): each output it names by occurrence that the
    branch holds, as an index entry naming it by its result's entry reads (`named_records`)."""
    details = entry.get("details")
    if not isinstance(details, dict) or details.get(INDEXED) is not True:
        return []
    refs = [ref for ref in _refs(details.get("toolCallRefs"), []) if ref.result_timestamp is not None]
    return _identities([ref.key for ref in refs if ref.key in on_branch], {})


def _identities(keys: Iterable[str], shared: dict[str, Any]) -> list[dict[str, Any]]:
    """Raw records naming these outputs and saying `shared`, as an index entry naming them by their
    results' entries reads (`named_records`)."""
    raws: list[dict[str, Any]] = []
    for key in keys:
        parsed = parse_occ_key(key)
        raw = {**shared, "toolCallId": parsed.tool_call_id, "resultTimestamp": parsed.result_timestamp}
        if parsed.occurrence > 1:
            raw["resultOccurrence"] = parsed.occurrence
        raws.append(raw)
    return raws


def told_by_chain(written: Taken) -> bool:
    """Whether a compact chain record can stand for the backfilled index entry written for it: one that
    names each output by its result's entry, under refs in its order, and says nothing else but that
    they were written outside any turn (`chains.derive.ChainOutputs` finds them again)."""
    if len(written) != 1 or written[0][0] != INDEX or not isinstance(written[0][1], dict):
        return False
    data = written[0][1]
    return isinstance(data.get("refs"), str) and _plain({k: v for k, v in data.items() if k != "refs"},
                                                        {"turnIndex": -1, "backfilled": True})


def _plain(data: dict[str, Any], shared: dict[str, Any]) -> bool:
    """Whether an index entry's data names every output by its result's entry and says only `shared`."""
    items = data.get("toolCalls")
    return isinstance(items, list) and all(isinstance(item, str) for item in items) \
        and {k: v for k, v in data.items() if k != "toolCalls"} == shared


def _read_back(raw: dict[str, Any], outputs: dict[str, ToolCallRecord]) -> ToolCallRecord:
    """A reference record with what its entries tell (arguments, output text, and the tool name, error
    flag, turn and time a compact record leaves out; a spilled output's text stays in its sidecar file);
    a note where the branch does not hold the output."""
    record = ToolCallRecord.from_json(raw)
    if not record.in_entry:
        return record
    found = outputs.get(record.key)
    if found is None:
        return record if record.spill_path else record.with_changes(result_text=MISSING_OUTPUT)
    told = {field: getattr(found, field) for name, field in _TOLD_BY_ENTRIES.items() if name not in raw}
    if "turnIndex" in raw:  # written outside any turn: its time is its own (or its result's), not its turn's
        told.pop("timestamp", None)
    if not record.spill_path:
        told["result_text"] = found.result_text
    return record.with_changes(args=found.args, **told)


_TOLD_BY_ENTRIES = {"toolName": "tool_name", "isError": "is_error", "turnIndex": "turn_index", "timestamp": "timestamp"}


def _when(record: ToolCallRecord) -> tuple[int, int]:
    return (record.result_timestamp if record.result_timestamp is not None else record.timestamp,
            record.result_occurrence)


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _refs(raw: Any, records: list[ToolCallRecord]) -> list[SummaryRef]:
    """The refs of an index entry: pi-condense's objects, or (compact) each ref alone, naming the record
    at its position (as ranges: `condense.ref_ranges`)."""
    items = list(unpacked(raw)) if isinstance(raw, str) else raw if isinstance(raw, list) else []
    if items and all(isinstance(item, str) for item in items) and len(items) == len(records):
        return [SummaryRef(short, r.tool_call_id, r.result_timestamp, r.result_occurrence)
                for short, r in zip(items, records, strict=True)]
    return [ref for ref in map(SummaryRef.from_json, _dicts(items)) if ref is not None]
