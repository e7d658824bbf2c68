"""The edit tool: unique exact replacement, the fuzzy fallback, line endings, BOM and Pi's errors."""

import asyncio
import os
from pathlib import Path

import pytest

from pi_tui.abort import AbortSignal
from pi_tui.tools.base import ToolContext, ToolError, ToolOutput
from pi_tui.tools.edit import EditTool, fold


async def edit(cwd: Path, path: str, old: str, new: str, signal: AbortSignal | None = None) -> ToolOutput:
    tool = EditTool()
    params = tool.Params(path=path, oldText=old, newText=new)
    return await tool.run(params, ToolContext(cwd=cwd, signal=signal or AbortSignal()))


async def edit_error(cwd: Path, path: str, old: str, new: str) -> str:
    with pytest.raises(ToolError) as info:
        await edit(cwd, path, old, new)
    return str(info.value)


async def test_exact_replacement_with_diff(tmp_path: Path) -> None:
    lines = [f"line {i}" for i in range(1, 21)]
    (tmp_path / "f.txt").write_text("\n".join(lines) + "\n")
    out = await edit(tmp_path, "f.txt", "line 10\nline 11", "line ten\nline 11")
    assert out.content == [{"type": "text", "text": "Successfully replaced text in f.txt."}]
    assert (tmp_path / "f.txt").read_text().split("\n")[9] == "line ten"
    assert out.details is not None and out.details["firstChangedLine"] == 10
    diff = out.details["diff"].split("\n")
    assert diff[:3] == ["--- f.txt", "+++ f.txt", "@@ -6,9 +6,9 @@"]
    assert "-line 10" in diff and "+line ten" in diff and " line 11" in diff


async def test_first_changed_line_skips_unchanged_leading_lines_of_the_match(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\nd\n")
    out = await edit(tmp_path, "f.txt", "b\nc", "b\nC")
    assert out.details is not None and out.details["firstChangedLine"] == 3


async def test_not_found(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("hello\n")
    assert await edit_error(tmp_path, "f.txt", "goodbye", "x") == (
        "Could not find the exact text in f.txt. "
        "The old text must match exactly including all whitespace and newlines."
    )


async def test_not_unique(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x = 1\nx = 1\nx = 1\n")
    assert await edit_error(tmp_path, "f.txt", "x = 1", "x = 2") == (
        "Found 3 occurrences of the text in f.txt. "
        "The text must be unique. Please provide more context to make it unique."
    )


async def test_not_unique_after_folding(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("say(‘hi’)\nsay('hi')  \n")
    assert (await edit_error(tmp_path, "f.txt", "say('hi')\n", "x")).startswith("Found 2 occurrences")


async def test_no_change(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("same\n")
    assert await edit_error(tmp_path, "f.txt", "same", "same") == (
        "No changes made to f.txt. The replacement produced identical content. "
        "This might indicate an issue with special characters or the text not existing as expected."
    )


async def test_missing_file(tmp_path: Path) -> None:
    assert await edit_error(tmp_path, "nope.py", "a", "b") == "File not found: nope.py"


async def test_fuzzy_match_replaces_only_the_matched_span(tmp_path: Path) -> None:
    original = "keep   \nprint(“hello” – “world”)   \nalso\u00a0keep\t\n"
    (tmp_path / "f.py").write_text(original)
    await edit(tmp_path, "f.py", 'print("hello" - "world")\n', 'print("hi")\n')
    assert (tmp_path / "f.py").read_text() == "keep   \nprint(\"hi\")\nalso\u00a0keep\t\n"


@pytest.mark.parametrize(
    ("content", "old"),
    [
        ("total = ＡＢＣ + 1\n", "total = ABC + 1"),  # NFKC: fullwidth letters
        ("x\u00a0=\u20031\n", "x = 1"),  # unicode spaces
        ("a \u2014 b\n", "a - b"),  # em dash
        ("it\u2019s\n", "it's"),  # smart quote
        ("def f():   \n    return 1\t \n", "def f():\n    return 1\n"),  # trailing whitespace
        ("cafe\u0301 = 1\n", "café = 1"),  # a combining accent composed by NFKC
    ],
)
async def test_fuzzy_variants(tmp_path: Path, content: str, old: str) -> None:
    (tmp_path / "f.txt").write_text(content)
    await edit(tmp_path, "f.txt", old, "REPLACED")
    assert "REPLACED" in (tmp_path / "f.txt").read_text()


async def test_crlf_is_kept(tmp_path: Path) -> None:
    (tmp_path / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await edit(tmp_path, "win.txt", "two\nthree", "2\n3")
    assert (tmp_path / "win.txt").read_bytes() == b"one\r\n2\r\n3\r\n"
    await edit(tmp_path, "win.txt", "one\r\n2", "1\r\n2")  # CRLF in the arguments works too
    assert (tmp_path / "win.txt").read_bytes() == b"1\r\n2\r\n3\r\n"


async def test_bom_is_kept(tmp_path: Path) -> None:
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbfhello world\n")
    await edit(tmp_path, "bom.txt", "hello", "goodbye")
    assert (tmp_path / "bom.txt").read_bytes() == b"\xef\xbb\xbfgoodbye world\n"


async def test_invalid_utf8_elsewhere_survives(tmp_path: Path) -> None:
    (tmp_path / "mixed.txt").write_bytes(b"caf\xe9 \xff\nname = 1\n")
    await edit(tmp_path, "mixed.txt", "name = 1", "name = 2")
    assert (tmp_path / "mixed.txt").read_bytes() == b"caf\xe9 \xff\nname = 2\n"


async def test_dollar_and_backslash_in_new_text_are_literal(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("price\n")
    await edit(tmp_path, "f.txt", "price", r"$1 \1 $&")
    assert (tmp_path / "f.txt").read_text() == "$1 \\1 $&\n"


async def test_aborted_edit_leaves_the_file(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("old\n")
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await edit(tmp_path, "f.txt", "old", "new", signal)
    assert (tmp_path / "f.txt").read_text() == "old\n"


async def test_parent_relative_path(tmp_path: Path) -> None:
    (tmp_path / "shared.txt").write_text("v1\n")
    (tmp_path / "project").mkdir()
    await edit(tmp_path / "project", "../shared.txt", "v1", "v2")
    assert (tmp_path / "shared.txt").read_text() == "v2\n"


def test_fold_maps_each_character_back() -> None:
    folded, spans = fold("a\u00a0“b”  \nc")
    assert folded == 'a "b"\nc'
    assert [spans[i] for i in range(len(folded))] == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (7, 8), (8, 9)]


async def test_a_named_pipe_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    said = await asyncio.wait_for(edit_error(tmp_path, "pipe", "a", "b"), timeout=60)
    assert said.startswith("pipe is a named pipe (FIFO), not a regular file")
