"""The `read` tool: a text file in pages the model can continue, or an image it can look at."""

from __future__ import annotations

import base64
from pathlib import Path

from pydantic import Field

from condense.messages import ImageContent
from pi_tui.tools.abortable import in_thread, raise_if_aborted
from pi_tui.tools.base import Tool, ToolContext, ToolError, ToolOutput, ToolParams
from pi_tui.tools.pathing import os_error_text, resolve_path, special_file_text
from pi_tui.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    byte_len,
    format_size,
    split_lines,
    truncate_head,
)

_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_mime_type(head: bytes) -> str | None:
    """The MIME type of a supported image, judged by its first bytes (extensions lie)."""
    for magic, mime in _IMAGE_MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


class ReadParams(ToolParams):
    path: str = Field(description="Path to the file to read (relative or absolute)")
    offset: int | None = Field(default=None, description="Line number to start reading from (1-indexed)")
    limit: int | None = Field(default=None, ge=1, description="Maximum number of lines to read")


def image_content(data: bytes, mime: str) -> ImageContent:
    """An image as Pi's content block (a user message's attachment too)."""
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime}


def _image_output(data: bytes, mime: str) -> ToolOutput:
    # Pi shrinks images to at most 2000x2000 first; no image library is installed here, so the
    # file is sent as it is.
    return ToolOutput([{"type": "text", "text": f"Read image file [{mime}]"}, image_content(data, mime)])


def _text_output(text: str, params: ReadParams) -> ToolOutput:
    lines = split_lines(text)
    start = max(0, (params.offset or 1) - 1)
    if start and start >= len(lines):
        raise ToolError(f"Offset {params.offset} is beyond end of file ({len(lines)} lines total)")
    end = len(lines) if params.limit is None else min(len(lines), start + params.limit)
    cut = truncate_head("\n".join(lines[start:end]))
    first = start + 1
    if cut.first_line_exceeds_limit:
        size = format_size(byte_len(lines[start]))
        limit = format_size(DEFAULT_MAX_BYTES)
        notice = (
            f"[Line {first} is {size}, exceeds {limit} limit. "
            f"Use bash: sed -n '{first}p' {params.path} | head -c {DEFAULT_MAX_BYTES}]"
        )
        return ToolOutput.text(notice, {"truncation": cut.to_details()})
    if cut.truncated:
        last = start + cut.output_lines
        limit_note = "" if cut.truncated_by == "lines" else f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
        shown = f"Showing lines {first}-{last} of {len(lines)}{limit_note}"
        notice = f"[{shown}. Use offset={last + 1} to continue.]"
        return ToolOutput.text(f"{cut.content}\n\n{notice}", {"truncation": cut.to_details()})
    if end < len(lines):
        notice = f"[{len(lines) - end} more lines in file. Use offset={end + 1} to continue.]"
        return ToolOutput.text(f"{cut.content}\n\n{notice}")
    return ToolOutput.text(cut.content)


class ReadTool(Tool):
    name = "read"
    label = "read"
    description = (
        "Read a file. Text comes back as plain lines; PNG, JPEG, GIF and WebP images come back as an "
        f"image you can see. Text is cut at {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB, "
        "whichever comes first, with a note saying which offset to continue from: use offset and limit "
        "to page through large files. Prefer this over cat/sed in bash."
    )
    Params = ReadParams

    async def run(self, params: ReadParams, ctx: ToolContext) -> ToolOutput:
        path = resolve_path(params.path, ctx.cwd)
        refusal = special_file_text(path, params.path)
        if refusal is not None:
            raise ToolError(refusal)
        try:
            data = await in_thread(ctx.signal, Path.read_bytes, path)
        except OSError as error:
            raise ToolError(os_error_text(error, path)) from error
        raise_if_aborted(ctx.signal)
        mime = image_mime_type(data[:12])
        if mime is not None:
            return _image_output(data, mime)
        return _text_output(data.decode("utf-8", errors="replace"), params)
