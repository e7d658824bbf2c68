"""A summariser that needs no model: picks the telling lines out of each output.

It keeps pruning working offline, without an API key, and in tests that must be reproducible. Each
call becomes one bullet that starts with the same `[[N:tool]]` label a model would copy, so inline refs
work unchanged. What it keeps is what an agent most often needs back: whether the call failed and
why, which files were involved, how the output began and ended, and how big it was. Bullets are
capped well below the output they stand for, or summarising would not save anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from condense.plural import counted
from condense.records import Batch, ToolCallRecord
from condense.summarize.refs import FOOTER_HEADING, FOOTER_HINT, refs_line
from condense.summarize.serialize import call_label

BULLET_CAP = 400  # characters per call at most
SHARE_CAP = 0.3  # ... and at most this share of an output longer than SHARE_FROM characters
SHARE_FROM = 1_000
KEY_ARG_CHARS = 80
LINE_CHARS = 160
MAX_ERROR_LINES = 3
MAX_PATHS = 4
KEY_ARGS = ("path", "file_path", "command", "pattern", "query", "url")

_ERROR_LINE = re.compile(r"Error|Traceback|FAILED|failed|exit code|Command exited with code")
_PATH = re.compile(r"(?<![\w/.-])(?:\.{0,2}/)?(?:[\w.-]+/)*[\w-]+\.([A-Za-z]\w{0,7})(?![\w/])")
# without a slash, only these endings make `name.ext` a file rather than an attribute like `os.path`
FILE_EXTENSIONS = frozenset({
    "c", "cc", "cfg", "cpp", "css", "go", "h", "hpp", "html", "ini", "java", "js", "json", "jsx", "kt",
    "lock", "log", "md", "mjs", "py", "rb", "rs", "sh", "sql", "toml", "ts", "tsx", "txt", "xml", "yaml",
    "yml",
})
_FOOTER_REF = re.compile(r"`([^`\n]+)`")


def _shorten(text: str, limit: int, keep_tail: bool = False) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    if keep_tail:  # the end of a path (the file name) says more than its start
        return "…" + text[-(limit - 1):]
    return text[: limit - 1] + "…"


def _key_argument(call: ToolCallRecord) -> str:
    for key in KEY_ARGS:
        value = call.args.get(key)
        if isinstance(value, str) and value.strip():
            first_line = value.strip().split("\n", 1)[0]
            is_path = key in ("path", "file_path")
            return _shorten(first_line, KEY_ARG_CHARS, keep_tail=is_path)
    return ""


def _error_lines(lines: list[str]) -> list[str]:
    """The first errors show the cause, the last one the verdict (a test summary, an exit code)."""
    found = [line for line in lines if _ERROR_LINE.search(line)]
    picked = found[: MAX_ERROR_LINES - 1] + found[MAX_ERROR_LINES - 1 :][-1:]
    return list(dict.fromkeys(picked))


def _paths(text: str, key_arg: str) -> list[str]:
    """Files the output mentions, in order of first mention, leaving out the one the call was about."""
    found = (
        match.group(0)
        for match in _PATH.finditer(text)
        if "/" in match.group(0) or match.group(1).lower() in FILE_EXTENSIONS
    )
    return [path for path in dict.fromkeys(found) if path not in key_arg][:MAX_PATHS]


def _facts(call: ToolCallRecord, key_arg: str) -> list[str]:
    """What the output says, most telling first: failure, size, error lines, how it began and ended,
    other files it names."""
    text = call.result_text
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ["failed, no output" if call.is_error else "no output"]
    size = counted(len(text.splitlines()), "line") + ", " + counted(len(text), "char")
    facts = ["failed" if call.is_error else "ok", size]
    errors = _error_lines(lines)
    facts += [f"error: {_shorten(line, LINE_CHARS)}" for line in errors]
    if len(lines) == 1 and not errors:
        facts.append(f"output: {_shorten(lines[0], LINE_CHARS)}")
    elif len(lines) > 1:
        facts += [f"{name}: {_shorten(line, LINE_CHARS)}"
                  for name, line in (("first", lines[0]), ("last", lines[-1])) if line not in errors]
    paths = _paths(text, key_arg)
    if paths:
        facts.append("paths: " + ", ".join(_shorten(path, KEY_ARG_CHARS, keep_tail=True) for path in paths))
    return facts


def _cap(call: ToolCallRecord) -> int:
    size = len(call.result_text)
    return min(BULLET_CAP, int(size * SHARE_CAP)) if size > SHARE_FROM else BULLET_CAP


def _bullet(position: int, call: ToolCallRecord) -> str:
    key_arg = _key_argument(call)
    head = f"- {call_label(position, call.tool_name)} {call.tool_name}"
    if key_arg:
        head += f" {key_arg}" if "`" in key_arg else f" `{key_arg}`"
    bullet, cap = head + ":", _cap(call)
    for fact in _facts(call, key_arg):
        room = cap - len(bullet) - 1
        if len(fact) <= room:
            bullet += " " + fact + ";"
            continue
        if room > 20:
            bullet += " " + fact[: room - 1] + "…"
        break
    return bullet.rstrip(";")


def extractive_summary(batch: Batch) -> str:
    return "\n".join(_bullet(position, call) for position, call in enumerate(batch.tool_calls, start=1))


def _split_summary(summary: str) -> tuple[list[str], list[str]]:
    """A per-batch summary's content lines and the refs its footer lists. The footer's rule and hint
    lines are dropped: one combined refs line replaces them."""
    lines: list[str] = []
    refs: list[str] = []
    for line in summary.split("\n"):
        stripped = line.strip()
        if stripped.startswith(FOOTER_HEADING):
            refs += _FOOTER_REF.findall(stripped[len(FOOTER_HEADING):])
        elif stripped and stripped not in ("---", FOOTER_HINT):
            lines.append(line)
    return lines, refs


def extractive_range(summaries: Sequence[str]) -> str:
    """Fuse per-batch summaries without a model: their lines in order under one list of refs."""
    lines: list[str] = []
    refs: list[str] = []
    for summary in summaries:
        body, listed = _split_summary(summary)
        lines += body
        refs += listed
    if refs:
        lines.append(refs_line(list(dict.fromkeys(refs))))
    return "\n".join(lines)
