"""Bring version 1 and 2 session files to version 3, in memory.

Pi's rules: v1 is a linear log without ids, so each entry gets an id and the previous entry as its
parent, and a compaction's `firstKeptEntryIndex` (an index into the file's lines, header included)
becomes `firstKeptEntryId`; v2 -> v3 renames the `hookMessage` role to `custom`.

One deliberate difference: Pi draws random ids, we derive them from the session id and the line
position. The file is not rewritten on load, so every load must give the same ids, or entries that
condense appends later would point at parents that a reload no longer has.
"""

from __future__ import annotations

import hashlib
from typing import Any

CURRENT_VERSION = 3


def _stable_id(seed: str, index: int, taken: set[str]) -> str:
    attempt = 0
    while True:
        digest = hashlib.sha256(f"{seed}:{index}:{attempt}".encode("utf-8", "surrogatepass")).hexdigest()[:8]
        if digest not in taken:
            taken.add(digest)
            return digest
        attempt += 1


def _v1_to_v2(entries: list[dict[str, Any]]) -> None:
    header = entries[0]
    seed = str(header.get("id", ""))
    taken: set[str] = set()
    prev: str | None = None
    for index, entry in enumerate(entries):
        if entry.get("type") == "session":
            entry["version"] = 2
            continue
        entry["id"] = _stable_id(seed, index, taken)
        entry["parentId"] = prev
        prev = entry["id"]
        if entry.get("type") == "compaction" and "firstKeptEntryIndex" in entry:
            kept = entry.pop("firstKeptEntryIndex")
            if isinstance(kept, int) and 0 <= kept < len(entries):
                target = entries[kept]
                if target.get("type") != "session" and "id" in target:
                    entry["firstKeptEntryId"] = target["id"]


def _v2_to_v3(entries: list[dict[str, Any]]) -> None:
    for entry in entries:
        if entry.get("type") == "session":
            entry["version"] = 3
        elif entry.get("type") == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "hookMessage":
                message["role"] = "custom"


def file_version(header: dict[str, Any]) -> int:
    version = header.get("version")
    return version if isinstance(version, int) else 1


def migrate(entries: list[dict[str, Any]]) -> int:
    """Migrate `entries` (header first) in place to version 3; return the version they had."""
    version = file_version(entries[0])
    if version < 2:
        _v1_to_v2(entries)
    if version < 3:
        _v2_to_v3(entries)
    return version
