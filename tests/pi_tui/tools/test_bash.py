"""The bash tool: output, exit codes, tail truncation with the full-output file, streaming, and
abort/timeout ending the whole process group."""

import asyncio
import hashlib
import os
import re
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from pi_tui.abort import AbortSignal
from pi_tui.tools.base import ToolContext, ToolError, ToolOutput
from pi_tui.tools.bash import UPDATE_INTERVAL, BashTool
from tests.support.processes import live_members
from tests.support.typed import present, text_at
from tests.support.waiting import until

SAFETY = 20  # seconds; only a net so a broken kill cannot hang the suite


async def bash(cwd: Path, command: str, tool: BashTool | None = None, **kwargs: Any) -> ToolOutput:
    tool = tool or BashTool()
    timeout = kwargs.pop("timeout", None)
    ctx = ToolContext(cwd=cwd, **kwargs)
    return await asyncio.wait_for(tool.run(tool.Params(command=command, timeout=timeout), ctx), SAFETY)


async def bash_error(cwd: Path, command: str, **kwargs: Any) -> str:
    with pytest.raises(ToolError) as info:
        await bash(cwd, command, **kwargs)
    return str(info.value)


def text_of(out: ToolOutput) -> str:
    return text_at(out.content)


def full_output_path(text: str) -> Path:
    match = re.search(r"Full output: (\S+)\]$", text)
    assert match, text
    path = Path(match.group(1))
    assert path.parent == Path(tempfile.gettempdir())
    assert re.fullmatch(r"pi-bash-[0-9a-f]+\.log", path.name)
    return path


async def test_stdout_and_stderr_are_merged_in_the_working_directory(tmp_path: Path) -> None:
    out = await bash(tmp_path, "pwd; echo to-err >&2")
    assert text_of(out) == f"{tmp_path}\nto-err\n" and out.details is None


async def test_stdin_is_closed_and_empty_output_says_so(tmp_path: Path) -> None:
    assert text_of(await bash(tmp_path, "cat")) == "(no output)"


async def test_nonzero_exit_is_an_error_with_the_output(tmp_path: Path) -> None:
    assert await bash_error(tmp_path, "echo oops; exit 3") == "oops\n\n\nCommand exited with code 3"
    assert await bash_error(tmp_path, "exit 1") == "(no output)\n\nCommand exited with code 1"


async def test_killed_by_a_signal_reports_shell_style_code(tmp_path: Path) -> None:
    assert await bash_error(tmp_path, "kill -9 $$") == "(no output)\n\nCommand exited with code 137"


async def test_prefix_and_shell_path(tmp_path: Path) -> None:
    tool = BashTool(shell="/bin/sh", prefix="export GREETING=hello")
    assert text_of(await bash(tmp_path, 'echo "$GREETING from $0"', tool)) == "hello from /bin/sh\n"


async def test_missing_shell_and_missing_cwd(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"^Shell not found: /no/such/shell"):
        await bash(tmp_path, "true", BashTool(shell="/no/such/shell"))
    with pytest.raises(ToolError, match=r"^Working directory does not exist"):
        await bash(tmp_path / "gone", "true")


async def test_lines_truncation_keeps_the_tail_and_saves_everything(tmp_path: Path) -> None:
    out = await bash(tmp_path, "seq 1 3000")
    text = text_of(out)
    body, notice = text.split("\n\n")
    assert body.split("\n")[0] == "1001" and body.endswith("3000")
    path = full_output_path(notice)
    assert notice == f"[Showing lines 1001-3000 of 3000. Full output: {path}]"
    assert out.details == {"truncation": present(out.details)["truncation"], "fullOutputPath": str(path)}
    assert present(out.details)["truncation"]["truncatedBy"] == "lines"
    try:
        assert path.read_text() == "".join(f"{i}\n" for i in range(1, 3001))
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    finally:
        path.unlink()


async def test_partial_last_line_notice(tmp_path: Path) -> None:
    text = text_of(await bash(tmp_path, "head -c 60000 /dev/zero | tr '\\0' x"))
    path = full_output_path(text)
    try:
        notice = f"[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: {path}]"
        assert text == "x" * 51200 + "\n\n" + notice
        assert path.read_bytes() == b"x" * 60000
    finally:
        path.unlink()


async def test_ten_megabytes_of_output(tmp_path: Path) -> None:
    size = 10 * 1024 * 1024
    line = b"0123456789" * 4 + b"\n"
    expected = (line * (size // len(line) + 1))[:size]
    out = await bash(tmp_path, f"yes 0123456789012345678901234567890123456789 | head -c {size}")
    text = text_of(out)
    path = full_output_path(text)
    try:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        data = path.read_bytes()
        assert len(data) == size and hashlib.sha256(data).digest() == hashlib.sha256(expected).digest()
        body, notice = text.rsplit("\n\n", 1)
        total = expected.count(b"\n") + 1  # the last line has no newline
        shown = len(body.split("\n"))
        shown_range = f"{total - shown + 1}-{total} of {total}"
        assert notice == f"[Showing lines {shown_range} (50.0KB limit). Full output: {path}]"
        assert len(body.encode()) <= 51200 and expected.endswith(body.encode())
        assert out.details is not None and out.details["truncation"]["totalBytes"] == size
    finally:
        path.unlink()


async def test_errors_keep_the_truncation_notice(tmp_path: Path) -> None:
    text = await bash_error(tmp_path, "seq 1 2500; exit 2")
    path = full_output_path(text.rsplit("\n\n", 1)[0])
    path.unlink()
    notice = f"[Showing lines 501-2500 of 2500. Full output: {path}]"
    assert text.endswith(f"{notice}\n\nCommand exited with code 2")


async def test_streams_partial_output(tmp_path: Path) -> None:
    updates: list[str] = []
    out = await bash(
        tmp_path,
        "echo one; sleep 0.3; echo two; sleep 0.3; echo three",
        on_update=lambda partial: updates.append(text_of(partial)),
    )
    assert text_of(out) == "one\ntwo\nthree\n"
    assert updates[0] == "one\n" and updates[-1] == "one\ntwo\nthree\n"
    assert "one\ntwo\n" in updates


async def test_updates_are_throttled(tmp_path: Path) -> None:
    updates: list[str] = []
    started = time.monotonic()
    await bash(
        tmp_path,
        "for i in $(seq 1 1500); do echo $i; done",
        on_update=lambda partial: updates.append(text_of(partial)),
    )
    elapsed = time.monotonic() - started
    assert 1 <= len(updates) <= elapsed / UPDATE_INTERVAL + 2
    assert updates[-1].endswith("1500\n")


async def test_timeout_kills_the_process_tree(tmp_path: Path) -> None:
    text = await bash_error(tmp_path, "sleep 100 & echo $$; sleep 100; wait", timeout=1)
    pgid = int(text.split("\n")[0])
    assert text == f"{pgid}\n\n\nCommand timed out after 1 seconds"
    await until(lambda: not live_members(pgid), "the group to die")


async def test_abort_kills_the_process_tree(tmp_path: Path) -> None:
    signal = AbortSignal()
    updates: list[str] = []
    tool = BashTool()
    ctx = ToolContext(cwd=tmp_path, signal=signal, on_update=lambda partial: updates.append(text_of(partial)))
    task = asyncio.create_task(tool.run(tool.Params(command="sleep 100 & sleep 100 & echo $$; wait"), ctx))
    await until(lambda: bool(updates), "the shell to print its pid")
    pgid = int(updates[0].strip())
    await until(lambda: len(live_members(pgid)) >= 3, "the shell and both sleeps")
    signal.abort()
    with pytest.raises(ToolError) as info:
        await asyncio.wait_for(task, SAFETY)
    assert str(info.value) == f"{pgid}\n\n\nCommand aborted"
    await until(lambda: not live_members(pgid), "the group to die")


async def test_term_ignoring_children_get_sigkill(tmp_path: Path) -> None:
    command = "bash -c \"trap '' TERM; sleep 100\" & echo $$; wait"
    text = await bash_error(tmp_path, command, timeout=0.5)
    pgid = int(text.split("\n")[0])
    assert text.endswith("Command timed out after 0.5 seconds")
    await until(lambda: not live_members(pgid), "the group to die")


async def test_abort_before_start(tmp_path: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    assert await bash_error(tmp_path, "touch made", signal=signal) == "Command aborted"
    assert not (tmp_path / "made").exists()


async def test_background_job_holding_the_pipe_does_not_hang(tmp_path: Path) -> None:
    out = await bash(tmp_path, "sleep 60 & echo started $!")
    words = text_of(out).split()
    assert words[0] == "started"
    os.kill(int(words[1]), 9)  # it outlives the command on purpose (servers do); clean up here
