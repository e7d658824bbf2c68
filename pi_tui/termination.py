"""The signals that end pi-tui from outside: SIGTERM (`kill`, a service manager) and SIGHUP (the terminal
closed).

Python's default for both ends the process on the spot. The bash tool's commands run in sessions of their
own (so that Esc can end a command's whole tree), so no signal aimed at pi-tui reaches them: they were
reparented to init and ran on. Both modes listen for these signals instead, stop what runs as Esc does
(the bash tool ends its process groups), let the session take the stopped turn, and exit with 128 + the
signal's number, as a shell reports a process a signal ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
from collections.abc import Callable, Iterable

ENDING = (signal.SIGTERM, signal.SIGHUP)
_SAID = {int(signal.SIGINT): "interrupted", int(signal.SIGTERM): "terminated (SIGTERM)",
         int(signal.SIGHUP): "the terminal closed (SIGHUP)"}


def listen(signals: Iterable[signal.Signals], handler: Callable[[int], None]) -> Callable[[], None]:
    """Call `handler(number)` on the running loop for each of `signals`, except those the process was
    started ignoring (`nohup` ignores SIGHUP, a background job of a script SIGINT: they stay ignored).
    Returns the undo."""
    loop = asyncio.get_running_loop()
    installed = []
    for sig in signals:
        if signal.getsignal(sig) == signal.SIG_IGN:
            continue
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # no handlers off the main thread
            loop.add_signal_handler(sig, handler, int(sig))
            installed.append(sig)

    def undo() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return undo


def exit_status(number: int) -> int:
    return 128 + number


def said(number: int) -> str:
    """What ended the run, in the words of pi-tui's last line."""
    return _SAID.get(number, f"ended by signal {number}")


def _hung_up(fd: int) -> bool:
    """A terminal that was closed answers EIO; a live terminal answers, and a pipe or file says ENOTTY."""
    import termios  # POSIX only, as SIGHUP is

    try:
        termios.tcgetattr(fd)
    except termios.error as exc:  # its args are (errno, text)
        return bool(exc.args[0] == errno.EIO)
    return False


def leave_a_closed_terminal() -> None:
    """After SIGHUP the terminal may be gone, and every write to it fails (EIO), which would break the
    orderly end halfway: send what is still written there to /dev/null instead."""
    for fd in (0, 1, 2):
        if _hung_up(fd):
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, fd)
            os.close(null)
