"""The write tool: parents created, whole-file overwrite, Pi's message, errors and abort."""

from pathlib import Path

import pytest

from pi_tui.abort import AbortSignal
from pi_tui.tools.base import ToolContext, ToolError, ToolOutput
from pi_tui.tools.write import WriteTool
from tests.support.typed import text_at


async def write(cwd: Path, path: str, content: str, signal: AbortSignal | None = None) -> ToolOutput:
    tool = WriteTool()
    ctx = ToolContext(cwd=cwd, signal=signal or AbortSignal())
    return await tool.run(tool.Params(path=path, content=content), ctx)


async def test_creates_missing_directories(tmp_path: Path) -> None:
    out = await write(tmp_path, "a/b/c.txt", "hello\n")
    assert out.content == [{"type": "text", "text": "Successfully wrote 6 bytes to a/b/c.txt"}]
    assert (tmp_path / "a" / "b" / "c.txt").read_text() == "hello\n"


async def test_overwrites_and_keeps_line_endings(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a much longer old content\n")
    await write(tmp_path, "f.txt", "x\r\ny")
    assert (tmp_path / "f.txt").read_bytes() == b"x\r\ny"


async def test_count_is_string_length_like_pi(tmp_path: Path) -> None:
    out = await write(tmp_path, "u.txt", "héllo")
    assert text_at(out.content) == "Successfully wrote 5 bytes to u.txt"
    assert (tmp_path / "u.txt").read_bytes() == "héllo".encode()


async def test_filesystem_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(ToolError, match=r"^Is a directory: "):
        await write(tmp_path, "dir", "x")
    (tmp_path / "file").write_text("")
    with pytest.raises(ToolError) as info:
        await write(tmp_path, "file/child.txt", "x")
    assert "\n" not in str(info.value) and "file" in str(info.value)


async def test_aborted_write_does_nothing(tmp_path: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await write(tmp_path, "new.txt", "x", signal)
    assert not (tmp_path / "new.txt").exists()


async def test_paths_resolve_against_ctx_cwd(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    await write(tmp_path / "project", "../sibling/out.txt", "x")
    await write(tmp_path / "project", "@mention.txt", "y")
    assert (tmp_path / "sibling" / "out.txt").read_text() == "x"
    assert (tmp_path / "project" / "mention.txt").read_text() == "y"
