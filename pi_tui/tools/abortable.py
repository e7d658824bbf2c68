"""Abort handling shared by the file tools, and running their helper programs (rg, fd).

Filesystem work blocks, so it runs in a thread; the tool stops waiting as soon as the user aborts
and reports "Operation aborted" (Pi's text), even if the thread still has to finish its system call.
Work that walks trees also polls the signal itself, so an aborted search does not keep a core busy.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pi_tui.abort import AbortSignal
from pi_tui.tools.base import ToolError

ABORTED_TEXT = "Operation aborted"
_MAX_LINE = 1 << 30  # rg prints a whole matched line as one JSON line, and minified files are long

T = TypeVar("T")


def raise_if_aborted(signal: AbortSignal) -> None:
    if signal.aborted:
        raise ToolError(ABORTED_TEXT)


def _ignore_late_result(task: asyncio.Future[T]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved, so asyncio does not log it as never retrieved


async def in_thread(signal: AbortSignal, func: Callable[..., T], *args: object) -> T:
    """`func(*args)` in a worker thread, or ToolError("Operation aborted") once `signal` fires."""
    raise_if_aborted(signal)
    work = asyncio.ensure_future(asyncio.to_thread(func, *args))
    abort_wait = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({work, abort_wait}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        abort_wait.cancel()
    if signal.aborted:
        work.add_done_callback(_ignore_late_result)
        raise ToolError(ABORTED_TEXT)
    return work.result()


@dataclass(frozen=True)
class ProgramResult:
    returncode: int
    stderr: str
    stopped_early: bool  # `on_line` asked to stop, so the program was killed on purpose


async def run_program(
    args: list[str], cwd: Path, signal: AbortSignal, on_line: Callable[[str], bool]
) -> ProgramResult:
    """Run a helper program (rg, fd) from an argument list, never through a shell, passing each line
    it prints to `on_line` until that returns False. Aborting kills it: ToolError("Operation aborted")."""
    raise_if_aborted(signal)
    proc = await asyncio.create_subprocess_exec(
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=_MAX_LINE,
    )
    assert proc.stdout is not None and proc.stderr is not None

    def kill() -> None:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()

    unsubscribe = signal.on_abort(kill)
    stderr = asyncio.ensure_future(proc.stderr.read())
    stopped = False
    try:
        async for raw in proc.stdout:
            if not on_line(raw.decode("utf-8", errors="replace").rstrip("\r\n")):
                stopped = True
                kill()
                break
        returncode = await proc.wait()
        errors = await stderr
    finally:
        unsubscribe()
        kill()
    raise_if_aborted(signal)
    return ProgramResult(returncode, errors.decode("utf-8", errors="replace"), stopped)
