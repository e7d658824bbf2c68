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

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from textual.color import Color, ColorParseError
from textual.theme import Theme

from condense.config import one_line_error
from pi_tui.paths import home_dir

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


def _check_colour(value: str) -> str:
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"not a colour: {value!r} (use e.g. \"#88c0d0\" or \"rgb(136,192,208)\")") from None
    return value


class _Colors(BaseModel):
    model_config = ConfigDict(extra="forbid")
    primary: str
    secondary: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    success: str | None = None
    warning: str | None = None
    error: str | None = None

    @field_validator("*")
    @classmethod
    def _colour(cls, value: str | None) -> str | None:
        return None if value is None else _check_colour(value)


class _ThemeFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None
    dark: bool = True
    colors: _Colors
    variables: dict[str, str] = {}

    @field_validator("variables")
    @classmethod
    def _colours(cls, value: dict[str, str]) -> dict[str, str]:
        for key, colour in value.items():
            try:
                _check_colour(colour)
            except ValueError as exc:
                raise ValueError(f"{key}: {exc}") from None
        return value


def parse_theme(data: dict[str, Any], fallback_name: str, source: str) -> Theme:
    try:
        spec = _ThemeFile.model_validate(data)
    except ValidationError as exc:
        raise ThemeError(f"{source}: {one_line_error(exc, _ThemeFile)}") from None
    return Theme(name=spec.name or fallback_name, dark=spec.dark, variables=dict(spec.variables),
                 **spec.colors.model_dump(exclude_none=True))


def load_theme_file(path: Path) -> Theme:
    """A theme from a TOML file; its name is the `name` key, else the file name without `.toml`."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ThemeError(f"{path.name}: cannot read the file ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ThemeError(f"{path.name}: not valid TOML ({exc})") from None
    return parse_theme(data, path.stem, path.name)


def shipped_themes() -> list[Theme]:
    return [load_theme_file(path) for path in sorted(SHIPPED_DIR.glob("*.toml"))]


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
    folder.mkdir(parents=True, exist_ok=True)
    async for changes in awatch(folder, debounce=debounce_ms, stop_event=stop_event, recursive=False,
                                watch_filter=lambda _change, changed: changed.endswith(".toml")):
        for change, changed in sorted(changes, key=lambda item: item[1]):
            if change == Change.deleted:
                continue
            outcome = on_change(Path(changed))
            if inspect.isawaitable(outcome):
                await outcome
