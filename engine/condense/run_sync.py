"""Running one of condense's coroutines to its end from code that cannot await it.

`asyncio.run` refuses to start inside a running event loop, which is where a notebook (Jupyter), a
web handler or an async agent's synchronous helper calls the library's `*_sync` methods. There the
coroutine runs on an event loop of its own in a worker thread, while the caller waits for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(work: Coroutine[Any, Any, T]) -> T:
    """The result of `work`, run on this thread's own new loop, or in a worker thread when this thread
    already runs one. The caller (and its loop) waits either way: inside a loop, `await` the async
    method instead to keep the loop serving its other tasks."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="condense-sync") as worker:
        return worker.submit(asyncio.run, work).result()
