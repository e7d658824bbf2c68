"""pi-tui's settings: `settings.toml` in the home folder, validated by pydantic, edited in place.

The loader is forgiving (a typo in one key must not cost the user the rest of their settings, and the app
has to start anyway); the saver is careful (the file belongs to the user: never overwrite what we could
not read, keep keys we do not know, write atomically).
"""

from pi_tui.settings.keys import normalise_keys, snake_case
from pi_tui.settings.live import LiveSettings
from pi_tui.settings.load import LoadResult, load_settings
from pi_tui.settings.model import CondenseSection, ModelSettings, RetrySettings, Settings, SettingsError
from pi_tui.settings.problems import validate_document
from pi_tui.settings.save import save_settings
from pi_tui.settings.watch import watch_settings

__all__ = [
    "CondenseSection",
    "LiveSettings",
    "LoadResult",
    "ModelSettings",
    "RetrySettings",
    "Settings",
    "SettingsError",
    "load_settings",
    "normalise_keys",
    "save_settings",
    "snake_case",
    "validate_document",
    "watch_settings",
]
