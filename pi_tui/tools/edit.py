"""The `edit` tool: replace one unique piece of text in a file.

Models often reproduce a line with the wrong invisible details: trailing spaces dropped, a curly
quote typed straight, a no-break space as a plain one. So when the exact text is not found, the
search is repeated on a folded copy of both texts (NFKC, trailing whitespace per line removed, smart
quotes, dashes and unicode spaces made ASCII). The match is then mapped back to the original, so
only the matched span is replaced and the rest of the file keeps its exact bytes. Line endings
(CRLF) and a UTF-8 BOM are kept; bytes that are not valid UTF-8 survive the round trip.
"""

from __future__ import annotations

import difflib
import os
import unicodedata
from pathlib import Path
from typing import Any

from pydantic import Field

from pi_tui.tools.abortable import in_thread, raise_if_aborted
from pi_tui.tools.base import Tool, ToolContext, ToolError, ToolOutput, ToolParams
from pi_tui.tools.pathing import os_error_text, resolve_path, special_file_text

_BOM = "\ufeff"
# Applied after NFKC, which already turns the unicode spaces into " " and U+2011 into U+2010.
_ASCII_FOR = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys("\u2010\u2012\u2013\u2014\u2015\u2212", "-"),
    }
)
DIFF_CONTEXT_LINES = 4


class EditParams(ToolParams):
    path: str = Field(description="Path to the file to edit (relative or absolute)")
    oldText: str = Field(min_length=1, description="Exact text to find; it must occur exactly once")
    newText: str = Field(description="Text to put in its place")


def _fold_piece(piece: str) -> str:
    return unicodedata.normalize("NFKC", piece).translate(_ASCII_FOR)


def fold(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The fuzzy form of `text`, and for each of its characters the span of `text` it came from.

    A base character and the combining marks after it are normalised together, so NFKC can compose
    them; trailing whitespace of every line is dropped.
    """
    chars: list[str] = []
    spans: list[tuple[int, int]] = []
    pending: list[tuple[str, tuple[int, int]]] = []  # whitespace that may turn out to be trailing
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        while j < n and unicodedata.combining(text[j]):
            j += 1
        piece = text[i:j] if text[i:j].isascii() else _fold_piece(text[i:j])
        for char in piece:
            if char == "\n":
                pending.clear()
            elif char.isspace():
                pending.append((char, (i, j)))
                continue
            for held, span in pending:
                chars.append(held)
                spans.append(span)
            pending.clear()
            chars.append(char)
            spans.append((i, j))
        i = j
    return "".join(chars), spans


def _find_span(content: str, old: str, path: str) -> tuple[int, int]:
    """Where `old` occurs in `content`, exactly or else folded; it must occur exactly once."""
    count = content.count(old)
    if count == 1:
        start = content.index(old)
        return start, start + len(old)
    if count == 0:
        folded, spans = fold(content)
        folded_old, _ = fold(old)
        count = folded.count(folded_old) if folded_old else 0
        if count == 1:
            start = folded.index(folded_old)
            return spans[start][0], spans[start + len(folded_old) - 1][1]
    if count == 0:
        raise ToolError(
            f"Could not find the exact text in {path}. "
            "The old text must match exactly including all whitespace and newlines."
        )
    raise ToolError(
        f"Found {count} occurrences of the text in {path}. "
        "The text must be unique. Please provide more context to make it unique."
    )


def _to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _uses_crlf(text: str) -> bool:
    """Whether the first line ending is CRLF: that decides the style the edited file is written in."""
    first = text.find("\n")
    return first > 0 and text[first - 1] == "\r"


def diff_details(old: str, new: str, path: str) -> dict[str, Any]:
    """A unified diff of the edit and the first changed line (1-based, in the new text)."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    diff = difflib.unified_diff(old_lines, new_lines, path, path, n=DIFF_CONTEXT_LINES, lineterm="")
    # One contiguous replacement: the first line that differs from the top is the first change.
    first = next(
        (i + 1 for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=False)) if a != b),
        min(len(old_lines), len(new_lines)) + 1,
    )
    return {"diff": "\n".join(diff), "firstChangedLine": min(first, len(new_lines))}


def _read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="surrogateescape")


def _write_text(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))


class EditTool(Tool):
    name = "edit"
    label = "edit"
    description = (
        "Edit a file by replacing one piece of text: oldText must occur exactly once in the file "
        "(include surrounding lines to make it unique) and is replaced by newText. Copy oldText "
        "from the file exactly, whitespace and newlines included; small differences in trailing "
        "spaces, quotes and dashes are tolerated. Line endings and a BOM are kept. Returns a diff. "
        "Use write to create files or replace them whole."
    )
    Params = EditParams

    async def run(self, params: EditParams, ctx: ToolContext) -> ToolOutput:
        raise_if_aborted(ctx.signal)
        path = resolve_path(params.path, ctx.cwd)
        if not os.access(path, os.R_OK | os.W_OK):
            raise ToolError(f"File not found: {params.path}")
        refusal = special_file_text(path, params.path)
        if refusal is not None:
            raise ToolError(refusal)
        try:
            raw = await in_thread(ctx.signal, _read_text, path)
        except OSError as error:
            raise ToolError(os_error_text(error, path)) from error
        bom = _BOM if raw.startswith(_BOM) else ""
        body = raw[len(bom) :]
        crlf = _uses_crlf(body)
        content = _to_lf(body)
        start, end = _find_span(content, _to_lf(params.oldText), params.path)
        edited = content[:start] + _to_lf(params.newText) + content[end:]
        if edited == content:
            raise ToolError(
                f"No changes made to {params.path}. The replacement produced identical content. "
                "This might indicate an issue with special characters or the text not existing as expected."
            )
        raise_if_aborted(ctx.signal)
        try:
            _write_text(path, bom + (edited.replace("\n", "\r\n") if crlf else edited))
        except OSError as error:
            raise ToolError(os_error_text(error, path)) from error
        return ToolOutput.text(
            f"Successfully replaced text in {params.path}.", diff_details(content, edited, params.path)
        )
