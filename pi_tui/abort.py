"""Cooperative cancellation that every long operation (model stream, tool, summariser) can watch.

asyncio's task cancellation alone is not enough: an aborted `bash` must still return its partial
output with "Command aborted", and an aborted stream must still yield an assistant message with
`stopReason: "aborted"`. So work checks or awaits this signal and finishes in its own way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class AbortSignal:
    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._callbacks: list[Callable[[], None]] = []

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self) -> None:
        if self._event.is_set():
            return
        self._event.set()
        for callback in list(self._callbacks):
            callback()

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` once on abort (at once if already aborted); returns an unsubscribe function."""
        if self.aborted:
            callback()
            return lambda: None
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback) if callback in self._callbacks else None

    async def wait(self) -> None:
        await self._event.wait()


class AbortError(Exception):
    """Raised by work that stopped because its signal was aborted."""
