"""The `grep` tool: search file contents, with ripgrep when it is installed and in Python otherwise.

Both backends only find the matching lines; formatting is shared, so the model sees the same result
either way: `path:N: text` for a hit and `path-N- text` for context, paths relative to the searched
directory. Nothing is downloaded: a missing `rg` just means the slower walk in `walk.py`.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import Field

from pi_tui.file_kind import irregular_kind
from pi_tui.tools.abortable import in_thread, raise_if_aborted, run_program
from pi_tui.tools.base import Tool, ToolContext, ToolError, ToolOutput, ToolParams
from pi_tui.tools.pathing import resolve_path, special_file_text
from pi_tui.tools.truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    append_notices,
    format_size,
    split_lines,
    truncate_head,
    truncate_line,
)
from pi_tui.tools.walk import GlobMatcher, walk

DEFAULT_LIMIT = 100
_BINARY_SNIFF = 8192  # like rg: a NUL byte near the start means a binary file, not searched


class GrepParams(ToolParams):
    pattern: str = Field(description="Regular expression to search for (or a plain string with literal=true)")
    path: str | None = Field(
        default=None, description="Directory or file to search (default: the working directory)"
    )
    glob: str | None = Field(default=None, description="Only search files matching this glob, e.g. '*.py'")
    ignoreCase: bool = Field(default=False, description="Case-insensitive search")
    literal: bool = Field(default=False, description="Treat the pattern as a plain string, not a regex")
    context: int = Field(default=0, ge=0, description="Lines to show before and after each match")
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, description="Maximum number of matches (default: 100)")


class Hit(NamedTuple):
    file: Path
    line: int  # 1-based


def _compile(params: GrepParams) -> re.Pattern[str]:
    pattern = re.escape(params.pattern) if params.literal else params.pattern
    try:
        return re.compile(pattern, re.IGNORECASE if params.ignoreCase else 0)
    except re.error as error:
        raise ToolError(f"regex parse error: {error}") from error


def _file_filter(glob: str | None) -> Callable[[str], bool]:
    """`glob` as `rg --glob` reads it: a leading `!` excludes instead of selecting."""
    if not glob:
        return lambda _rel: True
    excluding = glob.startswith("!")
    matcher = GlobMatcher.parse(glob[1:] if excluding else glob)
    return lambda rel: matcher.matches(rel) != excluding


def _candidates(root: Path, glob: str | None, should_stop: Callable[[], bool]) -> Iterator[Path]:
    if not root.is_dir():
        yield root  # a file named explicitly is searched whatever the glob says, as rg does
        return
    wanted = _file_filter(glob)
    for entry in walk(root, should_stop):
        # a named pipe or device in the tree is skipped, as rg skips it: reading one never ends
        if not entry.is_dir and not entry.is_symlink and wanted(entry.rel) and irregular_kind(entry.path) is None:
            yield entry.path


def _scan(root: Path, params: GrepParams, should_stop: Callable[[], bool]) -> list[Hit]:
    """The Python backend: up to limit + 1 hits (one more tells that the limit was reached)."""
    regex = _compile(params)
    hits: list[Hit] = []
    for file in _candidates(root, params.glob, should_stop):
        try:
            data = file.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:_BINARY_SNIFF]:
            continue
        for number, line in enumerate(split_lines(data.decode("utf-8", errors="replace")), start=1):
            if regex.search(line):
                hits.append(Hit(file, number))
                if len(hits) > params.limit or should_stop():
                    return hits
    return hits


def _rg_args(rg: str, root: Path, params: GrepParams) -> list[str]:
    """rg runs inside the searched directory (its globs are relative to where it runs), sorted so
    the first `limit` matches are the same on every run, and skips `.git` as the fallback does."""
    args = [rg, "--json", "--line-number", "--color=never", "--hidden", "--sort=path", "--glob=!.git"]
    if params.ignoreCase:
        args.append("--ignore-case")
    if params.literal:
        args.append("--fixed-strings")
    if params.glob:
        args += ["--glob", params.glob]
    return [*args, "--regexp", params.pattern, "--", "." if root.is_dir() else str(root)]


async def _rg_hits(rg: str, root: Path, params: GrepParams, ctx: ToolContext) -> list[Hit]:
    hits: list[Hit] = []

    def on_line(line: str) -> bool:
        try:
            event = json.loads(line)
        except ValueError:
            return True
        if event.get("type") == "match":
            data = event.get("data", {})
            path, number = data.get("path", {}).get("text"), data.get("line_number")
            if path and isinstance(number, int):
                hits.append(Hit(root / path if root.is_dir() else root, number))
        return len(hits) <= params.limit

    cwd = root if root.is_dir() else root.parent
    result = await run_program(_rg_args(rg, root, params), cwd, ctx.signal, on_line)
    if not result.stopped_early and result.returncode not in (0, 1):
        raise ToolError(result.stderr.strip() or f"ripgrep exited with code {result.returncode}")
    return hits


def _read_lines(file: Path, cache: dict[Path, list[str]]) -> list[str]:
    if file not in cache:
        try:
            text = file.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            text = ""
        cache[file] = [line.removesuffix("\r") for line in split_lines(text)]
    return cache[file]


def _display_name(file: Path, root: Path) -> str:
    """Relative to the searched directory; just the name when one file was searched."""
    if root.is_dir():
        try:
            return file.relative_to(root).as_posix()
        except ValueError:
            pass
    return file.name


def _format(hits: list[Hit], root: Path, context: int) -> tuple[list[str], bool]:
    """Output lines for `hits` with `context` lines around each, and whether a long line was cut."""
    cache: dict[Path, list[str]] = {}
    out: list[str] = []
    cut_any = False
    for hit in hits:
        name = _display_name(hit.file, root)
        lines = _read_lines(hit.file, cache)
        if not lines:
            out.append(f"{name}:{hit.line}: (unable to read file)")
            continue
        for number in range(max(1, hit.line - context), min(len(lines), hit.line + context) + 1):
            text, cut = truncate_line(lines[number - 1])
            cut_any = cut_any or cut
            out.append(f"{name}:{number}: {text}" if number == hit.line else f"{name}-{number}- {text}")
    return out, cut_any


def _result(hits: list[Hit], root: Path, params: GrepParams) -> ToolOutput:
    limit_reached = len(hits) > params.limit
    lines, lines_cut = _format(hits[: params.limit], root, params.context)
    cut = truncate_head("\n".join(lines), max_lines=len(lines) + 1)
    notices: list[str] = []
    details: dict[str, Any] = {}
    if limit_reached:
        limit = params.limit
        notices.append(f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine pattern")
        details["matchLimitReached"] = limit
    if cut.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = cut.to_details()
    if lines_cut:
        notices.append(
            f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
        )
        details["linesTruncated"] = True
    return ToolOutput.text(append_notices(cut.content, notices), details or None)


class GrepTool(Tool):
    name = "grep"
    label = "grep"
    description = (
        "Search file contents for a regular expression (or a plain string with literal=true) under a "
        "directory or in one file. Returns 'path:line: text' for each match, paths relative to the "
        "searched directory; context adds surrounding lines. Skips .gitignore'd files and .git, "
        f"includes hidden files. At most {DEFAULT_LIMIT} matches (see limit) or "
        f"{DEFAULT_MAX_BYTES // 1024}KB; lines longer than {GREP_MAX_LINE_LENGTH} characters are cut."
    )
    Params = GrepParams

    async def run(self, params: GrepParams, ctx: ToolContext) -> ToolOutput:
        raise_if_aborted(ctx.signal)
        root = resolve_path(params.path or ".", ctx.cwd)
        if not root.exists():
            raise ToolError(f"Path not found: {root}")
        refusal = special_file_text(root, params.path or ".")
        if refusal is not None:
            raise ToolError(refusal)
        rg = shutil.which("rg")
        if rg is not None:
            hits = await _rg_hits(rg, root, params, ctx)
        else:
            hits = await in_thread(ctx.signal, _scan, root, params, lambda: ctx.signal.aborted)
        raise_if_aborted(ctx.signal)
        if not hits:
            return ToolOutput.text("No matches found")
        return await in_thread(ctx.signal, _result, hits, root, params)
