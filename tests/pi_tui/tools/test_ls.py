"""The ls tool: dotfiles, case-insensitive order, directory markers, limits and errors."""

from pathlib import Path
from typing import Any

import pytest

from pi_tui.abort import AbortSignal
from pi_tui.tools.base import ToolContext, ToolError, ToolOutput
from pi_tui.tools.ls import LsTool
from tests.support.typed import text_at


async def ls(cwd: Path, signal: AbortSignal | None = None, **params: Any) -> ToolOutput:
    tool = LsTool()
    return await tool.run(tool.Params(**params), ToolContext(cwd=cwd, signal=signal or AbortSignal()))


def text_of(out: ToolOutput) -> str:
    return text_at(out.content)


async def test_entries_sorted_ignoring_case_with_dirs_marked(tmp_path: Path) -> None:
    for name in ("beta.txt", "Alpha.txt", ".env", "zeta"):
        (tmp_path / name).write_text("")
    (tmp_path / "Docs").mkdir()
    (tmp_path / "link-to-docs").symlink_to(tmp_path / "Docs")
    out = await ls(tmp_path)
    assert text_of(out) == ".env\nAlpha.txt\nbeta.txt\nDocs/\nlink-to-docs/\nzeta"
    assert out.details is None


async def test_empty_directory(tmp_path: Path) -> None:
    assert text_of(await ls(tmp_path)) == "(empty directory)"


async def test_entry_limit_notice(tmp_path: Path) -> None:
    for name in "abcde":
        (tmp_path / name).write_text("")
    out = await ls(tmp_path, limit=2)
    assert text_of(out) == "a\nb\n\n[2 entries limit reached. Use limit=4 for more]"
    assert out.details == {"entryLimitReached": 2}
    assert text_of(await ls(tmp_path, limit=5)) == "a\nb\nc\nd\ne"


async def test_byte_limit_notice(tmp_path: Path) -> None:
    for i in range(450):
        (tmp_path / f"{i:03d}{'n' * 120}").write_text("")
    out = await ls(tmp_path)
    body, notice = text_of(out).split("\n\n")
    assert notice == "[50.0KB limit reached]"
    assert len(body.encode()) <= 51200 and body.split("\n")[0].startswith("000")
    assert out.details is not None and out.details["truncation"]["truncatedBy"] == "bytes"


async def test_default_limit_is_500(tmp_path: Path) -> None:
    for i in range(501):
        (tmp_path / f"{i:04d}").write_text("")
    notice = "[500 entries limit reached. Use limit=1000 for more]"
    assert text_of(await ls(tmp_path)).endswith(f"0499\n\n{notice}")


async def test_errors(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as info:
        await ls(tmp_path, path="missing")
    assert str(info.value) == f"Path not found: {tmp_path / 'missing'}"
    (tmp_path / "file.txt").write_text("")
    with pytest.raises(ToolError) as info:
        await ls(tmp_path, path="file.txt")
    assert str(info.value) == f"Not a directory: {tmp_path / 'file.txt'}"


async def test_parent_path_and_abort(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "neighbour").mkdir()
    assert text_of(await ls(tmp_path / "project", path="..")) == "neighbour/\nproject/"
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await ls(tmp_path, signal)
