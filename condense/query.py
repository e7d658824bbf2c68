"""`context_tree_query`: how the model gets back an output that pruning took out of its context.

The host registers the tool with these constants and calls `run_query`; everything the model reads
comes from the index (and, for spilled outputs, from the sidecar the record points at), so recovery
works the same after a restart as in the turn the output was pruned.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from condense.blobs import read_spilled, utf8_bytes
from condense.index import ToolCallIndexer
from condense.records import QUERY_TOOL, ToolCallRecord

log = logging.getLogger("condense")

QUERY_TOOL_NAME = QUERY_TOOL
QUERY_TOOL_LABEL = "Query Original Tool History"
QUERY_TOOL_DESCRIPTION = (
    "Get back the full original output of tool calls that were pruned from the conversation. "
    "Pass the short refs shown in a pruner summary or stub (like t12), occurrence keys (id@timestamp) "
    "or raw tool call ids. A raw id that the provider reused for several calls returns every "
    "occurrence, each labelled id@timestamp. "
    'Example: context_tree_query({"toolCallIds": ["t3", "t4"]})'
)
QUERY_TOOL_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "toolCallIds": {
            "type": "array",
            "items": {"type": "string", "description": "A short ref (t12), an occurrence key or a raw id"},
            "description": "Refs or ids to retrieve; a reused raw id returns every occurrence (id@timestamp)",
        }
    },
    "required": ["toolCallIds"],
}

MAX_LINES = 2000
MAX_BYTES = 50 * 1024
SEPARATOR = "\n\n---\n\n"
MISSING_SIDECAR = "(spilled output unavailable — sidecar file missing)"


def run_query(indexer: ToolCallIndexer, tool_call_ids: list[str], blobs_dir: Path | None = None,
              transcript: Callable[[str], str | None] | None = None) -> tuple[str, dict[str, Any]]:
    """The tool's text (one block per record, or a not-found block per unknown input) and details
    `{"results": {label: record}}`. `blobs_dir` is the session's spill folder as it is now, where a
    sidecar whose recorded path went stale is looked for; `transcript` gives a folded stretch of the
    conversation by its fold ref (`fN`, see `condense.fold`)."""
    blocks: list[str] = []
    results: dict[str, Any] = {}
    for wanted in tool_call_ids:
        folded = transcript(wanted) if transcript is not None else None
        if folded is not None:
            blocks.append(f"## toolRef: {wanted}\nFolded history (the requests and replies a fold took out of"
                          f" view; ask for an output by its id for the whole of it)\n\n{_truncated(folded)}")
            continue
        matches = indexer.get_records_for_id(wanted)
        if not matches:
            blocks.append(f"## toolRef: {wanted}\n(not found in index — may not have been summarized yet)")
        several = len(matches) > 1
        for key, record in matches:
            label = key if several else wanted
            results[label] = record.to_json()
            blocks.append(_block(label, record, blobs_dir, legacy_note=several and record.result_timestamp is None))
    return SEPARATOR.join(blocks), {"results": results}


def _block(label: str, record: ToolCallRecord, blobs_dir: Path | None, *, legacy_note: bool) -> str:
    lines = [f"## toolRef: {label}"]
    if legacy_note:
        lines.append("Occurrence: legacy (no resultTimestamp)")
    lines += [
        f"Tool: {record.tool_name}",
        f"Args: {json.dumps(record.args, indent=2, ensure_ascii=False)}",
        f"Status: {'ERROR' if record.is_error else 'OK'}",
        f"Turn: {record.turn_index}",
        "",
        _truncated(_body(record, blobs_dir)),
    ]
    return "\n".join(lines)


def _body(record: ToolCallRecord, blobs_dir: Path | None) -> str:
    if not record.spill_path:
        return record.result_text
    text = read_spilled(record.spill_path, blobs_dir)
    if text is None:
        log.warning("context_tree_query: cannot read the sidecar of %s at %s", record.key, record.spill_path)
        return record.result_preview if record.result_preview is not None else MISSING_SIDECAR
    return text


def _truncated(text: str) -> str:
    """Pi's head truncation: whole lines from the top within both limits, plus a line saying so.
    (The host has its own copy for its tools; the engine may not import the host.)"""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # a trailing newline ends the last line, it does not start another
    total = len(lines)
    if total <= MAX_LINES and len(utf8_bytes(text)) <= MAX_BYTES:
        return text
    kept: list[str] = []
    used = 0
    for line in lines[:MAX_LINES]:
        used += len(utf8_bytes(line)) + (1 if kept else 0)
        if used > MAX_BYTES:
            break
        kept.append(line)
    if len(kept) == total:  # only the final newline was over the limit
        return text
    return "\n".join(kept) + f"\n[Output truncated: {len(kept)}/{total} lines shown]"
