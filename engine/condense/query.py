"""`context_tree_query`: how the model gets back an output that pruning took out of its context.

The host registers the tool with these constants and calls `run_query`; everything the model reads
comes from the index (and, for spilled outputs, from the sidecar the record points at), so recovery
works the same after a restart as in the turn the output was pruned.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from condense.arguments import ToolArguments
from condense.blobs import read_spilled
from condense.config import one_line_error
from condense.errors import CondenseError
from condense.index import ToolCallIndexer
from condense.paging import FIRST_PAGE, MAX_BYTES, MAX_LINES, Page, page_text
from condense.records import QUERY_TOOL, ToolCallRecord

log = logging.getLogger("condense")

QUERY_TOOL_NAME = QUERY_TOOL
QUERY_TOOL_LABEL = "Query Original Tool History"
QUERY_TOOL_DESCRIPTION = (
    "Get back the full original output of tool calls that were pruned from the conversation. "
    "Pass the short refs shown in a pruner summary or stub (like t12), occurrence keys (id@timestamp) "
    "or raw tool call ids. A raw id that the provider reused for several calls returns every "
    "occurrence, each labelled id@timestamp. "
    'Example: context_tree_query({"toolCallIds": ["t3", "t4"]}). '
    f"An output longer than {MAX_LINES} lines or {MAX_BYTES // 1024}KB comes in pages: its last line says "
    "which offset (and column) gives the rest; pattern lists the lines containing a text, with their numbers."
)
QUERY_TOOL_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "toolCallIds": {
            "type": "array",
            "items": {"type": "string", "description": "A short ref (t12), an occurrence key or a raw id"},
            "description": "Refs or ids to retrieve; a reused raw id returns every occurrence (id@timestamp)",
        },
        "offset": {"type": "integer", "minimum": 1, "description": "Line to start at (1-based)"},
        "column": {"type": "integer", "minimum": 1,
                   "description": "Character of the offset line to start at (1-based), for a very long line"},
        "limit": {"type": "integer", "minimum": 1, "description": "Most lines to return"},
        "pattern": {"type": "string", "minLength": 1,
                    "description": "Only the lines containing this text (any case), numbered"},
    },
    "required": ["toolCallIds"],
}


class QueryError(CondenseError, ValueError):
    """Arguments of a `context_tree_query` call that name no page (an offset of 0, an empty pattern)."""


class QueryArguments(ToolArguments):
    """The tool's arguments as QUERY_TOOL_PARAMETERS describes them: every caller (pi-tui's tool, the
    library's facades, `pi-tui query`) validates them here, so they take and refuse the same."""

    toolCallIds: list[str]
    offset: int = Field(1, ge=1)
    column: int = Field(1, ge=1)
    limit: int | None = Field(None, ge=1)
    pattern: str | None = Field(None, min_length=1)

    def page(self) -> Page:
        return Page(self.offset, self.column, self.limit, self.pattern)

    @classmethod
    def checked(cls, arguments: Mapping[str, Any]) -> QueryArguments:
        """The arguments validated, or QueryError saying in one line what is wrong."""
        try:
            return cls.model_validate(arguments)
        except ValidationError as exc:
            raise QueryError(one_line_error(exc)) from None


SEPARATOR = "\n\n---\n\n"
MISSING_SIDECAR = "(spilled output unavailable — sidecar file missing)"


def run_query(indexer: ToolCallIndexer, tool_call_ids: list[str], blobs_dir: Path | None = None,
              transcript: Callable[[str], str | None] | None = None,
              page: Page = FIRST_PAGE) -> tuple[str, dict[str, Any]]:
    """The tool's text (one block per record, or a not-found block per unknown input) and details
    `{"results": {label: record}}`. `blobs_dir` is the session's spill folder as it is now, where a
    sidecar whose recorded path went stale is looked for; `transcript` gives a folded stretch of the
    conversation by its fold ref (`fN`, see `condense.fold`); `page` says which part of each output."""
    blocks: list[str] = []
    results: dict[str, Any] = {}
    for wanted in tool_call_ids:
        folded = transcript(wanted) if transcript is not None else None
        if folded is not None:
            blocks.append(f"## toolRef: {wanted}\nFolded history (the requests and replies a fold took out of view;"
                          f" ask for an output by its id for the whole of it)\n\n{page_text(folded, wanted, page)}")
            continue
        matches = indexer.get_records_for_id(wanted)
        if not matches:
            blocks.append(f"## toolRef: {wanted}\n(not found in index — may not have been summarized yet)")
        several = len(matches) > 1
        for key, record in matches:
            label = key if several else wanted
            results[label] = record.to_json()
            blocks.append(_block(label, record, blobs_dir, page,
                                 legacy_note=several and record.result_timestamp is None))
    return SEPARATOR.join(blocks), {"results": results}


def _block(label: str, record: ToolCallRecord, blobs_dir: Path | None, page: Page, *, legacy_note: bool) -> str:
    lines = [f"## toolRef: {label}"]
    if legacy_note:
        lines.append("Occurrence: legacy (no resultTimestamp)")
    lines += [
        f"Tool: {record.tool_name}",
        f"Args: {json.dumps(record.args, indent=2, ensure_ascii=False)}",
        f"Status: {'ERROR' if record.is_error else 'OK'}",
        f"Turn: {record.turn_index}",
        "",
        page_text(_body(record, blobs_dir), label, page),
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
