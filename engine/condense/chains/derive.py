"""What a compact `context-prune-chain` entry leaves out, read back from the branch it sits on.

A compressed chain is named by its two boundary timestamps; the outputs it drops are the calls between
them, and a deterministic body is made from those outputs' index records. pi-condense's entry copies
both (the ids twice: bare and by occurrence), which made them the largest records of a pruned session
file; the compact entry keeps only what the branch cannot tell, and a rebuild completes it here with
exactly what compression wrote, so a reopened session renders the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from condense.chains.backfill import deterministic_body
from condense.chains.detect import branch_messages, detect_chains
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
