"""Claude Code transcripts (`~/.claude/projects/<folder>/<id>.jsonl`) read as Pi sessions.

`show`, `replay` and `whatif` judge the sessions people have, and many have Claude Code's. Its lines
are records with `type` user / assistant (others, such as `summary`, are not messages), a `uuid`, a
`parentUuid`, an ISO `timestamp`, `isSidechain` for a sub-agent's work, and `message` in the shape of
Anthropic's Messages API. One API reply is often written as several assistant lines sharing
`message.id`, one content block each, the usage repeated; here they become one Pi assistant message.
A user line's `tool_result` blocks become Pi tool results, its text a Pi user message. The branch
followed is the one ending at the newest line, as Claude Code resumes it; sidechains are left out.

The result lives in memory only: pi-tui never writes to a transcript it did not make.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from condense.session_file import LoadWarning
from pi_tui.session.migrate import CURRENT_VERSION
from pi_tui.session.store import Session, SessionError

_PROBE_LINES = 20
_STOP_REASONS = {"end_turn": "stop", "tool_use": "toolUse", "max_tokens": "length", "stop_sequence": "stop",
                 "refusal": "error"}

Record = dict[str, Any]


class ClaudeCodeSession(Session):
    """A session read from a Claude Code transcript: every write is refused."""

    def _persist(self, entry: dict[str, Any]) -> None:
        raise SessionError(f"{self.path}: a Claude Code transcript is read, never written; continue it in"
                           " Claude Code, or in pi-tui from a session of its own")


def is_claude_code_transcript(path: str | os.PathLike[str]) -> bool:
    """Does the file start like a Claude Code transcript (records with `uuid` and `sessionId`, no Pi
    session header)? Reads only its first lines."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            for _, line in zip(range(_PROBE_LINES), file, strict=False):
                record = _parse(line)
                if record is None:
                    continue
                if record.get("type") == "session":
                    return False
                if isinstance(record.get("uuid"), str) and isinstance(record.get("sessionId"), str):
                    return True
    except OSError:
        return False
    return False


def open_claude_code(path: str | os.PathLike[str]) -> ClaudeCodeSession:
    """The transcript's main branch as an in-memory Pi session; broken lines become warnings."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SessionError(f"{file}: cannot read it ({exc.strerror or exc})") from None
    warnings: list[LoadWarning] = []
    records: list[Record] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        record = _parse(line)
        if record is None:
            warnings.append(LoadWarning(str(file), number, "not a JSON object"))
        elif record.get("type") in ("user", "assistant") and isinstance(record.get("message"), dict) \
                and not record.get("isSidechain"):
            records.append(record)
    if not records:
        raise SessionError(f"{file}: a Claude Code transcript with no user or assistant message")
    messages = list(_messages(_branch(records)))
    header = {"type": "session", "version": CURRENT_VERSION, "id": str(records[-1].get("sessionId") or file.stem),
              "timestamp": str(records[0].get("timestamp") or ""), "cwd": str(records[0].get("cwd") or "")}
    session = ClaudeCodeSession(header, _entries(messages), file)
    session.warnings = warnings
    return session


def _parse(line: str) -> Record | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _branch(records: list[Record]) -> list[Record]:
    """The chain of `parentUuid` links from the newest record back to its root, oldest first."""
    by_uuid = {r["uuid"]: r for r in records if isinstance(r.get("uuid"), str)}
    chain: list[Record] = []
    seen: set[str] = set()
    current: Record | None = records[-1]
    while current is not None:
        chain.append(current)
        uuid = current.get("uuid")
        if isinstance(uuid, str):
            seen.add(uuid)
        parent = current.get("parentUuid")
        current = by_uuid.get(parent) if isinstance(parent, str) and parent not in seen else None
    return chain[::-1]


def _ms(stamp: Any) -> int:
    if isinstance(stamp, str):
        try:
            return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
        except ValueError:
            return 0
    return 0


def _messages(records: list[Record]) -> Iterator[dict[str, Any]]:
    """Pi messages in order: split assistant replies merged, tool results named after their calls."""
    names: dict[str, str] = {}
    reply: dict[str, Any] | None = None
    reply_id: Any = None
    for record in records:
        message, ts = record["message"], _ms(record.get("timestamp"))
        if record["type"] == "assistant":
            if reply is not None and message.get("id") is not None and message.get("id") == reply_id:
                reply["content"] += _assistant_blocks(message, names)
                reply["stopReason"] = _stop_reason(message, reply["stopReason"])
                continue
            if reply is not None:
                yield _finished(reply)
            reply, reply_id = _assistant(message, ts, names), message.get("id")
            continue
        if reply is not None:
            yield _finished(reply)
            reply = None
        yield from _user(message, ts, names)
    if reply is not None:
        yield _finished(reply)


def _stop_reason(message: Record, known: str | None) -> str | None:
    """Pi's stop reason for a record's `stop_reason`; a partial line (null) keeps what is known."""
    return _STOP_REASONS.get(str(message.get("stop_reason")), known)


def _finished(reply: dict[str, Any]) -> dict[str, Any]:
    """A reply whose lines never said why it stopped: it called tools, or it ended its turn."""
    if reply["stopReason"] is None:
        calls = any(block.get("type") == "toolCall" for block in reply["content"])
        reply["stopReason"] = "toolUse" if calls else "stop"
    return reply


def _assistant_blocks(message: Record, names: dict[str, str]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": str(block.get("text") or "")})
        elif kind == "thinking":
            blocks.append({"type": "thinking", "thinking": str(block.get("thinking") or "")})
        elif kind == "tool_use":
            call_id, name = str(block.get("id") or ""), str(block.get("name") or "")
            names[call_id] = name
            arguments = block.get("input")
            blocks.append({"type": "toolCall", "id": call_id, "name": name,
                           "arguments": arguments if isinstance(arguments, dict) else {}})
    return blocks


def _assistant(message: Record, ts: int, names: dict[str, str]) -> dict[str, Any]:
    usage = message.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    parts = {"input": usage.get("input_tokens"), "output": usage.get("output_tokens"),
             "cacheRead": usage.get("cache_read_input_tokens"), "cacheWrite": usage.get("cache_creation_input_tokens")}
    counts = {key: value if isinstance(value, int) else 0 for key, value in parts.items()}
    return {"role": "assistant", "content": _assistant_blocks(message, names), "api": "anthropic-messages",
            "provider": "anthropic", "model": str(message.get("model") or ""),
            "usage": {**counts, "totalTokens": sum(counts.values()),
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": _stop_reason(message, None), "timestamp": ts}


def _user(message: Record, ts: int, names: dict[str, str]) -> Iterator[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        if content:
            yield {"role": "user", "content": [{"type": "text", "text": content}], "timestamp": ts}
        return
    texts: list[dict[str, Any]] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            call_id = str(block.get("tool_use_id") or "")
            yield {"role": "toolResult", "toolCallId": call_id, "toolName": names.get(call_id, ""),
                   "content": _result_content(block.get("content")), "isError": bool(block.get("is_error")),
                   "timestamp": ts}
        elif block.get("type") == "text":
            texts.append({"type": "text", "text": str(block.get("text") or "")})
        elif block.get("type") == "image":
            texts.append(_image(block))
    if texts:
        yield {"role": "user", "content": texts, "timestamp": ts}


def _image(block: Record) -> dict[str, Any]:
    source = block.get("source")
    source = source if isinstance(source, dict) else {}
    return {"type": "image", "data": str(source.get("data") or ""),
            "mimeType": str(source.get("media_type") or "image/png")}


def _result_content(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            blocks.append({"type": "text", "text": str(block.get("text") or "")})
        elif isinstance(block, dict) and block.get("type") == "image":
            blocks.append(_image(block))
    return blocks or [{"type": "text", "text": ""}]


def _entries(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Pi message entries, each the child of the one before."""
    entries, parent = [], None
    for number, message in enumerate(messages, start=1):
        entry_id = f"cc{number:06d}"
        stamp = message.get("timestamp", 0)
        iso = datetime.fromtimestamp(stamp / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z") \
            if stamp else ""
        entries.append({"type": "message", "id": entry_id, "parentId": parent, "timestamp": iso, "message": message})
        parent = entry_id
    return entries
