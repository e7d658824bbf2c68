"""Writing `settings.toml` without ever losing what the user wrote.

We edit the document as it is on disk with tomlkit, so the user's comments, key order, spelling and unknown
keys survive a save; we refuse to touch a file we could not parse, validate the exact text we are about to
write, and replace the file atomically so readers see the old or the new text.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections import deque
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from pi_tui.paths import ensure_private_dir, settings_file
from pi_tui.settings.keys import KeyPath, normalise_keys, same_key
from pi_tui.settings.load import parse_toml, read_file
from pi_tui.settings.model import Settings, SettingsError
from pi_tui.settings.problems import validate

_save_lock = threading.Lock()
_own_writes: dict[Path, deque[str]] = {}  # digests of our recent saves, per file, for the watcher


def digest(data: bytes | None) -> str:
    return "missing" if data is None else hashlib.sha256(data).hexdigest()


def is_own_write(path: Path, content_digest: str) -> bool:
    """True for content we saved ourselves. An outside edit clears the memory: if the user later restores
    the exact text we once wrote, that is their change and the app must reload it."""
    recent = _own_writes.get(path.resolve())
    if recent is None or content_digest not in recent:
        if recent is not None:
            recent.clear()
        return False
    while recent.popleft() != content_digest:
        pass
    return True


def _diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """What changed from `old` to `new`, as nested changes; a key gone from `new` maps to None."""
    out: dict[str, Any] = {}
    for key in [*new, *(key for key in old if key not in new)]:
        before, after = old.get(key), new.get(key)
        if isinstance(before, dict) and isinstance(after, dict):
            if nested := _diff(before, after):
                out[key] = nested
        elif before != after:
            out[key] = after
    return out


def _without_none(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [_without_none(item) for item in value if item is not None]
    return value


def _merge(table: MutableMapping[str, Any], changes: Mapping[str, Any], path: KeyPath = ()) -> None:
    """Apply snake_case `changes` to a tomlkit table in place, key by key: a value is replaced where it
    stands (its comment too), under the user's spelling of its key; any other spelling of it goes."""
    for key, value in changes.items():
        spellings = [written for written in table if same_key(written, key, path)]
        name, old = (spellings[0], table[spellings[0]]) if spellings else (key, None)
        for written in spellings[1:]:
            del table[written]
        if isinstance(value, Mapping):
            nested = old if isinstance(old, MutableMapping) else tomlkit.table()
            _merge(nested, value, (*path, key))
            if nested is old and nested:
                continue
            value = nested or None
        if value is not None:
            table[name] = _without_none(value)
        elif spellings:
            del table[name]


def _leaf_paths(changes: Mapping[str, Any], path: KeyPath = ()) -> list[KeyPath]:
    paths: list[KeyPath] = []
    for key, value in changes.items():
        nested = isinstance(value, Mapping) and value
        paths += _leaf_paths(value, (*path, key)) if nested else [(*path, key)]
    return paths


def _overlaps(a: KeyPath, b: KeyPath) -> bool:
    return a[: len(b)] == b or b[: len(a)] == a


def _write_atomic(path: Path, data: bytes) -> None:
    ensure_private_dir(path.parent)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o600)
        # Remembered before the file appears, so the watcher can never see it first.
        _own_writes.setdefault(path.resolve(), deque(maxlen=8)).append(digest(data))
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _changes_from(given: Settings | Mapping[str, Any], raw: dict[str, Any], source: str) -> dict[str, Any]:
    if isinstance(given, Settings):
        current, _ = validate(raw, source, Settings)
        return _diff(current.model_dump(mode="json"), given.model_dump(mode="json"))
    changes: dict[str, Any] = normalise_keys(dict(given))[0]  # a dict in, a dict out
    return changes


def save_settings(settings_or_changes: Settings | Mapping[str, Any], path: Path | None = None) -> Settings:
    """Write changed values into the settings file and return the settings it now holds.

    Pass nested changes (`{"retry": {"max_retries": 5}}`; None removes a key) or a whole `Settings`, of
    which only the values that differ from the file are written. Raises SettingsError, with nothing
    written, when the current file cannot be read or parsed, or when a changed value is invalid.
    """
    path = path or settings_file()
    with _save_lock:
        data, error = read_file(path)
        raw, error = parse_toml(data, path.name) if data is not None else ({}, error)
        if error:
            raise SettingsError(f"Settings not saved: {error}. Fix {path} first.")
        changes = _changes_from(settings_or_changes, raw, path.name)
        text = _edited(data, changes, path)
        document, error = parse_toml(text.encode("utf-8"), path.name)
        if error:
            raise SettingsError(f"Settings not saved: the edited file would not read back ({error})")
        settings, problems = validate(document, path.name, Settings)
        changed = _leaf_paths(changes)
        for problem in problems:
            if any(_overlaps(problem.path, leaf) for leaf in changed):
                raise SettingsError(f"Settings not saved: {problem.line}")
        try:
            _write_atomic(path, text.encode("utf-8"))
        except OSError as exc:
            raise SettingsError(f"Settings not saved: cannot write {path} ({exc.strerror or exc})") from None
    return settings


def _edited(data: bytes | None, changes: Mapping[str, Any], path: Path) -> str:
    """The file's text with `changes` applied; tomllib has already accepted `data`, tomlkit must too."""
    try:
        document = tomlkit.parse(data.decode("utf-8-sig")) if data is not None else tomlkit.document()
    except TOMLKitError as exc:
        raise SettingsError(f"Settings not saved: {path.name} cannot be edited ({exc}). Fix {path} first.") from None
    try:
        _merge(document, changes)
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"Settings not saved: a value cannot be written as TOML ({exc})") from None
    return tomlkit.dumps(document)
