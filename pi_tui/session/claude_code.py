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

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from condense.timefmt import iso_to_ms
from pi_tui.session.foreign import (
    EntryChain,
    ForeignSession,
    Record,
    header,
    read_records,
    starts_like,
    stop_reason,
    usage,
)
from pi_tui.session.store import SessionError

_STOP_REASONS = {"end_turn": "stop", "tool_use": "toolUse", "max_tokens": "length", "stop_sequence": "stop",
                 "refusal": "error"}

KIND, HOME = "Claude Code transcript", "Claude Code"


def _verdict(record: Record) -> bool | None:
    """A Pi session header says no; a record with `uuid` and `sessionId` says yes."""
    if record.get("type") == "session":
        return False
    if isinstance(record.get("uuid"), str) and isinstance(record.get("sessionId"), str):
        return True
    return None


def is_claude_code_transcript(path: str | os.PathLike[str]) -> bool:
    """Does the file start like a Claude Code transcript? Reads only its first lines."""
    return starts_like(path, _verdict)


def open_claude_code(path: str | os.PathLike[str]) -> ForeignSession:
    """The transcript's main branch as an in-memory Pi session; broken lines become warnings."""
    file = Path(path)
    lines, warnings = read_records(file)
    records = [r for _, r in lines if r.get("type") in ("user", "assistant") and isinstance(r.get("message"), dict)
               and not r.get("isSidechain")]
    if not records:
        raise SessionError(f"{file}: a Claude Code transcript with no user or assistant message")
    chain = EntryChain("cc")
    for message in _messages(_branch(records)):
        chain.add_message(message)
    session = ForeignSession(header(str(records[-1].get("sessionId") or file.stem),
                                    str(records[0].get("timestamp") or ""), str(records[0].get("cwd") or "")),
                             chain, file, KIND, HOME)
    session.warnings = warnings
    return session


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


def _messages(records: list[Record]) -> Iterator[dict[str, Any]]:
    """Pi messages in order: split assistant replies merged, tool results named after their calls."""
    names: dict[str, str] = {}
    reply: dict[str, Any] | None = None
    reply_id: Any = None
    for record in records:
        message, ts = record["message"], iso_to_ms(record.get("timestamp"))
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
    """A reply whose lines never said why it stopped gets the reason its content shows."""
    if reply["stopReason"] is None:
        reply["stopReason"] = stop_reason(reply["content"])
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
    recorded = message.get("usage")
    recorded = recorded if isinstance(recorded, dict) else {}
    counts = [recorded.get(key) for key in ("input_tokens", "output_tokens", "cache_read_input_tokens",
                                            "cache_creation_input_tokens")]
    return {"role": "assistant", "content": _assistant_blocks(message, names), "api": "anthropic-messages",
            "provider": "anthropic", "model": str(message.get("model") or ""),
            "usage": usage(*(count if isinstance(count, int) else 0 for count in counts)),
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
