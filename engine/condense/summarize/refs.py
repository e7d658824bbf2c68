"""Short refs (`tN`) in summaries: the inline ones on each bullet and the footer listing them all.

The summariser copies each call's `[[N:tool]]` label onto its first bullet. A label is only trusted
when it stands at the start of a line, names a call of this batch and carries that call's tool name;
then it becomes the call's `` `tN` ``. Every other well-formed label is deleted, so no raw label (or a
ref pointing at the wrong output) ever reaches the conversation. Fenced code is left alone: a label
there is quoted material, not a claim about this batch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from condense.names import names_lines
from condense.records import SummaryRef, ToolCallRecord

SHORT_REF_PREFIX = "t"
FOOTER_HEADING = "**Summarized tool refs**: "
FOOTER_HINT = "Use `context_tree_query` with these refs to retrieve the original full outputs."

_LABEL = r"\[\[(\d+):([^\[\]\n]+)\]\]"
_LEADING_LABEL = re.compile(rf"^([ \t]*(?:[-*][ \t]+)?){_LABEL}[ \t]*")
_ANY_LABEL = re.compile(rf"{_LABEL}[ \t]*")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")


def _inline_ref(match: re.Match[str], refs: Sequence[SummaryRef], tool_names: Sequence[str]) -> str:
    prefix, position, name = match.group(1), int(match.group(2)), match.group(3)
    index = position - 1
    in_range = 0 <= index < len(refs) and index < len(tool_names)
    if in_range and name.strip().lower() == tool_names[index].strip().lower():
        return f"{prefix}`{refs[index].short_id}` "
    return prefix


def _substitute_line(line: str, refs: Sequence[SummaryRef], tool_names: Sequence[str]) -> str:
    line = _LEADING_LABEL.sub(lambda m: _inline_ref(m, refs, tool_names), line, count=1)
    return _ANY_LABEL.sub("", line)


def substitute_inline_refs(text: str, refs: Sequence[SummaryRef], tool_names: Sequence[str]) -> str:
    out: list[str] = []
    fence: str | None = None  # the marker that opened the code block we are in
    for line in text.split("\n"):
        marker = _FENCE.match(line)
        if marker and (fence is None or marker.group(1) == fence):
            fence = marker.group(1) if fence is None else None
            out.append(line)
        elif fence is not None:
            out.append(line)
        else:
            out.append(_substitute_line(line, refs, tool_names))
    return "\n".join(out)


def refs_line(short_ids: Sequence[str]) -> str:
    """`**Summarized tool refs**: `t1`, `t2`.`: a sentence, so it ends with a full stop."""
    return FOOTER_HEADING + ", ".join(f"`{short_id}`" for short_id in short_ids) + "."


def format_refs_footer(refs: Sequence[SummaryRef]) -> str:
    return f"\n\n---\n{refs_line([ref.short_id for ref in refs])}\n{FOOTER_HINT}"


def build_summary_content(llm_text: str, refs: Sequence[SummaryRef], records: Sequence[ToolCallRecord],
                          names_limit: int = 0) -> str:
    """The persisted summary message: the model's text with inline refs, the names each output used
    most that the text leaves out (`condense.names`), then the footer (always)."""
    text = substitute_inline_refs(llm_text, refs, [record.tool_name for record in records])
    outputs = [(ref.short_id, record.result_text) for ref, record in zip(refs, records, strict=True)]
    names = names_lines(outputs, names_limit, text)
    return "\n".join([text, *names]) + format_refs_footer(refs)


def build_short_refs(records: Sequence[ToolCallRecord], start: int) -> tuple[list[SummaryRef], int]:
    """Refs `t<start>`, `t<start+1>`, ... for the records in order, and the next free number."""
    refs = [
        SummaryRef(f"{SHORT_REF_PREFIX}{start + offset}", record.tool_call_id, record.result_timestamp,
                   record.result_occurrence)
        for offset, record in enumerate(records)
    ]
    return refs, start + len(refs)


def normalize_summary_refs(details: Any) -> list[SummaryRef]:
    """The refs of a persisted summary's `details`; sessions written before short refs existed only
    have `toolCallIds`, whose ids then stand in as their own refs."""
    if not isinstance(details, dict):
        return []
    listed = details.get("toolCallRefs")
    if isinstance(listed, list):
        refs = (
            SummaryRef.from_json(ref)
            for ref in listed
            if isinstance(ref, dict) and isinstance(ref.get("shortId"), str)
        )
        return [ref for ref in refs if ref is not None]
    legacy = details.get("toolCallIds")
    if isinstance(legacy, list):
        return [SummaryRef(call_id, call_id) for call_id in legacy if isinstance(call_id, str)]
    return []
