"""Output limits shared by the tools, so one tool result never floods the model's context.

Two independent limits apply and whichever is hit first wins: a line count and a UTF-8 byte count.
Reads keep the head (the start of a file is what you asked for); command output keeps the tail
(errors and final results come last). A line is counted only if it has content or a newline after
it: "a\\nb\\n" is two lines, not three.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500

TruncatedBy = Literal["lines", "bytes"]


@dataclass(frozen=True)
class Truncation:
    """What a truncation kept and what the original was, for notices and `details.truncation`."""

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool = False
    first_line_exceeds_limit: bool = False
    max_lines: int = DEFAULT_MAX_LINES
    max_bytes: int = DEFAULT_MAX_BYTES

    def to_details(self) -> dict[str, Any]:
        """Pi's camelCase shape, without the content (the result text already carries it)."""
        return {
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


def split_lines(text: str) -> list[str]:
    """Lines of `text` split on "\\n"; a trailing newline ends the last line instead of starting one."""
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def byte_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def format_size(size: int) -> str:
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f}KB"
    return f"{size / (1024 * 1024):.1f}MB"


def _untouched(content: str, lines: int, size: int, max_lines: int, max_bytes: int) -> Truncation:
    return Truncation(
        content, False, None, lines, size, lines, size, max_lines=max_lines, max_bytes=max_bytes
    )


def truncate_head(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the start. A first line alone over the byte limit gives empty content
    and `first_line_exceeds_limit`, so the caller can point at another way to read it."""
    total_bytes = byte_len(content)
    lines = split_lines(content)
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return _untouched(content, len(lines), total_bytes, max_lines, max_bytes)
    if byte_len(lines[0]) > max_bytes:
        return Truncation(
            "", True, "bytes", len(lines), total_bytes, 0, 0, first_line_exceeds_limit=True,
            max_lines=max_lines, max_bytes=max_bytes,
        )
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for line in lines[:max_lines]:
        cost = byte_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += cost
    if len(kept) == len(lines):  # only a trailing newline was over the limit
        return _untouched(content, len(lines), total_bytes, max_lines, max_bytes)
    return Truncation(
        "\n".join(kept), True, truncated_by, len(lines), total_bytes, len(kept), used,
        max_lines=max_lines, max_bytes=max_bytes,
    )


def _tail_of_line(line: str, max_bytes: int) -> str:
    """The last `max_bytes` bytes of `line`, starting on a character boundary."""
    data = line.encode("utf-8", "surrogatepass")
    start = len(data) - max_bytes
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:].decode("utf-8", "surrogatepass")


def truncate_tail(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the end; when the last line alone is over the byte limit, keep its end
    (`last_line_partial`), because an empty result would hide the very output that matters."""
    total_bytes = byte_len(content)
    lines = split_lines(content)
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return _untouched(content, len(lines), total_bytes, max_lines, max_bytes)
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    partial = False
    for line in reversed(lines[-max_lines:]):
        cost = byte_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                kept.append(_tail_of_line(line, max_bytes))
                used = byte_len(kept[0])
                partial = True
            break
        kept.append(line)
        used += cost
    if len(kept) == len(lines) and not partial:  # only a trailing newline was over the limit
        return _untouched(content, len(lines), total_bytes, max_lines, max_bytes)
    kept.reverse()
    return Truncation(
        "\n".join(kept), True, truncated_by, len(lines), total_bytes, len(kept), used,
        last_line_partial=partial, max_lines=max_lines, max_bytes=max_bytes,
    )


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one long line (a grep hit in minified code) and say whether it was cut."""
    if len(line) <= max_chars:
        return line, False
    return f"{line[:max_chars]}... [truncated]", True


def append_notices(text: str, notices: list[str]) -> str:
    """The footer of a list-like result (grep, find, ls): every notice in one bracketed line."""
    return f"{text}\n\n[{'. '.join(notices)}]" if notices else text
