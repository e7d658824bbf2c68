"""How the app looks and what it keeps: /settings, /theme, /hotkeys."""

from __future__ import annotations

from typing import Any

from pi_tui.commands.context import CommandContext
from pi_tui.commands.registry import Command
from pi_tui.screens.form import SettingsFormScreen, field_specs
from pi_tui.screens.picker import Choice, PickerScreen
from pi_tui.screens.text_view import TextViewScreen
from pi_tui.settings import Settings, SettingsError
from pi_tui.widgets.keymap import hotkeys_text


def save_setting(context: CommandContext, path: tuple[str, ...], value: Any) -> str | None:
    """Save one setting; the one-line problem when it cannot be saved (the file is left as it was)."""
    try:
        context.save_setting(".".join(path), value)
    except SettingsError as exc:
        return str(exc)
    return None


async def settings(context: CommandContext, _: str) -> None:
    specs = field_specs(Settings, skip=frozenset({"condense", "keymap"}), choices={"theme": context.theme_names()})
    context.show(SettingsFormScreen(
        "Settings (settings.toml) · pruning has its own: /pruner settings", specs,
        lambda: context.settings.model_dump(mode="json"), lambda path, value: save_setting(context, path, value)))


async def theme(context: CommandContext, args: str) -> None:
    choices = [Choice(name, name) for name in context.theme_names()]
    name = args or await context.ask(PickerScreen("Theme", choices, current=context.theme))
    if not name:
        return
    if name not in context.theme_names():  # a typo changes nothing (at start-up the default stands in)
        context.notify(f"theme {name!r} not found; kept {context.theme!r} (/theme lists them)", "error")
        return
    if context.apply_theme(name):
        error = save_setting(context, ("theme",), name)
        if error:
            context.notify(error, "error")


async def hotkeys(context: CommandContext, _: str) -> None:
    context.show(TextViewScreen("Keys", hotkeys_text(context.settings.keymap)))


COMMANDS = (
    Command("settings", "settings overlay (saved to settings.toml)", settings),
    Command("theme", "choose the colour theme", theme,
            lambda context: {name: "" for name in context.theme_names()}),
    Command("hotkeys", "list the keys", hotkeys),
)
