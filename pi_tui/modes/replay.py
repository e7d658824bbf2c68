"""`pi-tui replay`: re-enact a recorded session turn by turn with condense active.

Recorded assistant messages and tool results are replayed in order through the same engine calls
the live agent makes (a render before every model request, `message_end`, `turn_end`), so the output
session holds the recorded conversation plus everything condense would have persisted: summaries,
index records, spill sidecars, frontier, stats. No tool runs and no main-model call is made.
"""

from __future__ import annotations

import contextlib
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from condense import BatchFilter, SummaryHook
from condense.blobs import blob_dir
from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.messages import AgentMessage, ToolResultMessage, tool_calls
from condense.record_bursts import records_of
from condense.records import FLUSH_METRICS
from pi_tui.errors import UserError
from pi_tui.modes.offline import offline_host
from pi_tui.session import atomic
from pi_tui.session.migrate import CURRENT_VERSION
from pi_tui.session.store import Session, SessionError, SessionWriteError, write_failure

PRUNER_PREFIX = "context-prune-"
_REF_FIELDS = ("firstKeptEntryId", "targetId", "fromId")

Progress = Callable[[int, int], None]
RenderHook = Callable[[list[Any], list[Any]], None]  # (messages before render, rendered) per request


@dataclass
class ReplayReport:
    entries: int
    requests: int
    flushes: int
    summaries: int


def _copy_fields(entry: dict[str, Any], id_map: dict[str, str]) -> dict[str, Any]:
    fields = {k: v for k, v in entry.items() if k not in ("type", "id", "parentId", "timestamp")}
    for key in _REF_FIELDS:
        if isinstance(fields.get(key), str) and fields[key] in id_map:
            fields[key] = id_map[fields[key]]
    return fields


def is_pruner_entry(entry: dict[str, Any]) -> bool:
    """An entry condense wrote (its records and summaries): a run under other settings writes its own."""
    return entry.get("type") in ("custom", "custom_message") and str(entry.get("customType", "")).startswith(
        PRUNER_PREFIX)


class Replayer:
    def __init__(self, source: Session, out: Session, config: CondenseConfig, context_window: int,
                 on_render: RenderHook | None = None, *, batch_filter: BatchFilter | None = None,
                 on_summary: SummaryHook | None = None) -> None:
        """`batch_filter` and `on_summary` go to the engine as they are (see `CondenseEngine`)."""
        self.source = source
        self.out = out
        self.host = offline_host(out, persist=True, context_window=context_window)
        self.engine = CondenseEngine(self.host, config, batch_filter=batch_filter, on_summary=on_summary)
        self.host.attach(self.engine)
        self.on_render = on_render
        self.requests = 0
        self.assistants = 0
        self._open_turn: tuple[AgentMessage, int, list[ToolResultMessage]] | None = None
        self._sent_at = 0  # when the next request goes out: the newest message before it, as recorded

    async def _close_turn(self) -> None:
        if self._open_turn is not None:
            message, index, results = self._open_turn
            self._open_turn = None
            await self.engine.on_turn_end(message, results, index)

    def _render(self) -> None:
        messages = self.out.messages_view()
        rendered = self.engine.render(messages)
        self.requests += 1
        if self.on_render is not None:
            self.on_render(messages, rendered)

    async def _message(self, entry: dict[str, Any], id_map: dict[str, str]) -> None:
        message = entry["message"]
        role = message.get("role")
        if role != "toolResult":
            await self._close_turn()
        if role == "assistant":
            await self.engine.before_request(self._sent_at)
            self._render()
        id_map[entry["id"]] = self.out.append("message", {"message": message}, timestamp=entry.get("timestamp"))
        stamp = message.get("timestamp")
        self._sent_at = stamp if isinstance(stamp, int) else self._sent_at
        if role == "assistant":
            index = self.assistants
            self.assistants += 1
            if tool_calls(message):
                self._open_turn = (message, index, [])
            else:
                await self.engine.on_message_end(message)
                await self.engine.on_turn_end(message, [], index)
        elif role == "toolResult" and self._open_turn is not None:
            self._open_turn[2].append(message)

    async def run(self, progress: Progress | None = None) -> ReplayReport:
        self.engine.on_session_start()
        entries = self.source.branch_entries()
        id_map: dict[str, str] = {}
        for number, entry in enumerate(entries, start=1):
            if entry.get("type") == "message":
                await self._message(entry, id_map)
            elif not is_pruner_entry(entry):
                fields = _copy_fields(entry, id_map)
                id_map[entry["id"]] = self.out.append(entry["type"], fields, timestamp=entry.get("timestamp"))
            if progress is not None:
                progress(number, len(entries))
        await self._close_turn()
        self.engine.on_agent_end()
        summaries = sum(1 for e in self.out.entries if e.get("customType") == "context-prune-summary")
        flushes = sum(1 for _ in records_of(self.out.entries, FLUSH_METRICS))
        return ReplayReport(len(entries), self.requests, flushes, summaries)


def _check_new_file(out_path: Path) -> None:
    if out_path.is_dir():
        raise SessionError(f"{out_path} is a folder; give replay the name of a new file in it with -o")
    if out_path.exists():
        raise SessionError(f"{out_path} already exists; replay never overwrites a file, choose another -o")
    if not out_path.parent.is_dir():  # like cp: a mistyped folder is an error, not a new folder
        raise SessionError(f"cannot write {out_path}: no such folder {out_path.parent}; create it first")


def _output_header(source: Session) -> dict[str, Any]:
    header = {**source.header, "version": CURRENT_VERSION, "id": str(uuid.uuid4())}
    header.pop("branchedFrom", None)
    return header


def output_session(source: Session, out_path: Path) -> Session:
    """A new session at `out_path`, written as the replay goes (a scratch file nobody else waits for)."""
    _check_new_file(out_path)
    session = Session(_output_header(source), [], out_path)
    session.flush()
    return session


class ReplayOutput:
    """OUT, written whole or not at all: the replay writes a temp file beside it, and only a finished
    replay is renamed to OUT. A failure (a full disk, an interrupt) leaves nothing behind, so the next
    try can use the same OUT."""

    def __init__(self, source: Session, out_path: Path) -> None:
        _check_new_file(out_path)
        header = _output_header(source)
        self.path = out_path
        self.temp = out_path.with_name(f".{out_path.name}.{header['id']}.tmp")
        self.session = Session(header, [], self.temp)

    @contextlib.contextmanager
    def writing(self) -> Iterator[Session]:
        """The session to replay into; OUT appears when the block ends without an error."""
        try:
            yield self.session
            self._finish()
        except (OSError, SessionError) as exc:
            self._discard()
            raise UserError(f"replay not written: {self.path}: {_reason(exc)}") from None
        except BaseException:
            self._discard()
            raise

    def _finish(self) -> None:
        self.session.flush()
        if self.session.write_error is not None:  # raised once, when writing first failed
            raise self.session.write_error
        if not atomic.create(self.temp, self.path):
            raise SessionError("it appeared while replaying; replay never overwrites a file, choose another -o")

    def _discard(self) -> None:
        with contextlib.suppress(OSError):
            self.temp.unlink()
        shutil.rmtree(blob_dir(self.path.parent, self.session.session_id), ignore_errors=True)


def _reason(exc: OSError | SessionError) -> str:
    cause = exc.__cause__ if isinstance(exc, SessionWriteError) else exc
    return write_failure(cause) if isinstance(cause, OSError) else str(exc)
