"""The running app's settings: the one copy every part reads, and the one door every change goes through.

A change made in the app (`/settings`, `/theme`, `/pruner` and its overlay) goes through `change`: it is
written into settings.toml (kept as the user wrote it, never over a file that could not be read), and
only what the file then holds becomes the live copy. An edit made outside the app comes in through
`reload` (the watcher). Either way every listener hears it once: the running agent and engine (each
runtime listens while it runs), the app's theme, keys and open form; every later `/new` or `/resume`
starts from the live copy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pi_tui.settings.keys import set_dotted
from pi_tui.settings.model import Settings
from pi_tui.settings.save import save_settings

Listener = Callable[[Settings, Settings], None]


class LiveSettings:
    def __init__(self, settings: Settings) -> None:
        self.current = settings
        self._listeners: list[Listener] = []

    def listen(self, listener: Listener) -> Callable[[], None]:
        """`listener(old, new)` after every change that alters a value; returns a function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def change(self, changes: Mapping[str, Any]) -> None:
        """Write nested changes (`{"condense": {"enabled": False}}`) into settings.toml, then apply what the
        file holds. SettingsError, raised before anything is written, leaves file and values as they were."""
        self._take(save_settings(changes))

    def save(self, key: str, value: Any) -> None:
        """`change` for one dotted key (`condense.purge_errors.cooldown_turns`)."""
        self.change(set_dotted({}, key, value))

    def reload(self, settings: Settings) -> None:
        """The file was edited outside the app: apply what it now holds, writing nothing."""
        self._take(settings)

    def _take(self, settings: Settings) -> None:
        old, self.current = self.current, settings
        if settings != old:
            for listener in list(self._listeners):
                listener(old, settings)
