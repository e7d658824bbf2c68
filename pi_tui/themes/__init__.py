"""Colour themes: the shipped `dark` and `light` TOML files beside this module, and the user's own.

A theme file names Textual's base colours (`[colors]`) and, optionally, pi-tui's own colours
(`[variables]`, see `PI_VARIABLES`). Widgets use only these variables, so any theme, including
Textual's built-in ones, restyles everything; a variable a theme leaves out is derived from its base
colours (`variable_defaults`). User themes live in `~/.pi-tui/themes/*.toml` and are reloaded live.

The shipped files sit inside the package (not in the repository's top-level folder) so that a plain
`pip install` carries them; they double as the documented examples users copy.
"""

from __future__ import annotations

import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.color import Color
from textual.theme import Theme

from pi_tui.paths import ensure_private_dir, home_dir

SHIPPED_DIR = Path(__file__).resolve().parent
DEFAULT_THEME = "dark"

# pi-tui's own colour variables, usable as `$name` in TCSS and in Content styles.
PI_VARIABLES = (
    "user-message-bg", "tool-pending-bg", "tool-success-bg", "tool-error-bg", "tool-title",
    "custom-message-bg", "custom-message-label", "thinking-text", "muted", "dim",
    "diff-added", "diff-removed", "diff-context", "bash-mode",
)


class ThemeError(Exception):
    """A theme file that cannot be used; the message is one line naming the file and the problem."""


def _theme(table: dict[str, Any], fallback_name: str) -> Theme:
    """A Theme from a theme file's table that `check_theme` accepts."""
    return Theme(name=table.get("name") or fallback_name, dark=table.get("dark", True),
                 variables=dict(table.get("variables", {})), **table["colors"])


def parse_theme(data: dict[str, Any], fallback_name: str, source: str) -> Theme:
    from pi_tui.themes.schema import checked  # pydantic: only for a file that is not ours (see shipped_themes)

    try:
        return _theme(checked(data), fallback_name)
    except ValueError as exc:
        raise ThemeError(f"{source}: {exc}") from None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ThemeError(f"{path.name}: cannot read the file ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ThemeError(f"{path.name}: not valid TOML ({exc})") from None


def load_theme_file(path: Path) -> Theme:
    """A theme from a TOML file; its name is the `name` key, else the file name without `.toml`."""
    return parse_theme(_read_toml(path), path.stem, path.name)


def shipped_themes() -> list[Theme]:
    """The files beside this module, read without validation: they are ours (a test checks them), and
    pydantic would otherwise sit on the way to the first frame."""
    return [_theme(_read_toml(path), path.stem) for path in sorted(SHIPPED_DIR.glob("*.toml"))]
def user_themes_dir() -> Path:
    return home_dir() / "themes"


def load_user_themes(folder: Path | None = None) -> tuple[list[Theme], list[str]]:
    """Every readable theme of the user's folder, and one error line per file that is not."""
    folder = folder or user_themes_dir()
    themes: list[Theme] = []
    errors: list[str] = []
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else []:
        try:
            themes.append(load_theme_file(path))
        except ThemeError as exc:
            errors.append(str(exc))
    return themes, errors


def _mix(base: str, over: str, amount: float) -> str:
    return Color.parse(base).blend(Color.parse(over), amount).hex


def variable_defaults(theme: Theme) -> dict[str, str]:
    """pi-tui's variables derived from a theme's base colours, for themes that do not set them."""
    colours = theme.to_color_system().generate()
    background, foreground = colours["background"], colours["foreground"]
    return {
        "user-message-bg": _mix(colours["surface"], foreground, 0.06),
        "tool-pending-bg": colours["surface"],
        "tool-success-bg": _mix(background, colours["success"], 0.12),
        "tool-error-bg": _mix(background, colours["error"], 0.15),
        "tool-title": foreground,
        "custom-message-bg": _mix(background, colours["secondary"], 0.12),
        "custom-message-label": colours["secondary"],
        "thinking-text": _mix(background, foreground, 0.6),
        "muted": _mix(background, foreground, 0.6),
        "dim": _mix(background, foreground, 0.45),
        "diff-added": colours["success"],
        "diff-removed": colours["error"],
        "diff-context": _mix(background, foreground, 0.55),
        "bash-mode": colours["warning"],
    }


async def watch_themes(on_change: Callable[[Path], Awaitable[None] | None], stop_event: Any,
                       folder: Path | None = None, debounce_ms: int = 200) -> None:
    """Call `on_change(path)` for each `.toml` file of the themes folder that is written or replaced.

    Watches the folder rather than the files: editors and atomic saves replace a file, and a watch on
    the old one would go silent."""
    import inspect

    from watchfiles import Change, awatch

    folder = folder or user_themes_dir()
    ensure_private_dir(folder)  # may be the first thing to create pi-tui's home
    async for changes in awatch(folder, debounce=debounce_ms, stop_event=stop_event, recursive=False,
                                watch_filter=lambda _change, changed: changed.endswith(".toml")):
        for change, changed in sorted(changes, key=lambda item: item[1]):
            if change == Change.deleted:
                continue
            outcome = on_change(Path(changed))
            if inspect.isawaitable(outcome):
                await outcome
