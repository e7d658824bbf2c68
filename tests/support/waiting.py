"""Waiting for something a test started (a process, a thread, a stream) by polling a condition up to a
deadline, never by a fixed sleep: a sleep is too short on a loaded machine and wasted time on an idle one.
The deadline is a net for hangs, generous enough for a machine running the suite beside other work; it is
never a timing assertion."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

DEADLINE = 60.0  # seconds


def _timed_out(what: str, timeout: float) -> AssertionError:
    return AssertionError(f"gave up after {timeout:g} s waiting for {what}")


def wait_until(predicate: Callable[[], object], what: str, timeout: float = DEADLINE,
               interval: float = 0.01) -> None:
    """Block until `predicate()` is true; `what` names the condition in the failure."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            raise _timed_out(what, timeout)
        time.sleep(interval)


async def until(predicate: Callable[[], object], what: str, timeout: float = DEADLINE,
                interval: float = 0.01) -> None:
    """`wait_until` for a test on the event loop: the loop keeps running the code under test meanwhile."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            raise _timed_out(what, timeout)
        await asyncio.sleep(interval)
