"""The `bash` tool: run a shell command in the working directory and return what it printed.

Running the model's command line through a shell is the point of this tool; nothing else here ever
builds a command line. The command gets its own process group, so an abort or a timeout can end
everything it started (`make` and its compilers, `sleep &` children), not just the shell.

Output is kept as a bounded tail in memory and nowhere else: a command may print forever (a log
file of the whole stream once grew to 544 MB), may print secrets (`env`), and a full disk must not
cost the model the tail it needs. When the output is cut, the result says how to see the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import Field

from pi_tui.tools.base import Tool, ToolContext, ToolError, ToolOutput, ToolParams
from pi_tui.tools.pathing import os_error_text
from pi_tui.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    Truncation,
    format_size,
    truncate_tail,
)

UPDATE_INTERVAL = 0.1  # seconds between streamed partial results: at most ~10 a second
KILL_GRACE = 2.0  # seconds the shell gets to exit after SIGTERM before the group gets SIGKILL
DRAIN_GRACE = 0.5  # seconds to keep reading after the shell exits (background jobs may hold the pipe)
_READ_SIZE = 64 * 1024
_TAIL_KEEP = 2 * DEFAULT_MAX_BYTES  # more than the byte limit, so the kept tail truncates like the whole


class BashParams(ToolParams):
    command: str = Field(description="Shell command to execute")
    timeout: float | None = Field(
        default=None, ge=0, description="Timeout in seconds (omitted or 0: no timeout)"
    )


class _Output:
    """A command's merged output: a bounded tail, and counts for the whole stream."""

    def __init__(self) -> None:
        self._tail = bytearray()
        self.total_bytes = 0
        self._newlines = 0
        self._open_line = 0  # bytes after the last newline
        self._closed_line = 0  # length of the last line that ended with a newline

    def append(self, chunk: bytes) -> None:
        self._count(chunk)
        self._tail += chunk
        if len(self._tail) > 2 * _TAIL_KEEP:
            del self._tail[:-_TAIL_KEEP]

    def _count(self, chunk: bytes) -> None:
        self.total_bytes += len(chunk)
        last = chunk.rfind(b"\n")
        if last == -1:
            self._open_line += len(chunk)
            return
        self._newlines += chunk.count(b"\n")
        before = chunk.rfind(b"\n", 0, last)
        self._closed_line = self._open_line + last if before == -1 else last - before - 1
        self._open_line = len(chunk) - last - 1

    @property
    def total_lines(self) -> int:
        return self._newlines + (1 if self._open_line else 0)

    @property
    def last_line_bytes(self) -> int:
        return self._open_line or self._closed_line

    def snapshot(self) -> Truncation:
        cut = truncate_tail(self._tail.decode("utf-8", errors="replace"))
        return replace(cut, total_lines=self.total_lines, total_bytes=self.total_bytes)


_THE_REST = "Earlier output is not kept: filter it (grep, head, tail) or redirect it to a file to read it all."


def _notice(cut: Truncation, output: _Output) -> str:
    first = cut.total_lines - cut.output_lines + 1
    last = cut.total_lines
    if cut.last_line_partial:
        shown, whole = format_size(cut.output_bytes), format_size(output.last_line_bytes)
        return f"[Showing last {shown} of line {last} (line is {whole}). {_THE_REST}]"
    if cut.truncated_by == "lines":
        return f"[Showing lines {first}-{last} of {cut.total_lines}. {_THE_REST}]"
    limit = format_size(DEFAULT_MAX_BYTES)
    return f"[Showing lines {first}-{last} of {cut.total_lines} ({limit} limit). {_THE_REST}]"


def _final_text(output: _Output) -> tuple[str, dict[str, Any] | None]:
    cut = output.snapshot()
    if not cut.truncated:
        return cut.content, None
    notice = _notice(cut, output)
    text = f"{cut.content}\n\n{notice}" if cut.content else notice
    return text, {"truncation": cut.to_details()}


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


class _Throttle:
    """Calls `emit` at most once per `interval`, always delivering the latest state eventually."""

    def __init__(self, emit: Callable[[], None], interval: float = UPDATE_INTERVAL) -> None:
        self._emit = emit
        self._interval = interval
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None
        self._dirty = False

    def poke(self) -> None:
        self._dirty = True
        wait = self._last + self._interval - time.monotonic()
        if wait <= 0:
            self._fire()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(wait, self._fire)

    def _fire(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._dirty = False
        self._last = time.monotonic()
        self._emit()

    def flush(self) -> None:
        """Deliver a pending update now (the last state matters most)."""
        if self._dirty:
            self._fire()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _exit_future(proc: subprocess.Popen[bytes]) -> asyncio.Future[int]:
    """Resolves with the shell's exit status as soon as the shell exits.

    asyncio's own subprocess `wait()` also waits for the output pipe to close, which a background job
    (`server &`) may hold open for hours. A dedicated thread, not the shared executor, so a few
    long commands cannot starve the file tools of worker threads.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[int] = loop.create_future()

    def deliver(code: int) -> None:
        if not future.done():
            future.set_result(code)

    def wait() -> None:
        code = proc.wait()
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is waiting any more
            loop.call_soon_threadsafe(deliver, code)

    threading.Thread(target=wait, name=f"bash-wait-{proc.pid}", daemon=True).start()
    return future


class _Group:
    """The running command's process group (the shell leads it): stop it once, for one reason."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.pgid = proc.pid
        self.exited = _exit_future(proc)
        self.stop_reason: str | None = None
        self._killer: asyncio.Task[None] | None = None

    def stop(self, reason: str) -> None:
        if self.stop_reason is None and not self.exited.done():
            self.stop_reason = reason
            self._killer = asyncio.ensure_future(self._kill())

    async def _kill(self) -> None:
        """SIGTERM to everyone, then SIGKILL for whatever is left once the shell is gone."""
        _signal_group(self.pgid, signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.exited), KILL_GRACE)
        _signal_group(self.pgid, signal.SIGKILL)

    async def stopped(self) -> None:
        if self._killer is not None:
            await self._killer


async def _pump(stream: asyncio.StreamReader, output: _Output, throttle: _Throttle | None) -> None:
    while chunk := await stream.read(_READ_SIZE):
        output.append(chunk)
        if throttle is not None:
            throttle.poke()


def _exit_code(returncode: int) -> int:
    """Killed by a signal: report it the way shells do (128 + signal number)."""
    return returncode if returncode >= 0 else 128 - returncode


def _streamer(output: _Output, ctx: ToolContext) -> _Throttle | None:
    """Partial results for the UI while the command runs, throttled so a chatty command cannot flood it."""
    on_update = ctx.on_update
    if on_update is None:
        return None

    def emit() -> None:
        cut = output.snapshot()
        on_update(ToolOutput.text(cut.content, {"truncation": cut.to_details()} if cut.truncated else None))

    return _Throttle(emit)


async def _supervise(
    proc: subprocess.Popen[bytes], output: _Output, ctx: ToolContext, timeout: float | None
) -> tuple[int, str | None]:
    """Collect the output until the shell exits; stop the group on abort or timeout. Returns the exit
    status and why the command was stopped ("aborted", "timeout" or None)."""
    assert proc.stdout is not None
    group = _Group(proc)
    throttle = _streamer(output, ctx)
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream), proc.stdout)
    unsubscribe = ctx.signal.on_abort(lambda: group.stop("aborted"))
    timer = loop.call_later(timeout, group.stop, "timeout") if timeout else None
    reader = asyncio.ensure_future(_pump(stream, output, throttle))
    try:
        returncode = await group.exited
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(reader), DRAIN_GRACE)
        await group.stopped()
    finally:
        unsubscribe()
        if timer is not None:
            timer.cancel()
        reader.cancel()
        transport.close()  # a background job still writing gets EPIPE rather than blocking forever
        if not group.exited.done():  # we were cancelled: leave nothing running
            _signal_group(group.pgid, signal.SIGKILL)
        if throttle is not None:
            throttle.flush()
    return returncode, group.stop_reason


class BashTool(Tool):
    name = "bash"
    label = "bash"
    description = (
        "Run a shell command (bash -c) in the working directory, with stdin closed, and return stdout "
        f"and stderr together. Only the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB "
        "are returned (nothing earlier is kept): filter long output (grep, head, tail) or redirect it to a "
        "file and read that. "
        "A non-zero exit status is reported as an error. Set timeout (seconds) for commands that may "
        "hang. Use it for builds, tests, git and other programs; use read, edit and write for files."
    )
    Params = BashParams

    def __init__(self, shell: str | None = None, prefix: str | None = None) -> None:
        self._shell = shell or "bash"
        self._prefix = prefix

    def _spawn(self, command: str, cwd: Path) -> subprocess.Popen[bytes]:
        if not cwd.is_dir():
            raise ToolError(f"Working directory does not exist: {cwd}")
        try:
            return subprocess.Popen(
                [self._shell, "-c", command],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, so the whole tree can be stopped
            )
        except FileNotFoundError as error:
            message = f"Shell not found: {self._shell}. Set a valid shell path in the settings."
            raise ToolError(message) from error
        except OSError as error:
            raise ToolError(os_error_text(error, self._shell)) from error

    async def run(self, params: BashParams, ctx: ToolContext) -> ToolOutput:
        if ctx.signal.aborted:
            raise ToolError("Command aborted")
        command = f"{self._prefix}\n{params.command}" if self._prefix else params.command
        proc = self._spawn(command, ctx.cwd)
        output = _Output()
        returncode, stop_reason = await _supervise(proc, output, ctx, params.timeout)
        text, details = _final_text(output)
        if stop_reason == "aborted":
            raise ToolError(_with_status(text, "Command aborted"))
        if stop_reason == "timeout":
            raise ToolError(_with_status(text, f"Command timed out after {params.timeout:g} seconds"))
        if returncode != 0:
            status = f"Command exited with code {_exit_code(returncode)}"
            raise ToolError(_with_status(text or "(no output)", status))
        return ToolOutput.text(text or "(no output)", details)
