"""What a compact `context-prune-chain` entry leaves out, read back from the branch it sits on.

A compressed chain is named by its two boundary timestamps; the outputs it drops are the calls between
them, and a deterministic body is made from those outputs' index records. pi-condense's entry copies
both (the ids twice: bare and by occurrence), which made them the largest records of a pruned session
file; the compact entry keeps only what the branch cannot tell, and a rebuild completes it here with
exactly what compression wrote, so a reopened session renders the same bytes. The outputs of its range
that no record indexed before it (the ones compression indexed for it, in call order) are its own index
records too, where it lists their refs (`backfilled`): `ChainOutputs` finds them for the index's rebuild.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from condense.chains.backfill import deterministic_body, extract_chain_records
from condense.chains.detect import BranchMessages, branch_messages, detect_chains
from condense.chains.model import ChainEntry, ChainRange
from condense.index import ToolCallIndexer
from condense.names import names_lines
from condense.occurrence import Occurrences
from condense.records import ToolCallRecord


def complete_entries(entries: list[ChainEntry], branch: Sequence[dict[str, Any]],
                     index: ToolCallIndexer) -> list[ChainEntry]:
    """`entries` with the dropped outputs and deterministic bodies compact ones leave to the branch
    (`index` rebuilt from the same branch). A range the branch does not hold drops nothing."""
    if not any(entry.read_back for entry in entries):
        return entries
    ranges = {(chain.start_user_timestamp, chain.final_assistant_timestamp): chain
              for chain in detect_chains(Occurrences().number(branch_messages(branch)))}
    return [_complete(entry, ranges.get((entry.start_user_timestamp, entry.final_assistant_timestamp)), index)
            if entry.read_back else entry for entry in entries]


def _complete(entry: ChainEntry, chain: ChainRange | None, index: ToolCallIndexer) -> ChainEntry:
    entry = replace(entry, dropped_tool_call_ids=chain.middle_tool_call_ids if chain else (),
                    dropped_occurrence_keys=chain.middle_occurrence_keys if chain else ())
    if entry.body_names is None or entry.range_summary_text:
        return entry
    members = chain_members(entry.lookup_keys, index)
    return replace(entry, range_summary_text=deterministic_text(members, entry.tool_refs, entry.body_names, index)
                   if members else None)


def chain_members(keys: Sequence[str], index: ToolCallIndexer) -> list[ToolCallRecord]:
    """The indexed records of a chain's outputs, in chain order: what its deterministic body describes."""
    return [record for key in keys if key in index and (record := index.get_record(key)) is not None]


def deterministic_text(members: Sequence[ToolCallRecord], refs: Sequence[str], names: int,
                       index: ToolCallIndexer) -> str:
    """A chain's mechanical body and the names its outputs used most (`summary_names` = `names`)."""
    body = deterministic_body(members, refs)
    outputs = [(index.get_short_ref(record.key) or record.tool_call_id, record.result_text) for record in members]
    return "\n".join([body, *names_lines(outputs, names, body)])


class ChainOutputs:
    """The outputs a compact chain record indexes (`index.ChainOutputs`), found on `branch`, the branch it
    sits on: the answered, unprotected calls of its range that the index lacks, as compression found them
    (`extract_chain_records`). The branch's messages are walked once, at the first chain asked about;
    `walk`, kept by a caller whose branch grows (the engine, from flush to flush), reads only the entries
    appended since its last walk: a fresh walk at every flush made a long session's replay quadratic."""

    def __init__(self, branch: list[dict[str, Any]], walk: BranchMessages | None = None) -> None:
        self._branch = branch
        self._walk = walk
        self._walked: BranchMessages | None = None

    def __call__(self, data: dict[str, Any], is_indexed: Callable[[str], bool]) -> list[str]:
        entry = ChainEntry.from_json(data, issued="b0")  # its block id names nothing here
        if entry is None or entry.final_assistant_timestamp is None:
            return []
        if self._walked is None:
            self._walked = (self._walk or BranchMessages()).of(self._branch)
        chain = ChainRange(entry.start_user_timestamp, entry.final_assistant_timestamp,
                           protected_tool_call_ids=entry.protected_tool_call_ids)
        walked = self._walked
        return [record.key for record in extract_chain_records(walked.messages, chain, is_indexed, walked.boundaries)]
