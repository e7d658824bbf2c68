"""`pi-tui replay`: re-enact a recorded session turn by turn with condense active.

Recorded assistant messages and tool results are replayed in order through the same engine calls
the live agent makes (a render before every model request, `message_end`, `turn_end`), so the output
session holds the recorded conversation plus everything condense would have persisted: summaries,
index records, spill sidecars, frontier, stats. No tool runs and no main-model call is made.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from condense import BatchFilter, SummaryHook
from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.messages import tool_calls
from pi_tui.offline import SessionHost
from pi_tui.session.migrate import CURRENT_VERSION
from pi_tui.session.store import Session, SessionError

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


def _is_pruner_entry(entry: dict[str, Any]) -> bool:
    return entry.get("type") in ("custom", "custom_message") and str(entry.get("customType", "")).startswith(
        PRUNER_PREFIX)


class Replayer:
    def __init__(self, source: Session, out: Session, config: CondenseConfig, context_window: int,
                 on_render: RenderHook | None = None, *, batch_filter: BatchFilter | None = None,
                 on_summary: SummaryHook | None = None) -> None:
        """`batch_filter` and `on_summary` go to the engine as they are (see `CondenseEngine`)."""
        self.source = source
        self.out = out
        self.host = SessionHost(out, persist=True, context_window=context_window)
        self.engine = CondenseEngine(self.host, config, batch_filter=batch_filter, on_summary=on_summary)
        self.host.engine = self.engine
        self.on_render = on_render
        self.requests = 0
        self.assistants = 0
        self._open_turn: tuple[dict[str, Any], int, list[dict[str, Any]]] | None = None

    async def _close_turn(self) -> None:
        if self._open_turn is not None:
            message, index, results = self._open_turn
            self._open_turn = None
            await self.engine.on_turn_end(message, results, index)

    def _render(self) -> None:
        messages = self.out.messages()
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
            self._render()
        id_map[entry["id"]] = self.out.append("message", {"message": message}, timestamp=entry.get("timestamp"))
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
            elif not _is_pruner_entry(entry):
                fields = _copy_fields(entry, id_map)
                id_map[entry["id"]] = self.out.append(entry["type"], fields, timestamp=entry.get("timestamp"))
            if progress is not None:
                progress(number, len(entries))
        await self._close_turn()
        self.engine.on_agent_end()
        summaries = sum(1 for e in self.out.entries if e.get("customType") == "context-prune-summary")
        flushes = sum(1 for e in self.out.entries if e.get("customType") == "context-prune-flush-metrics")
        return ReplayReport(len(entries), self.requests, flushes, summaries)


def output_session(source: Session, out_path: Path) -> Session:
    if out_path.exists():
        raise SessionError(f"{out_path} already exists; replay never overwrites a file, choose another -o")
    if not out_path.parent.is_dir():  # like cp: a mistyped folder is an error, not a new folder
        raise SessionError(f"cannot write {out_path}: no such folder {out_path.parent}; create it first")
    header = {**source.header, "version": CURRENT_VERSION, "id": str(uuid.uuid4())}
    header.pop("branchedFrom", None)
    session = Session(header, [], out_path)
    session.flush()
    return session
