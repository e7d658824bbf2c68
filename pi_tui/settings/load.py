"""Reading `settings.toml`: never raises, because the app must start even with a broken file."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_tui.paths import settings_file
from pi_tui.settings.model import Settings
from pi_tui.settings.problems import validate_document


@dataclass(frozen=True)
class LoadResult:
    settings: Settings
    errors: list[str] = field(default_factory=list)  # one line each, ready for a notification
    raw: dict[str, Any] = field(default_factory=dict)  # the document as written, unknown keys included


def read_file(path: Path) -> tuple[bytes | None, str | None]:
    """The file's bytes (None if it does not exist), or an error line if it exists but cannot be read."""
    try:
        return path.read_bytes(), None
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{path.name}: cannot read the file ({exc.strerror or exc})"


def _syntax_error(message: str, text: str) -> str:
    """tomllib (3.11) only puts the position in its message: turn it into `line L, column C: msg`."""
    if match := re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", message, re.DOTALL):
        return f"line {match[2]}, column {match[3]}: {match[1]}"
    if match := re.fullmatch(r"(.*) \(at end of document\)", message, re.DOTALL):
        last_line = text.rsplit("\n", 1)[-1]
        return f"line {text.count(chr(10)) + 1}, column {len(last_line) + 1}: {match[1]}"
    return message


def parse_toml(data: bytes, source: str) -> tuple[dict[str, Any], str | None]:
    """The parsed document, or `{}` and an error line naming the position of the mistake."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return {}, f"{source}: not UTF-8 text (bad byte at offset {exc.start})"
    try:
        return tomllib.loads(text), None
    except tomllib.TOMLDecodeError as exc:
        return {}, f"{source}: {_syntax_error(str(exc), text)}"
    except RecursionError:  # tomllib recurses once per nesting level of arrays and inline tables
        return {}, f"{source}: line {_deep_line(text)}: arrays or inline tables nested too deeply"


def _deep_line(text: str, limit: int = 100) -> int:
    """The line where brackets first nest deeper than `limit` (strings aside: only for the message)."""
    depth = 0
    for number, line in enumerate(text.split("\n"), start=1):
        for char in line:
            depth += (char in "[{") - (char in "]}")
            if depth > limit:
                return number
    return 1


def load_bytes(data: bytes | None, read_error: str | None, source: str) -> LoadResult:
    if data is None:
        return LoadResult(Settings(), [f"{read_error}; using defaults"] if read_error else [], {})
    raw, syntax_error = parse_toml(data, source)
    if syntax_error:
        return LoadResult(Settings(), [syntax_error], {})
    settings, errors = validate_document(raw, source)
    return LoadResult(settings, errors, raw)


def load_settings(path: Path | None = None) -> LoadResult:
    """A missing file gives defaults; a broken one gives defaults (per key if possible) and error lines."""
    path = path or settings_file()
    return load_bytes(*read_file(path), path.name)
