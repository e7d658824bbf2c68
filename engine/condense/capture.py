"""Capture: turning finished tool work into batches of records waiting to be summarised.

Two paths feed the same batches. The live path takes a `turn_end` event as it happens; the rescan
walks the branch, which is how work left pending by a restart, a crash or a disabled pruner is found
again. Both use the session-wide assistant-turn index, so a frontier written by one is understood
by the other (the run-local index of Pi's events broke exactly that: reference bug #16).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from condense.messages import ToolCall, content_text, tool_calls
from condense.occurrence import Occurrences, message_key, occurrence_of, result_timestamp_of
from condense.prefix import Following
from condense.records import Batch, ToolCallRecord
from condense.timefmt import iso_to_ms

NO_RESULT = "(no result)"

IsSummarized = Callable[[str], bool]
Answer = Mapping[str, Any] | None
IsProtected = Callable[[str, dict[str, Any]], bool]


def call_args(block: Mapping[str, Any]) -> dict[str, Any]:
    for key in ("input", "args", "arguments"):
        value = block.get(key)
        if isinstance(value, dict):
            return value
    return {}


def assistant_text(message: Mapping[str, Any]) -> str:
    return content_text(message.get("content") or [])


def _record(call: Mapping[str, Any], result: Mapping[str, Any] | None, turn_index: int,
            timestamp: int, occurrence: int = 1) -> ToolCallRecord:
    return ToolCallRecord(
        tool_call_id=str(call.get("id", "")),
        tool_name=str(call.get("name", "")),
        args=call_args(call),
        result_text=content_text(result.get("content") or []) if result else NO_RESULT,
        is_error=bool(result.get("isError")) if result else False,
        turn_index=turn_index,
        timestamp=timestamp,
        result_timestamp=result_timestamp_of(result.get("timestamp")) if result else None,
        result_occurrence=occurrence,
    )


def _answered(calls: list[ToolCall], results: Sequence[Mapping[str, Any]]) -> Iterator[tuple[ToolCall, Answer]]:
    """Each call with its result: the n-th call under an id takes the n-th result under it (a reply may
    repeat an id), None when it has none."""
    by_id: dict[str, list[Mapping[str, Any]]] = {}
    for result in results:
        by_id.setdefault(str(result.get("toolCallId")), []).append(result)
    taken: dict[str, int] = {}
    for call in calls:
        call_id = str(call.get("id"))
        seen = taken[call_id] = taken.get(call_id, 0) + 1
        answers = by_id.get(call_id, [])
        yield call, answers[seen - 1] if seen <= len(answers) else None


def capture_batch(message: Mapping[str, Any], results: Sequence[Mapping[str, Any]], turn_index: int,
                  timestamp: int) -> Batch:
    """The live path: one assistant message and the results that `turn_end` delivered with it (a repeated
    result numbered already, see `condense.occurrence.numbered`)."""
    records = [_record(call, result, turn_index, timestamp, occurrence_of(result) if result else 1)
               for call, result in _answered(tool_calls(message), results)]
    return Batch(turn_index, timestamp, assistant_text(message), records)


def entry_ms(entry: dict[str, Any]) -> int:
    stamp = entry.get("timestamp")
    return int(stamp) if isinstance(stamp, int | float) else iso_to_ms(stamp)


class Turn:
    """An assistant message with tool calls and the results that came for them before the next one."""

    def __init__(self, message: dict[str, Any], turn_index: int, group: int, timestamp: int) -> None:
        self.message = message
        self.turn_index = turn_index
        self.group = group
        self.timestamp = timestamp
        self.results: list[dict[str, Any]] = []  # numbered, as `condense.occurrence.numbered` numbers them

    def answered(self) -> Iterator[tuple[ToolCall, Answer]]:
        return _answered(tool_calls(self.message), self.results)

    def record(self, call: Mapping[str, Any], result: Mapping[str, Any]) -> ToolCallRecord:
        return _record(call, result, self.turn_index, self.timestamp, occurrence_of(result))


class TurnScan:
    """Assistant turns with tool calls, each with the results that arrived before the next assistant;
    kept for a branch that grows between calls, so a flush in a long session walks only the entries
    appended since the last one (any other change of the branch starts the walk over)."""

    def __init__(self) -> None:
        self._seen = Following()  # the branch as walked
        self._reset()

    def _reset(self) -> None:
        self.turns: list[Turn] = []
        self._by_message: dict[int, Turn] = {}  # by the identity of its assistant message
        self._current: Turn | None = None
        self._assistants = 0
        self._group = 0
        self._occurrences = Occurrences()

    @property
    def closed(self) -> int:
        """How many of `turns` (the first ones) can take no more results: all but an open last one."""
        return len(self.turns) - (self._current is not None)

    def of_messages(self, messages: Iterable[Any]) -> list[Turn]:
        """The turns of these messages (the branch's own message objects), in their order."""
        return [turn for message in messages if (turn := self._by_message.get(id(message))) is not None
                and turn.message is message]

    def of(self, branch: list[dict[str, Any]]) -> list[Turn]:
        held = self._seen.follow(branch)
        if not held:
            self._reset()
        self._feed(branch[held:])
        return self.turns

    def _feed(self, entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            if entry.get("type") != "message":
                continue
            message = entry.get("message") or {}
            role = message.get("role")
            if role == "user":
                self._group += 1
            elif role == "assistant":
                self._current = None
                if tool_calls(message):
                    self._current = Turn(message, self._assistants, self._group, entry_ms(entry))
                    self.turns.append(self._current)
                    self._by_message[id(message)] = self._current
                self._assistants += 1
            elif role == "toolResult":
                [numbered] = self._occurrences.number([message])
                if self._current is not None:
                    self._current.results.append(numbered)


def capture_unindexed(branch: list[dict[str, Any]], is_summarized: IsSummarized,
                      is_protected: IsProtected, from_turn: int = 0, scan: TurnScan | None = None) -> list[Batch]:
    """The rescan: every finished, unprotected, not yet summarised call on the branch, batched per turn,
    from turn `from_turn` on (a flush has nothing left to do before its frontier's turn). Records are
    only built for calls still to summarise: a long session has thousands of summarised ones. `scan`
    remembers the branch's turns from one call to the next."""
    batches: list[Batch] = []
    turns = (scan or TurnScan()).of(branch)
    for turn in turns[bisect.bisect_left(turns, from_turn, key=lambda t: t.turn_index):]:
        records = []
        for call, result in turn.answered():
            if result is None or is_summarized(message_key(result)):
                continue
            record = turn.record(call, result)
            if is_protected(record.tool_name, record.args):
                continue
            records.append(record)
        if records:
            batches.append(Batch(turn.turn_index, turn.timestamp, assistant_text(turn.message), records,
                                 turn.group))
    return batches


def branch_records(branch: list[dict[str, Any]]) -> list[ToolCallRecord]:
    """Every answered call of the branch, in order (whatever its protection or index state)."""
    return [turn.record(call, result) for turn in TurnScan().of(branch) for call, result in turn.answered()
            if result is not None]


def records_for_keys(branch: list[dict[str, Any]], keys: set[str]) -> list[ToolCallRecord]:
    """The branch's records of these occurrence keys (whatever their protection or index state); only
    these are built, so reading back a few outputs of a long session costs no text of the others."""
    return turn_records(TurnScan().of(branch), keys)


def turn_records(turns: Sequence[Turn], keys: set[str]) -> list[ToolCallRecord]:
    """`records_for_keys` among `turns` (a `TurnScan`'s, kept as the branch grows), in branch order."""
    return [turn.record(call, result) for turn in turns for call, result in turn.answered()
            if result is not None and message_key(result) in keys]


Answered = tuple[Turn, ToolCall, Mapping[str, Any]]


def answers_by_key(turns: Sequence[Turn]) -> dict[str, Answered]:
    """Every answered call of `turns` by its output's occurrence key (the later one where a key repeats,
    as `turn_records` feeds a dict): a reader asking for a few outputs at a time, once per chain of a
    long session, looks them up instead of walking every turn again."""
    return {message_key(result): (turn, call, result) for turn in turns for call, result in turn.answered()
            if result is not None}


def without_protected(batch: Batch, is_protected: IsProtected) -> Batch | None:
    kept = [r for r in batch.tool_calls if not is_protected(r.tool_name, r.args)]
    if not kept:
        return None
    return batch if len(kept) == len(batch.tool_calls) else Batch(batch.turn_index, batch.timestamp,
                                                                  batch.assistant_text, kept,
                                                                  batch.user_turn_group)


def group_batches(batches: list[Batch], mode: str) -> list[Batch]:
    """`agent-message` mode merges consecutive rescanned batches of the same user turn into one."""
    if mode != "agent-message":
        return batches
    grouped: list[Batch] = []
    for batch in batches:
        last = grouped[-1] if grouped else None
        if last is not None and batch.user_turn_group is not None and last.user_turn_group == batch.user_turn_group:
            texts = [t for t in (last.assistant_text, batch.assistant_text) if t]
            grouped[-1] = Batch(batch.turn_index, batch.timestamp, "\n\n".join(texts),
                                [*last.tool_calls, *batch.tool_calls], batch.user_turn_group)
        else:
            grouped.append(batch)
    return grouped
