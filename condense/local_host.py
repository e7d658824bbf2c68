"""A Host that needs no agent: a linear log of Pi session entries, in memory or in a Pi-format file.

Any program that is not pi-tui (a library user, a replay, a test) needs the same few things to run the
engine: somewhere to keep the entries the engine reads back as "the branch", somewhere to put spilled
outputs, and answers for the summariser. Keeping them in one class means every such program runs the
engine the same way. The file is Pi's JSONL (version 3 header, one entry per line, appended and
flushed per entry), so `pi-tui show`, `query` and `whatif` read it like any recorded session, and
reopening the same folder continues the same conversation.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from condense.blobs import blob_dir
from condense.host import CancelSignal, CompletionEvent, ContextUsage, RecordedUI
from condense.measure import estimate_tokens, model_chars

SESSION_VERSION = 3
SUMMARIZER_MODEL = "library/summarizer"  # what the engine calls "the session model" here

SummaryFunction = Callable[[str], Awaitable[str] | str]
"""Prompt in, summary text out (sync or async). Raising makes the call fail; the batch stays pending."""

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dump_line(obj: dict[str, Any]) -> str:
    """One JSONL line as Pi's JSON.stringify writes it (lone surrogates escaped: UTF-8 cannot hold them)."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def iso_now() -> str:
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def _read_objects(path: Path) -> list[dict[str, Any]]:
    """Every JSON object line of `path`; a torn or damaged line is skipped, never fatal."""
    objects: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            objects.append(obj)
    return objects


def _path_to_leaf(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Root-to-leaf path ending at the last entry: a file someone branched (with pi-tui's `/tree`)
    continues from its newest point, as Pi does."""
    by_id = {e["id"]: e for e in entries if isinstance(e.get("id"), str)}
    path: list[dict[str, Any]] = []
    entry: dict[str, Any] | None = entries[-1] if entries else None
    seen: set[str] = set()
    while entry is not None and entry.get("id") not in seen:
        seen.add(entry.get("id", ""))
        path.append(entry)
        parent = entry.get("parentId")
        entry = by_id.get(parent) if isinstance(parent, str) else None
    return path[::-1]


class LocalHost(RecordedUI):
    """condense's Host over a linear entry log.

    `folder=None` keeps everything in memory (nothing spills: oversized outputs stay inline). With a
    folder, the newest `*.jsonl` in it is continued, or a new one is created on the first entry; spilled
    outputs go to `<folder>/<sessionId>-blobs/`. Summaries come from `summarize` (called with the
    summariser prompt); UI calls are recorded in `notices` and `status` for the caller to show."""

    def __init__(self, folder: str | os.PathLike[str] | None = None, *, summarize: SummaryFunction | None = None,
                 context_window: int = 200_000, cwd: str | os.PathLike[str] = ".") -> None:
        super().__init__()
        self.summarize = summarize
        self.context_window = context_window
        self.entries: list[dict[str, Any]] = []
        self._ids: set[str] = set()  # every id in the file, so a new one never repeats an old one
        self.render: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
        self.folder = Path(folder) if folder is not None else None
        self.path: Path | None = None
        self.header: dict[str, Any] = {"type": "session", "version": SESSION_VERSION, "id": str(uuid.uuid4()),
                                       "timestamp": iso_now(), "cwd": str(Path(cwd).resolve())}
        if self.folder is not None:
            self._open(self.folder)

    def _open(self, folder: Path) -> None:
        existing = sorted(folder.glob("*.jsonl"), key=lambda p: (p.stat().st_mtime_ns, p.name)) \
            if folder.is_dir() else []
        if not existing:
            stamp = self.header["timestamp"].replace(":", "-").replace(".", "-")
            self.path = folder / f"{stamp}_{self.header['id']}.jsonl"
            return
        self.path = existing[-1]
        objects = _read_objects(self.path)
        header = objects[0] if objects and objects[0].get("type") == "session" else None
        if header is None or not isinstance(header.get("id"), str):
            raise ValueError(f"{self.path} is not a Pi session file (no session header); "
                             "name an empty folder or one this library wrote")
        if header.get("version") != SESSION_VERSION:
            raise ValueError(f"{self.path} is a version {header.get('version', 1)} Pi session; open it once with "
                             "pi-tui (which upgrades it to version 3) or name another folder")
        self.header = header
        entries = [o for o in objects[1:] if o.get("type") != "session"]
        self._ids = {e["id"] for e in entries if isinstance(e.get("id"), str)}
        self.entries = _path_to_leaf(entries)

    # ----- the log ----------------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return str(self.header["id"])

    def append(self, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Add an entry of `kind` after the last one and write it through to the file."""
        entry_id = uuid.uuid4().hex[:8]
        while entry_id in self._ids:
            entry_id = uuid.uuid4().hex[:8]
        entry = {"type": kind, "id": entry_id, "parentId": self.entries[-1]["id"] if self.entries else None,
                 "timestamp": iso_now(), **fields}
        self._write(entry)
        self.entries.append(entry)
        self._ids.add(entry_id)
        return entry

    def _write(self, entry: dict[str, Any]) -> None:
        if self.path is None:
            return
        new = not self.path.exists()
        if new:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            data = ((dump_line(self.header) if new else "") + dump_line(entry)).encode("utf-8")
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # a torn last line must not swallow this entry
            os.write(fd, data)
        finally:
            os.close(fd)

    def append_message(self, message: dict[str, Any]) -> None:
        """A conversation message; `custom` ones become `custom_message` entries, as Pi stores them."""
        if message.get("role") == "custom":
            fields = {k: message[k] for k in ("customType", "content", "display", "details") if k in message}
            self.append("custom_message", fields)
        else:
            self.append("message", {"message": message})

    def messages(self) -> list[dict[str, Any]]:
        """The conversation as the agent holds it: message entries, and custom messages in place."""
        out: list[dict[str, Any]] = []
        for entry in self.entries:
            if entry.get("type") == "message" and isinstance(entry.get("message"), dict):
                out.append(entry["message"])
            elif entry.get("type") == "custom_message":
                out.append(custom_message_of(entry))
        return out

    # ----- the Host protocol ------------------------------------------------------------------

    def branch(self) -> list[dict[str, Any]]:
        return list(self.entries)

    def append_entry(self, custom_type: str, data: Any) -> None:
        self.append("custom", {"customType": custom_type} if data is None else
                    {"customType": custom_type, "data": data})

    async def append_custom_message(self, custom_type: str, content: str, display: bool, details: Any) -> None:
        fields: dict[str, Any] = {"customType": custom_type, "content": content, "display": display}
        if details is not None:
            fields["details"] = details
        self.append("custom_message", fields)

    def cwd(self) -> str | None:
        return str(self.header.get("cwd") or "") or None

    def blobs_dir(self) -> Path | None:
        return blob_dir(self.folder, self.session_id) if self.folder is not None else None

    def context_usage(self) -> ContextUsage | None:
        """As pi-tui's agent reckons it: the newest good reply's reported usage plus an estimate of what
        came after it. Without reported usage, an estimate of what the model reads now (after pruning,
        when a renderer is attached)."""
        messages = self.messages()
        tokens = reported_context_tokens(messages)
        if tokens is None:
            tokens = estimate_tokens(self.render(messages) if self.render is not None else messages)
        return ContextUsage(tokens, self.context_window)

    def session_model(self) -> str | None:
        return SUMMARIZER_MODEL if self.summarize is not None else None

    def has_model(self, ref: str) -> bool:
        return self.summarize is not None and ref == SUMMARIZER_MODEL

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        return self._complete(prompt)

    async def _complete(self, prompt: str) -> AsyncIterator[CompletionEvent]:
        if self.summarize is None:
            yield CompletionEvent("error", "no summariser was given", error_kind="other")
            return
        try:
            answer = self.summarize(prompt)
            text = await answer if isinstance(answer, Awaitable) else answer
        except Exception as exc:
            yield CompletionEvent("error", f"{type(exc).__name__}: {exc}", error_kind="other")
            return
        yield CompletionEvent("delta", text)
        yield CompletionEvent("done", text, stop_reason="stop")


def reported_context_tokens(messages: list[dict[str, Any]]) -> int | None:
    """Tokens of the newest good assistant reply's usage plus chars/4 of the messages after it; None when
    that reply reported no usage (or there is none since the last compaction)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == "compactionSummary":
            return None
        if message.get("role") != "assistant" or message.get("stopReason") in ("error", "aborted"):
            continue
        usage = message.get("usage") or {}
        tokens = int(usage.get("totalTokens") or 0) or sum(
            int(usage.get(k) or 0) for k in ("input", "output", "cacheRead", "cacheWrite"))
        return tokens + model_chars(messages[index + 1:]) // 4 if tokens else None
    return None


def custom_message_of(entry: dict[str, Any]) -> dict[str, Any]:
    """The `custom` message a `custom_message` entry puts into the conversation (Pi's buildSessionContext)."""
    message: dict[str, Any] = {"role": "custom", "customType": entry.get("customType", ""),
                               "content": entry.get("content", ""), "display": bool(entry.get("display")),
                               "timestamp": _iso_to_ms(entry.get("timestamp"))}
    if "details" in entry:
        message["details"] = entry["details"]
    return message


def _iso_to_ms(value: Any) -> int:
    if not isinstance(value, str):
        return 0
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return 0
