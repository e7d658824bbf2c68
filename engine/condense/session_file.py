"""A Pi session file as it is on disk, damage included: its lines, and the tree its entries form.

A session is a person's work, and a crash, a full disk or another program can leave a line torn or
garbled in the middle of it. Pi skips such a line, and every entry below it is then cut off from its
branch: a reopened conversation silently loses its beginning. Both readers of session files, pi-tui's
session store and the library's store folder (condense.entry_log), read them here, by one rule: a
skipped line is named in a warning, and its children hang from its parent (read from the line's intact
head), else, when the line is too damaged to name its entry, from the entry before it in file order; so
does any entry whose parent is nowhere in the file (one changed character in its `parentId`), with a
warning naming its line.

Read as Pi reads: UTF-8 with invalid bytes as U+FFFD, a leading byte-order mark ignored, CRLF or LF
line ends, the last line with or without its newline. A lone surrogate (`\\ud83d`, half an emoji a
JavaScript string was cut in) is read as U+FFFD, what Pi sends the provider in its place
(condense.json_text). Beyond Pi, a line holding two entries with no newline between them is read as
both, and whatever decoded before a torn tail is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from condense.json_text import valid_parsed


@dataclass(frozen=True)
class LoadWarning:
    file: str
    line: int
    reason: str
    skipped: str = "line"  # "rest of the line" when entries before a torn tail were kept

    def __str__(self) -> str:
        lost = f"; {self.skipped} skipped" if self.skipped else ""  # "": the entry was kept, only moved
        return f"{self.file}:{self.line}: {self.reason}{lost}"


_DECODER = json.JSONDecoder()
_JSON_SPACE = " \t\r"  # what JSON.parse tolerates around a value on one line


def _decode_line(text: str) -> tuple[list[Any], str | None, str]:
    """The JSON values on one line, why the rest of it could not be read (None if it could), and
    that unread rest."""
    values: list[Any] = []
    pos = len(text) - len(text.lstrip(_JSON_SPACE))
    while pos < len(text):
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            return values, f"not valid JSON ({exc.msg.removesuffix(' at')} at column {exc.colno})", text[pos:]
        except RecursionError:  # json's decoder recurses per nesting level
            return values, "JSON nested too deeply to read", text[pos:]
        values.append(value)
        pos = len(text) - len(text[end:].lstrip(_JSON_SPACE))
    return values, None, ""


_ID = re.compile(r'^\{\s*"type"\s*:\s*"[^"]*"\s*,\s*"id"\s*:\s*"([^"\\]+)"\s*,\s*"parentId"\s*:\s*(?:null|"([^"\\]+)")')


def _salvaged_link(text: str) -> tuple[str, str | None] | None:
    """The id and parent of an entry whose line cannot be read, when its head survived (Pi writes
    `type`, `id` and `parentId` first), so its children can still be placed in the tree."""
    match = _ID.match(text)
    return (match[1], match[2]) if match else None


@dataclass
class Damage:
    """What unreadable lines left of the tree: the id -> parent links salvaged from their heads, and
    whether one named no entry at all (some entry's parent is then lost with it)."""

    links: dict[str, str | None]
    unnamed: bool = False


Values = list[tuple[int, Any]]  # every JSON value of the file with its line number


def read_lines(path: Path) -> tuple[Values, list[LoadWarning], Damage]:
    """Every JSON value of a session file with its line number, a warning for each unreadable line,
    and what those lines left of the tree. Raises OSError when the file cannot be read at all."""
    text = path.read_bytes().decode("utf-8", errors="replace").removeprefix("\ufeff")
    values: Values = []
    warnings: list[LoadWarning] = []
    damage = Damage({})
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        decoded, problem, unread = _decode_line(line)
        try:
            values.extend((number, value) for value in valid_parsed(decoded, line))
        except RecursionError:  # made valid string by string, a walk per nesting level
            decoded, problem, unread = [], "JSON nested too deeply to read", line
        if problem is not None:
            warnings.append(LoadWarning(str(path), number, problem, "rest of the line" if decoded else "line"))
            link = _salvaged_link(unread)
            if link is not None:
                damage.links[link[0]] = link[1]
            elif unread.strip():
                damage.unnamed = True
    return values, warnings, damage


def json_kind(value: Any) -> str:
    """A value as the file shows it (`null`, `42`), or its kind when too long to quote: never a Python
    type name."""
    if isinstance(value, list | dict):
        return "a list" if isinstance(value, list) else "an object"
    if isinstance(value, str):
        return "a string"
    return json.dumps(value)


def tree_problem(obj: Any) -> str | None:
    """Why a decoded value cannot take a place in the session tree (None when it can): Pi's own rule,
    before any check of what an entry of its type holds."""
    if not isinstance(obj, dict):
        return f"not an entry ({json_kind(obj)})"
    kind = obj.get("type")
    if not isinstance(kind, str):
        return "missing the string field 'type'"
    if kind != "session" and obj.get("id") is None:
        return "missing the string field 'id' that places it in the session tree"
    for key in ("id", "parentId"):
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            return f"'{key}' must be a string or null, got {json_kind(value)}"
    return None


Skipped = dict[str, str | None]  # a skipped line's entry id -> its parent


def usable_ancestor(entry_id: str | None, skipped: Mapping[str, str | None]) -> str | None:
    """The nearest ancestor of `entry_id` (itself included) that was not skipped on load."""
    seen: set[str] = set()
    while entry_id is not None and entry_id in skipped and entry_id not in seen:
        seen.add(entry_id)
        entry_id = skipped[entry_id]
    return entry_id


def _bridge_dangling(file: str, numbered: list[tuple[int, dict[str, Any]]], skipped: Skipped) -> list[LoadWarning]:
    """An entry whose parent is nowhere in the file (lost with a line too damaged to name its entry, or
    changed by a stray edit) hangs from the entry before it in file order (its parent's parent in a linear
    session) instead of cutting everything earlier off its branch, as Pi's walk would; one warning per
    missing parent names the line that points at it."""
    known = {entry["id"] for _, entry in numbered if isinstance(entry.get("id"), str)}
    warnings: list[LoadWarning] = []
    previous: str | None = None
    for number, entry in numbered:
        parent = entry.get("parentId")
        if isinstance(parent, str):
            ancestor = usable_ancestor(parent, skipped)
            if ancestor is not None and ancestor not in known and ancestor != entry.get("id"):
                skipped[ancestor] = previous
                follows = "the entry before it" if previous is not None else "nothing: it starts the tree"
                warnings.append(LoadWarning(file, number, f"its parent {json.dumps(ancestor)} is no entry of the file;"
                                            f" read as following {follows}", skipped=""))
        if isinstance(entry.get("id"), str):
            previous = entry["id"]
    return warnings


def _file_leaf(objs: list[dict[str, Any]], skipped: Skipped) -> str | None:
    """Pi's leaf: the last entry in file order, whatever its type (a label or a session name too);
    when that line was skipped, its nearest usable ancestor."""
    for obj in reversed(objs):
        entry_id = obj.get("id")
        if obj.get("type") != "session" and isinstance(entry_id, str):
            return usable_ancestor(entry_id, skipped)
    return None


@dataclass
class Tree:
    """The usable entries of a file in file order, the skipped lines' links, Pi's leaf, and a warning
    per skipped line in line order."""

    entries: list[dict[str, Any]]
    skipped: Skipped
    leaf_id: str | None
    warnings: list[LoadWarning]


def build_tree(file: str, values: Values, warnings: list[LoadWarning], damage: Damage, header: object,
               problem: Callable[[Any], str | None]) -> Tree:
    """The tree of a file's decoded `values` (its `header` left out); `problem` says why a value
    cannot be used as an entry (pi-tui checks every field it reads, the library only the tree's)."""
    numbered: list[tuple[int, dict[str, Any]]] = []
    skipped: Skipped = {}
    warnings = list(warnings)
    for number, obj in values:
        if obj is header:
            continue
        reason = problem(obj)
        if reason is not None:
            warnings.append(LoadWarning(file, number, reason))
            if isinstance(obj, dict) and isinstance(obj.get("id"), str):
                parent = obj.get("parentId")
                skipped[obj["id"]] = parent if isinstance(parent, str) else None
        elif obj.get("type") != "session":  # a second header is not part of the tree, as in Pi
            numbered.append((number, obj))
    skipped.update({k: v for k, v in damage.links.items() if k not in skipped})
    warnings += _bridge_dangling(file, numbered, skipped)
    objs = [v for _, v in values if isinstance(v, dict) and v is not header]
    entries = [entry for _, entry in numbered]
    return Tree(entries, skipped, _file_leaf(objs, skipped), sorted(warnings, key=lambda w: w.line))


def parent_of(entry: Mapping[str, Any], by_id: Mapping[str, Any], skipped: Mapping[str, str | None]) -> str | None:
    """The entry's parent in the tree, looking through lines skipped on load."""
    parent = entry.get("parentId")
    if not isinstance(parent, str) or parent in by_id:
        return parent if isinstance(parent, str) else None
    return usable_ancestor(parent, skipped)


def walk(by_id: Mapping[str, dict[str, Any]], leaf_id: str | None,
         skipped: Mapping[str, str | None]) -> list[dict[str, Any]]:
    """Root-to-leaf path of `leaf_id`; a parent cycle ends the walk."""
    path: list[dict[str, Any]] = []
    seen: set[str | None] = set()
    current = by_id.get(leaf_id) if leaf_id is not None else None
    while current is not None:
        entry_id = current.get("id")
        if entry_id in seen:
            break
        seen.add(entry_id)
        path.append(current)
        parent = parent_of(current, by_id, skipped)
        current = by_id.get(parent) if parent is not None else None
    path.reverse()
    return path
