"""Live reload: tell the app when someone else edits `settings.toml`."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pi_tui.paths import ensure_private_dir, settings_file
from pi_tui.settings.load import LoadResult, load_bytes, read_file
from pi_tui.settings.save import digest, is_own_write

_log = logging.getLogger(__name__)


async def watch_settings(
    on_change: Callable[[LoadResult], Awaitable[None] | None],
    stop_event: Any,
    path: Path | None = None,
    debounce_ms: int = 200,
) -> None:
    """Call `on_change` after each outside edit of the settings file, until `stop_event` is set.

    Watches the folder, not the file: an atomic save replaces the file, and a watch on the old one goes
    silent. Our own saves are recognised by content hash and skipped, so saving never triggers a reload.
    `stop_event` is an asyncio (or anyio) Event; `on_change` may be a plain function or a coroutine.
    """
    from watchfiles import awatch  # here, not at the top: only the app's watcher worker needs it

    path = path or settings_file()
    folder = ensure_private_dir(path.parent)
    seen = digest(read_file(path)[0])
    async for _changes in awatch(
        folder,
        watch_filter=lambda _change, changed: Path(changed).name == path.name,
        debounce=debounce_ms,
        stop_event=stop_event,
        recursive=False,
    ):
        data, read_error = read_file(path)
        current = digest(data)
        if current == seen:
            continue
        seen = current
        if is_own_write(path, current):
            _log.debug("ignoring our own save of %s", path)
            continue
        outcome = on_change(load_bytes(data, read_error, path.name))
        if inspect.isawaitable(outcome):
            await outcome
