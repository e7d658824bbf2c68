"""The text a summariser reads for one batch of tool calls.

Each call gets a `[[N:tool]]` label numbered by its position in the batch (never by its provider id,
which can be anything): the model copies the label onto its first bullet for that call, and
`refs.substitute_inline_refs` turns it into the call's `tN` ref. Long results are cut to a head and a
tail rather than a head alone, because the end of an output (a failing test, the latest log rows, an
exit code) is as often the point as its beginning.
"""

from __future__ import annotations

import json

from condense.records import Batch, ToolCallRecord

WHOLE_LIMIT = 8_000  # results up to this many characters are shown whole
HEAD_CHARS = 4_000
TAIL_CHARS = 4_000
CALL_SEPARATOR = "\n---\n"


def window_text(text: str) -> str:
    """The whole text when short; else its head and tail around a marker saying how much was left out."""
    if len(text) <= WHOLE_LIMIT:
        return text
    elided = len(text) - HEAD_CHARS - TAIL_CHARS
    return f"{text[:HEAD_CHARS]} ...[{elided} chars elided]... {text[-TAIL_CHARS:]}"


def call_label(position: int, tool_name: str) -> str:
    """`[[N:tool]]` for the call at 1-based `position` of its batch."""
    return f"[[{position}:{tool_name}]]"


def _serialize_call(position: int, call: ToolCallRecord) -> str:
    args = json.dumps(call.args, indent=2, ensure_ascii=False)
    status = "ERROR" if call.is_error else "OK"
    return (
        f"{call_label(position, call.tool_name)} Tool: {call.tool_name}({args})\n"
        f"Result ({status}): {window_text(call.result_text)}"
    )


def serialize_batch(batch: Batch) -> str:
    calls = CALL_SEPARATOR.join(
        _serialize_call(position, call) for position, call in enumerate(batch.tool_calls, start=1)
    )
    if not batch.assistant_text:
        return calls
    return f"Assistant said: {batch.assistant_text}\n\n{calls}"
