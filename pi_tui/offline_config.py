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

from condense.config import CondenseConfig
from pi_tui.errors import UserError
from pi_tui.settings import load_settings, snake_case


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
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UserError(f"{source}: {where}: {first['msg'].lower()}") from None


def _file_table(path: Path) -> dict[str, Any]:
    """The `[condense]` keys `path` sets (only those), or one line saying what is wrong with it."""
    if not path.is_file():
        raise UserError(f"--settings {path}: no such file")
    result = load_settings(path)
    if result.errors:
        raise UserError(f"--settings {path}: {result.errors[0]}")
    return result.settings.condense.model_dump(exclude_unset=True)


def _pair(pair: str) -> dict[str, Any]:
    """`key=value` as a nested change: dotted keys for tables, JSON values where they parse."""
    key, sep, value = pair.partition("=")
    if not sep or not key.strip():
        raise UserError(f"--set {pair}: expected KEY=VALUE, e.g. --set min_batch_chars=0")
    try:
        parsed: Any = json.loads(value)
    except ValueError:
        parsed = value
    *tables, leaf = [snake_case(part.strip().replace("-", "_")) for part in key.split(".")]
    for table in reversed(tables):
        leaf, parsed = table, {leaf: parsed}
    return {leaf: parsed}


def _check_tables(data: Mapping[str, Any], change: Mapping[str, Any], pair: str) -> None:
    for key, value in change.items():
        if isinstance(value, dict):
            if key in data and not isinstance(data[key], dict):
                raise UserError(f"--set {pair}: {key} is a value, not a table")
            _check_tables(data.get(key, {}), value, pair)


def offline_condense_config(settings_file: str | None, pairs: Sequence[str],
                            start: CondenseConfig | None = None) -> CondenseConfig:
    """`start` (default: the design's defaults), then `--settings FILE`'s `[condense]`, then `--set`."""
    data = (start or CondenseConfig()).model_dump()
    if settings_file is not None:
        data = _validated(_merged(data, _file_table(Path(settings_file))), f"--settings {settings_file}").model_dump()
    for pair in pairs:
        change = _pair(pair)
        _check_tables(data, change, pair)
        data = _merged(data, change)
    return _validated(data, "--set")
