"""The `ls` tool: one directory's entries, so the model can look around without running a shell."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field

from pi_tui.tools.abortable import in_thread
from pi_tui.tools.base import Tool, ToolContext, ToolError, ToolOutput, ToolParams
from pi_tui.tools.pathing import resolve_path
from pi_tui.tools.truncate import DEFAULT_MAX_BYTES, append_notices, format_size, truncate_head

DEFAULT_LIMIT = 500


class LsParams(ToolParams):
    path: str = Field(default=".", description="Directory to list (default: the working directory)")
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, description="Maximum number of entries (default: 500)")


def _entries(directory: Path) -> list[str]:
    """Names with `/` after directories (symlinks to directories count), sorted ignoring case."""
    try:
        with os.scandir(directory) as scan:
            names = [entry.name + ("/" if entry.is_dir() else "") for entry in scan]
    except OSError as error:
        raise ToolError(f"Cannot read directory: {error.strerror or error}") from error
    return sorted(names, key=lambda name: (name.lower(), name))


class LsTool(Tool):
    name = "ls"
    label = "ls"
    description = (
        "List a directory: one entry per line, dotfiles included, sorted alphabetically, directories "
        f"marked with a trailing '/'. At most {DEFAULT_LIMIT} entries (see limit) or "
        f"{DEFAULT_MAX_BYTES // 1024}KB. Use find to search a whole tree."
    )
    Params = LsParams

    async def run(self, params: LsParams, ctx: ToolContext) -> ToolOutput:
        directory = resolve_path(params.path, ctx.cwd)
        if not directory.exists():
            raise ToolError(f"Path not found: {directory}")
        if not directory.is_dir():
            raise ToolError(f"Not a directory: {directory}")
        names = await in_thread(ctx.signal, _entries, directory)
        if not names:
            return ToolOutput.text("(empty directory)")
        cut = truncate_head("\n".join(names[: params.limit]), max_lines=len(names) + 1)
        notices: list[str] = []
        details: dict[str, object] = {}
        if len(names) > params.limit:
            notices.append(f"{params.limit} entries limit reached. Use limit={params.limit * 2} for more")
            details["entryLimitReached"] = params.limit
        if cut.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details["truncation"] = cut.to_details()
        return ToolOutput.text(append_notices(cut.content, notices), details or None)
