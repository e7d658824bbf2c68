"""The bash tool: output, exit codes, tail truncation kept in memory only (nothing on disk, so a
full disk changes nothing), streaming, and abort/timeout ending the whole process group."""

import asyncio
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_tui.abort import AbortSignal
from pi_tui.tools.base import ToolContext, ToolError, ToolOutput
from pi_tui.tools.bash import UPDATE_INTERVAL, BashTool
from tests.support.full_disk import fill, inject, try_mount_tmpfs, unmount
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


THE_REST = "Earlier output is not kept: filter it (grep, head, tail) or redirect it to a file to read it all."


@pytest.fixture
def temp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temp folder of this process (where a log of the output would go), empty and watched."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture(params=["tmpfs", "injected"])
def full_temp_folder(request: pytest.FixtureRequest, temp_folder: Path) -> Iterator[Path]:
    """The temp folder on a full disk: a real filled 1 MB tmpfs where this machine can mount one, else
    ENOSPC injected into every write under it."""
    if request.param == "tmpfs" and try_mount_tmpfs(temp_folder, "1m"):
        fill(temp_folder)
        try:
            yield temp_folder
        finally:
            unmount(temp_folder)
        return
    undo = inject(temp_folder)
    try:
        yield temp_folder
    finally:
        undo()


def bytes_under(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


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


async def test_lines_truncation_keeps_the_tail_and_says_how_to_see_the_rest(tmp_path: Path) -> None:
    out = await bash(tmp_path, "seq 1 3000")
    body, notice = text_of(out).split("\n\n")
    assert body.split("\n")[0] == "1001" and body.endswith("3000")
    assert notice == f"[Showing lines 1001-3000 of 3000. {THE_REST}]"
    assert out.details == {"truncation": present(out.details)["truncation"]}
    assert present(out.details)["truncation"]["truncatedBy"] == "lines"


async def test_partial_last_line_notice(tmp_path: Path) -> None:
    text = text_of(await bash(tmp_path, "head -c 60000 /dev/zero | tr '\\0' x"))
    assert text == "x" * 51200 + f"\n\n[Showing last 50.0KB of line 1 (line is 58.6KB). {THE_REST}]"


async def test_ten_megabytes_of_output(tmp_path: Path) -> None:
    size = 10 * 1024 * 1024
    line = b"0123456789" * 4 + b"\n"
    expected = (line * (size // len(line) + 1))[:size]
    out = await bash(tmp_path, f"yes 0123456789012345678901234567890123456789 | head -c {size}")
    body, notice = text_of(out).rsplit("\n\n", 1)
    total = expected.count(b"\n") + 1  # the last line has no newline
    shown = len(body.split("\n"))
    assert notice == f"[Showing lines {total - shown + 1}-{total} of {total} (50.0KB limit). {THE_REST}]"
    assert len(body.encode()) <= 51200 and expected.endswith(body.encode())
    assert out.details is not None and out.details["truncation"]["totalBytes"] == size


async def test_endless_output_writes_nothing_to_disk_and_the_result_holds_its_tail(
        tmp_path: Path, temp_folder: Path) -> None:
    """A command printing far more than any cap (here 64 MB, once 544 MB in a log file): sampled at every
    partial result while it runs, the temp folder holds nothing, and nothing is left after it."""
    size = 64 * 1024 * 1024
    samples: list[int] = []
    out = await bash(tmp_path, f"yes printing-forever | head -c {size}; echo; echo the-last-line",
                     on_update=lambda partial: samples.append(bytes_under(temp_folder)))
    assert len(samples) >= 2 and max(samples) == 0, samples
    assert list(temp_folder.iterdir()) == []
    body, notice = text_of(out).rsplit("\n\n", 1)
    assert body.endswith("printing-forever\nprin\nthe-last-line") and len(body.encode()) <= 51200
    assert present(out.details)["truncation"]["totalBytes"] == size + len("\nthe-last-line\n")
    total = size // len("printing-forever\n") + 2  # the cut line `prin`, ended by echo, and the last line
    assert notice == f"[Showing lines {total - 1999}-{total} of {total}. {THE_REST}]"


async def test_a_full_disk_still_returns_the_tail(tmp_path: Path, full_temp_folder: Path) -> None:
    out = await bash(tmp_path, "seq 1 300000")
    body, notice = text_of(out).split("\n\n")
    assert body.endswith("\n300000") and notice.startswith("[Showing lines 298001-300000 of 300000")


async def test_errors_keep_the_truncation_notice(tmp_path: Path) -> None:
    text = await bash_error(tmp_path, "seq 1 2500; exit 2")
    assert text.endswith(f"[Showing lines 501-2500 of 2500. {THE_REST}]\n\nCommand exited with code 2")


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
