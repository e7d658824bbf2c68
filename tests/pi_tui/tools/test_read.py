"""The read tool: pages of text with Pi's notices, images by magic bytes, errors and abort."""

import asyncio
import base64
import os
from pathlib import Path
from typing import Any

import pytest

from pi_tui.abort import AbortSignal
from pi_tui.tools.base import ToolContext, ToolError, ToolOutput
from pi_tui.tools.read import ReadTool

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(40))


async def read(cwd: Path, signal: AbortSignal | None = None, **params: Any) -> ToolOutput:
    tool = ReadTool()
    ctx = ToolContext(cwd=cwd, signal=signal or AbortSignal())
    return await tool.run(tool.Params(**params), ctx)


def text_of(out: ToolOutput) -> str:
    assert out.content[0]["type"] == "text"
    return out.content[0]["text"]


def numbered(count: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, count + 1))


async def test_small_file_comes_back_whole(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    out = await read(tmp_path, path="a.txt")
    assert text_of(out) == "one\ntwo" and out.details is None


async def test_offset_and_limit_with_more_lines_notice(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(numbered(10))
    out = await read(tmp_path, path="a.txt", offset=3, limit=2)
    assert text_of(out) == "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"
    assert text_of(await read(tmp_path, path="a.txt", offset=9, limit=5)) == "line 9\nline 10"


async def test_line_limit_notice(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(numbered(2001))
    out = await read(tmp_path, path="big.txt")
    body, notice = text_of(out).split("\n\n")
    assert body.split("\n")[-1] == "line 2000" and len(body.split("\n")) == 2000
    assert notice == "[Showing lines 1-2000 of 2001. Use offset=2001 to continue.]"
    assert out.details is not None and out.details["truncation"]["truncatedBy"] == "lines"
    assert text_of(await read(tmp_path, path="big.txt", offset=2001)) == "line 2001"


async def test_exactly_2000_lines_has_no_notice(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(numbered(2000))
    assert text_of(await read(tmp_path, path="big.txt")).endswith("line 2000")


async def test_byte_limit_notice(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("".join("y" * 99 + "\n" for _ in range(1000)))
    out = await read(tmp_path, path="wide.txt", offset=11)
    body, notice = text_of(out).split("\n\n")
    assert len(body.split("\n")) == 512
    assert notice == "[Showing lines 11-522 of 1000 (50.0KB limit). Use offset=523 to continue.]"


async def test_first_line_over_50kb_points_at_bash(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("short\n" + "x" * 60_000 + "\nend\n")
    out = await read(tmp_path, path="min.js", offset=2)
    assert text_of(out) == (
        "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' min.js | head -c 51200]"
    )
    assert out.details is not None and out.details["truncation"]["firstLineExceedsLimit"] is True
    first = await read(tmp_path, path="min.js")
    assert text_of(first) == "short\n\n[Showing lines 1-1 of 3 (50.0KB limit). Use offset=2 to continue.]"


async def test_offset_beyond_end(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("1\n2\n3\n")
    with pytest.raises(ToolError, match=r"^Offset 10 is beyond end of file \(3 lines total\)$"):
        await read(tmp_path, path="a.txt", offset=10)


async def test_empty_file_reads_as_empty(tmp_path: Path) -> None:
    (tmp_path / "empty").write_text("")
    assert text_of(await read(tmp_path, path="empty")) == ""


async def test_missing_file_and_directory_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as info:
        await read(tmp_path, path="nope.txt")
    assert str(info.value) == f"No such file or directory: {tmp_path / 'nope.txt'}"
    with pytest.raises(ToolError, match="Is a directory"):
        await read(tmp_path, path=".")


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (PNG, "image/png"),
        (b"\xff\xd8\xff\xe0" + bytes(30), "image/jpeg"),
        (b"GIF89a" + bytes(30), "image/gif"),
        (b"GIF87a" + bytes(30), "image/gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 " + bytes(30), "image/webp"),
    ],
)
async def test_images_by_magic_bytes(tmp_path: Path, data: bytes, mime: str) -> None:
    (tmp_path / "picture.txt").write_bytes(data)  # the extension lies on purpose
    out = await read(tmp_path, path="picture.txt")
    assert out.content[0] == {"type": "text", "text": f"Read image file [{mime}]"}
    image = out.content[1]
    assert image["type"] == "image" and image["mimeType"] == mime
    assert base64.b64decode(image["data"]) == data


async def test_png_named_png_but_text_inside_is_text(tmp_path: Path) -> None:
    (tmp_path / "fake.png").write_text("not an image")
    assert text_of(await read(tmp_path, path="fake.png")) == "not an image"


async def test_paths_resolve_against_ctx_cwd_including_parent_and_mentions(tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("outside")
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "inside.txt").write_text("inside")
    assert text_of(await read(cwd, path="../outside.txt")) == "outside"
    assert text_of(await read(cwd, path="@inside.txt")) == "inside"
    assert text_of(await read(cwd, path=str(tmp_path / "outside.txt"))) == "outside"


async def test_aborted_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await read(tmp_path, signal=signal, path="a.txt")


async def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    assert text_of(await read(tmp_path, path="latin1.txt")) == "caf\ufffd"


@pytest.mark.parametrize("kind", ["fifo", "device"])
async def test_a_path_that_is_no_regular_file_is_refused_not_read_forever(tmp_path: Path, kind: str) -> None:
    """/dev/zero read whole fills memory and a named pipe waits for a writer: the model is told what it is."""
    if kind == "fifo":
        os.mkfifo(tmp_path / "pipe")
    path = "pipe" if kind == "fifo" else "/dev/zero"
    with pytest.raises(ToolError) as caught:
        await asyncio.wait_for(read(tmp_path, path=path), timeout=60)
    said = "a named pipe (FIFO)" if kind == "fifo" else "a device"
    assert str(caught.value) == (f"{path} is {said}, not a regular file: read a bounded part with bash, "
                                 f"e.g. `head -c 4096 {path}`")
