"""Key spelling: Pi and the pruning design write camelCase, our files are snake_case; accept both on load."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

KeyPath = tuple[str, ...]
Duplicate = tuple[KeyPath, list[str]]

# Tables whose keys are user data (binding ids, model refs), not setting names: never renamed, never
# "did you mean".
OPAQUE_TABLES = frozenset({("keymap",), ("models",)})

_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake_case(key: str) -> str:
    """`defaultModel` -> `default_model`, `maxTTLMs` -> `max_ttl_ms`; snake_case keys come back unchanged."""
    return _WORD_BOUNDARY.sub("_", key).lower()


def same_key(written: str, wanted: str, table: KeyPath) -> bool:
    """Does `written` (as found in the file, inside `table`) name the snake_case key `wanted`?"""
    return written == wanted if table in OPAQUE_TABLES else snake_case(written) == wanted


def normalise_keys(value: Any, path: KeyPath = ()) -> tuple[Any, list[Duplicate]]:
    """Rename every table key to snake_case, recursively, so Pi's camelCase files validate unchanged.

    Returns the renamed copy and the keys spelled more than once (`defaultModel` and `default_model`):
    the snake_case spelling wins, otherwise the first one.
    """
    if isinstance(value, list):
        items = [normalise_keys(item, path) for item in value]
        return [item for item, _ in items], [dup for _, dups in items for dup in dups]
    if not isinstance(value, dict):
        return value, []
    out: dict[str, Any] = {}
    spellings: dict[str, list[str]] = {}
    duplicates: list[Duplicate] = []
    for key, item in value.items():
        name = key if path in OPAQUE_TABLES else snake_case(key)
        child, child_duplicates = normalise_keys(item, (*path, name))
        duplicates += child_duplicates
        spellings.setdefault(name, []).append(key)
        if name not in out or key == name:
            out[name] = child
    duplicates += [((*path, name), keys) for name, keys in spellings.items() if len(keys) > 1]
    return out, duplicates


def set_dotted(data: Mapping[str, Any], key: str | KeyPath, value: Any) -> dict[str, Any]:
    """A copy of `data` with the dotted `key` (`purge_errors.cooldown_turns`) set to `value`, tables made on
    the way: the one way `--set`, the settings overlays and the savers turn a key into a change. Raises
    ValueError naming the part of `key` that holds a value, not a table."""
    head, *rest = key.split(".") if isinstance(key, str) else key
    out = dict(data)
    if not rest:
        out[head] = value
        return out
    table = out.get(head, {})
    if not isinstance(table, Mapping):
        raise ValueError(f"{head} is a value, not a table")
    out[head] = set_dotted(table, tuple(rest), value)
    return out
