"""Builders for the lines of a Pi session file, shared by the store, show and TUI tests.

Tests write session files by hand (not through the store under test) so that what is loaded is what
Pi or an older pi-tui would have written, damage included; these builders keep those files short.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from condense.messages import AssistantMessage, UserMessage
from pi_tui.paths import encode_cwd

V1_HEADER = {"type": "session", "id": "old-1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"}
V3_HEADER = {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}


def write_lines(path: Path, objs: list[dict[str, Any]], tail: str = "") -> Path:
    """One JSON object a line, then `tail` as given (a torn last line, say)."""
    path.write_text("".join(json.dumps(o) + "\n" for o in objs) + tail, encoding="utf-8")
    return path


def write(path: Path, lines: list[dict[str, Any] | str | bytes], end: bytes = b"\n") -> Path:
    """Each line as given (an object is dumped compactly, as Pi writes it), joined by `end`."""
    raw = [ln if isinstance(ln, bytes) else (ln if isinstance(ln, str) else json.dumps(ln)).encode() for ln in lines]
    path.write_bytes(end.join(raw) + end)
    return path


def iso(second: int) -> str:
    """An entry timestamp `second` seconds into 2026, so entries sort the way their numbers read."""
    return f"2026-01-01T00:00:{second:02d}.000Z"


def entry(kind: str, entry_id: str, parent: str | None, second: int, **fields: Any) -> dict[str, Any]:
    """A v3 entry of any kind, its tree position spelt out so branches read off the call."""
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": iso(second), **fields}


def msg(entry_id: str, parent: str | None, second: int, message: Mapping[str, Any]) -> dict[str, Any]:
    """A v3 message entry holding `message`."""
    return entry("message", entry_id, parent, second, message=message)


def user(text: str, ts: int = 1) -> UserMessage:
    """A user message of one text block."""
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def assistant(text: str, ts: int = 2) -> AssistantMessage:
    """A bare assistant reply for tests of the store, which never reads its model or usage."""
    # an empty usage (the store never reads it), so not quite the TypedDict
    return cast(AssistantMessage, {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "x",
                                   "provider": "p", "model": "m", "usage": {}, "stopReason": "stop", "timestamp": ts})


def saved_session(root: Path, cwd: Path, text: str, session_id: str, modified: float) -> Path:
    """A two-message session of `cwd` in a sessions folder (pi-tui's or Pi's: the same layout), named and
    dated as Pi names its files, last changed at `modified` (listings sort by it)."""
    header = {**V3_HEADER, "id": session_id, "cwd": str(cwd)}
    path = root / encode_cwd(cwd) / f"2026-01-01T00-00-00-000Z_{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_lines(path, [header, msg("u1", None, 1, user(text)), msg("a1", "u1", 2, assistant(f"done: {text}"))])
    os.utime(path, (modified, modified))
    return path


def openai_assistant(text: str, ts: int) -> dict[str, Any]:
    """An assistant reply as Pi records one from an OpenAI-compatible model (an empty usage all the same)."""
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "openai-completions",
            "provider": "openai", "model": "gpt-x", "usage": {}, "stopReason": "stop", "timestamp": ts}


def every_leniency(tmp_path: Path) -> Path:
    """One file holding every line Pi keeps that an older pi-tui dropped, and one line Pi cannot use."""
    bare_reply = {"role": "assistant", "content": [{"type": "text", "text": "glued one"}]}  # no usage, model...
    glued = (json.dumps(msg("b1", "a9", 10, bare_reply)) +
             json.dumps(msg("b2", "b1", 11, user("glued two", 11))))
    utf8 = json.dumps(msg("a2", "a1", 2, user("bad XX", 2))).encode().replace(b"XX", b"\xc3\x28")
    path = write(tmp_path / "lenient.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, {"role": "user", "content": "no timestamp"}),
        utf8,
        entry("model_change", "a3", "a2", 3, modelId="gpt-x"),
        entry("thinking_level_change", "a4", "a3", 4),
        entry("custom_message", "a5", "a4", 5, content="no custom type"),
        msg("a6", "a5", 6, {"role": "user", "content": None, "timestamp": 6}),
        msg("a7", "a6", 7, {**openai_assistant("", 7), "content": None}),
        msg("a8", "a7", 8, {"role": "message-from-the-future", "content": "?"}),
        msg("a9", "a8", 9, {"role": "toolResult", "toolCallId": "c", "toolName": "bash", "content": None,
                            "timestamp": 9}),
        glued,
        entry("label", "b3", "b2", 12),
    ], end=b"\r\n")
    path.write_bytes(path.read_bytes().removesuffix(b"\r\n"))
    return path
