"""The condense settings `replay` and `whatif` run with: the same rule for both commands.

They start from the design's defaults, then take the `[condense]` table of `--settings FILE`, then
each `--set key=value` in order. The user's own `~/.pi-tui/settings.toml` is never read implicitly:
a replay or a cost comparison must mean the same thing on every machine, and say what it assumed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from condense.config import CondenseConfig, one_line_error
from pi_tui.errors import UserError
from pi_tui.file_kind import irregular_kind
from pi_tui.settings import load_settings, snake_case
from pi_tui.settings.keys import set_dotted


def _merged(data: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """`changes` over `data`, table by table (a nested table keeps the keys it does not change)."""
    out = dict(data)
    for key, value in changes.items():
        current = out.get(key)
        out[key] = _merged(current, value) if isinstance(value, dict) and isinstance(current, dict) else value
    return out


def _validated(data: dict[str, Any], source: str) -> CondenseConfig:
    try:
        return CondenseConfig.model_validate(data)
    except ValidationError as exc:
        raise UserError(f"{source}: {one_line_error(exc, CondenseConfig)}") from None


def _file_table(path: Path) -> dict[str, Any]:
    """The `[condense]` keys `path` sets (only those), or one line saying what is wrong with it."""
    kind = irregular_kind(path)
    if kind == "a folder":
        raise UserError(f"--settings {path}: is a folder; give the settings file in it, e.g. {path / 'settings.toml'}")
    if kind is not None:
        raise UserError(f"--settings {path}: is {kind}, not a settings file; give a settings.toml")
    if not path.is_file():
        raise UserError(f"--settings {path}: no such file")
    result = load_settings(path)
    if result.errors:
        raise UserError(f"--settings {path}: {result.errors[0]}")
    return result.settings.condense.model_dump(exclude_unset=True)


def _pair(pair: str) -> tuple[tuple[str, ...], Any]:
    """`key=value` as a key path and a value: dotted keys for tables, JSON values where they parse."""
    key, sep, value = pair.partition("=")
    if not sep or not key.strip():
        raise UserError(f"--set {pair}: expected KEY=VALUE, e.g. --set min_batch_chars=0")
    try:
        parsed: Any = json.loads(value)
    except ValueError:
        parsed = value
    return tuple(snake_case(part.strip().replace("-", "_")) for part in key.split(".")), parsed


def summarizer_pair(name: str) -> str:
    """`--summarizer NAME` as the `--set` pair it stands for; a bad NAME is blamed on the flag."""
    try:
        CondenseConfig(summarizer_model=name)
    except ValidationError as exc:
        raise UserError(f"--summarizer {name}: {one_line_error(exc, CondenseConfig)}") from None
    return f"summarizer_model={name}"


def offline_condense_config(settings_file: str | None, pairs: Sequence[str],
                            start: CondenseConfig | None = None) -> CondenseConfig:
    """`start` (default: the design's defaults), then `--settings FILE`'s `[condense]`, then `--set`."""
    data = (start or CondenseConfig()).model_dump()
    if settings_file is not None:
        data = _validated(_merged(data, _file_table(Path(settings_file))), f"--settings {settings_file}").model_dump()
    for pair in pairs:
        try:
            data = set_dotted(data, *_pair(pair))
        except ValueError as exc:
            raise UserError(f"--set {pair}: {exc}") from None
    return _validated(data, "--set")
