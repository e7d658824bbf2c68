"""Long sessions built from a corpus session, for measuring how cost grows with session length.

The corpus holds sessions of about 1,000 entries; growth needs 4,000 and more. Copies of one recorded
session are laid end to end, each with its tool-call ids renumbered (a reused id would alias outputs),
its timestamps shifted past the previous copy (chain boundaries are found by timestamp) and its tool
outputs made distinct (otherwise dedup-by-content would summarise every copy after the first for free).
The result is a version 1 file, like the corpus, which loads through the same migration.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
SOURCE = CORPUS / "pi-large-session.jsonl"
_KEPT_TYPES = ("message", "model_change", "thinking_level_change")


def _load(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines[0], [entry for entry in lines[1:] if entry.get("type") in _KEPT_TYPES]


def _shift_iso(text: str, delta: timedelta) -> str:
    moved = datetime.fromisoformat(text.replace("Z", "+00:00")) + delta
    return moved.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moved.microsecond // 1000:03d}Z"


def _renumber_message(message: dict[str, Any], copy: int, shift_ms: int) -> dict[str, Any]:
    out = {**message}
    if isinstance(out.get("timestamp"), int):
        out["timestamp"] += shift_ms
    if "toolCallId" in out:
        out["toolCallId"] = f"{out['toolCallId']}-c{copy}"
    content = out.get("content")
    if isinstance(content, list):
        blocks = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                block = {**block, "id": f"{block.get('id')}-c{copy}"}
            elif isinstance(block, dict) and block.get("type") == "text" and out.get("role") == "toolResult":
                block = {**block, "text": f"{block.get('text', '')}\n[copy {copy}]"}
            blocks.append(block)
        out["content"] = blocks
    return out


def _copy(entries: list[dict[str, Any]], copy: int, shift: timedelta) -> list[dict[str, Any]]:
    shift_ms = int(shift.total_seconds() * 1000)
    out = []
    for entry in entries:
        moved = {**entry, "timestamp": _shift_iso(entry["timestamp"], shift)} if "timestamp" in entry else {**entry}
        if entry.get("type") == "message":
            moved["message"] = _renumber_message(entry["message"], copy, shift_ms)
        out.append(moved)
    return out


def _span(entries: list[dict[str, Any]]) -> timedelta:
    stamps = [datetime.fromisoformat(e["timestamp"].replace("Z", "+00:00")) for e in entries if "timestamp" in e]
    return max(stamps) - min(stamps) + timedelta(hours=1)


def build(messages: int, out: Path, source: Path = SOURCE) -> Path:
    """Write a session of `messages` message entries to `out`, from copies of `source`."""
    header, entries = _load(source)
    span = _span(entries)
    written: list[dict[str, Any]] = []
    copy = 0
    while sum(1 for e in written if e.get("type") == "message") < messages:
        written += _copy(entries, copy, span * copy)
        copy += 1
    kept: list[dict[str, Any]] = []
    count = 0
    for entry in written:
        if entry.get("type") == "message":
            if count == messages:
                break
            count += 1
        kept.append(entry)
    out.write_text("".join(json.dumps(e) + "\n" for e in [header, *kept]), encoding="utf-8")
    return out
