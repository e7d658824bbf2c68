"""The running app's settings: the one copy every part reads, and the one door every change goes through.

A change comes from three places: the `/settings` overlay, the engine's saver (`/pruner` commands and
`/pruner settings`), and an edit of settings.toml made outside the app (the watcher). Each ends in
`replace`, which tells every listener, so the running session and every later `/new` or `/resume` use
the same values and no screen shows what the file no longer says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_tui.settings.model import Settings
from pi_tui.settings.save import set_value

Listener = Callable[[Settings, Settings], None]


class LiveSettings:
    def __init__(self, settings: Settings) -> None:
        self.current = settings
        self._listeners: list[Listener] = []

    def listen(self, listener: Listener) -> None:
        """`listener(old, new)` after every change that alters a value."""
        self._listeners.append(listener)

    def replace(self, settings: Settings) -> None:
        old, self.current = self.current, settings
        if settings != old:
            for listener in self._listeners:
                listener(old, settings)

    def save(self, key: str, value: Any) -> None:
        """Validate and write one dotted key, then apply it; SettingsError leaves file and values as they were."""
        self.replace(set_value(key, value))
