"""The `find` tool: file paths matching a glob, with `fd` when it is installed and in Python otherwise.

A pattern without `/` matches names at any depth (`*.py`); a pattern with `/` matches the whole
path relative to the search directory (`src/**/*.py`). Directories are listed with a trailing `/`.
Nothing is downloaded: a missing `fd` just means the walk in `walk.py`.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from pi_tui.tools.abortable import in_thread, raise_if_aborted, run_program
from pi_tui.tools.base import Tool, ToolContext, ToolError, ToolOutput, ToolParams
from pi_tui.tools.pathing import resolve_path
from pi_tui.tools.truncate import DEFAULT_MAX_BYTES, append_notices, format_size, truncate_head
from pi_tui.tools.walk import GlobMatcher, walk

DEFAULT_LIMIT = 1000


class FindParams(ToolParams):
    pattern: str = Field(description="Glob to match, e.g. '*.py', '**/*.json' or 'src/**/test_*.py'")
    path: str | None = Field(
        default=None, description="Directory to search (default: the working directory)"
    )
    limit: int = Field(
        default=DEFAULT_LIMIT, ge=1, description="Maximum number of results (default: 1000)"
    )


def _scan(root: Path, pattern: str, limit: int, should_stop: Callable[[], bool]) -> list[str]:
    """The Python backend: up to limit + 1 paths (one more tells that the limit was reached)."""
    matcher = GlobMatcher.parse(pattern)
    found: list[str] = []
    for entry in walk(root, should_stop):
        if matcher.matches(entry.rel):
            found.append(entry.rel + "/" if entry.is_dir else entry.rel)
            if len(found) > limit:
                break
    return found


def _fd_args(fd: str, root: Path, pattern: str, limit: int) -> list[str]:
    args = [fd, "--glob", "--color=never", "--hidden", "--exclude=.git", "--max-results", str(limit + 1)]
    if (root / ".gitignore").is_file():  # fd reads .gitignore on its own only inside a git repository
        args += ["--ignore-file", str(root / ".gitignore")]
    if "/" in pattern:  # match the path below the root, not just the name
        args.append("--full-path")
        pattern = re.sub(r"([][*?{}\\])", r"\\\1", root.as_posix()) + "/" + pattern.removeprefix("./")
    return [*args, "--", pattern, str(root)]


async def _fd_paths(fd: str, root: Path, params: FindParams, ctx: ToolContext) -> list[str]:
    lines: list[str] = []

    def on_line(line: str) -> bool:
        if line.strip():
            lines.append(line.strip())
        return True

    result = await run_program(_fd_args(fd, root, params.pattern, params.limit), root, ctx.signal, on_line)
    if result.returncode != 0 and not lines:
        raise ToolError(result.stderr.strip() or f"fd exited with code {result.returncode}")
    found = []
    for line in sorted(lines):
        rel = Path(os.path.relpath(line, root)).as_posix()
        found.append(rel + "/" if line.endswith("/") and not rel.endswith("/") else rel)
    return found


def _result(found: list[str], limit: int) -> ToolOutput:
    shown = found[:limit]
    cut = truncate_head("\n".join(shown), max_lines=len(shown) + 1)
    notices: list[str] = []
    details: dict[str, Any] = {}
    if len(found) > limit:
        notices.append(
            f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
        )
        details["resultLimitReached"] = limit
    if cut.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = cut.to_details()
    return ToolOutput.text(append_notices(cut.content, notices), details or None)


class FindTool(Tool):
    name = "find"
    label = "find"
    description = (
        "Find files and directories by glob. A pattern without '/' matches names at any depth "
        "('*.py'); with '/' it matches the path relative to the search directory ('src/**/*.ts'). "
        "Returns paths relative to the search directory, directories ending in '/'. Skips .gitignore'd "
        f"files and .git, includes hidden files. At most {DEFAULT_LIMIT} results (see limit) or "
        f"{DEFAULT_MAX_BYTES // 1024}KB. Use grep to search inside files."
    )
    Params = FindParams

    async def run(self, params: FindParams, ctx: ToolContext) -> ToolOutput:
        raise_if_aborted(ctx.signal)
        root = resolve_path(params.path or ".", ctx.cwd)
        if not root.exists():
            raise ToolError(f"Path not found: {root}")
        if not root.is_dir():
            raise ToolError(f"Not a directory: {root}")
        fd = shutil.which("fd")
        if fd is not None:
            found = await _fd_paths(fd, root, params, ctx)
        else:
            signal = ctx.signal
            found = await in_thread(signal, _scan, root, params.pattern, params.limit, lambda: signal.aborted)
        raise_if_aborted(ctx.signal)
        if not found:
            return ToolOutput.text("No files found matching pattern")
        return _result(found, params.limit)

