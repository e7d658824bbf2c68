"""The `write` tool: create or overwrite a whole file, making its directories as needed."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from pi_tui.tools.abortable import in_thread
from pi_tui.tools.base import Tool, ToolContext, ToolError, ToolOutput, ToolParams
from pi_tui.tools.pathing import os_error_text, resolve_path


class WriteParams(ToolParams):
    path: str = Field(description="Path to the file to write (relative or absolute)")
    content: str = Field(description="The complete new content of the file")


def _write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8", newline="")


class WriteTool(Tool):
    name = "write"
    label = "write"
    description = (
        "Write a whole file: creates it (and any missing parent directories) or replaces its entire "
        "content. Use it for new files or complete rewrites; use edit to change part of a file."
    )
    Params = WriteParams

    async def run(self, params: WriteParams, ctx: ToolContext) -> ToolOutput:
        path = resolve_path(params.path, ctx.cwd)
        try:
            await in_thread(ctx.signal, _write, path, params.content)
        except OSError as error:
            raise ToolError(os_error_text(error, error.filename or path)) from error
        # Pi reports the length of the string, not its UTF-8 size; kept for identical results.
        return ToolOutput.text(f"Successfully wrote {len(params.content)} bytes to {params.path}")
