"""Phase 1: replace summarised tool results with short stubs that say where the original is.

The result message stays (same role, id, name and timestamp, `isError: false`), so the call it
answers is still answered and the model is not shown a fake failure; only its content shrinks. The
stub text depends on nothing but the record, so every render of the same session gives the same
bytes and the provider's prefix cache keeps hitting on the pruned range.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from condense.occurrence import OCCURRENCE, bare_id, message_key
from condense.records import ToolCallRecord
from condense.supersede import superseded_stub


class StubIndex(Protocol):
    def is_summarized(self, key: str) -> bool: ...
    def has_legacy_bare_record(self, bare_id: str) -> bool: ...
    def get_record(self, key: str) -> ToolCallRecord | None: ...
    def get_short_ref(self, key: str) -> str | None: ...


def summarized_stub(ref: str) -> str:
    return f"[Summarized in pruner summary, ref `{ref}`. Use context_tree_query to retrieve full output.]"


def spill_stub(record: ToolCallRecord, ref: str) -> str:
    """ARCHITECTURE decision: the design document's spill stub shape."""
    size = record.spill_bytes if record.spill_bytes is not None else "?"
    return (f"[Spilled: {record.tool_name} ({size} bytes). Head preview:\n{record.result_preview or ''}\n"
            f"Full output: {record.spill_path}. Use context_tree_query({ref}) to retrieve.]")


def lookup_key(message: dict[str, Any], index: StubIndex, key: str | None = None) -> str | None:
    """The index key this result is summarised under: its occurrence key (`key`, when known), else
    (legacy records only) its id."""
    key = message_key(message) if key is None else key
    if index.is_summarized(key):
        return key
    bare = str(message.get("toolCallId", ""))
    if index.has_legacy_bare_record(bare):
        return bare
    return None


def stub_message(message: dict[str, Any], record: ToolCallRecord, ref: str) -> dict[str, Any]:
    text = (spill_stub(record, ref) if record.spill_path else superseded_stub(record, ref) if record.superseded_by
            else summarized_stub(ref))
    stub = {
        "role": "toolResult",
        "toolCallId": message.get("toolCallId"),
        "toolName": message.get("toolName"),
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": message.get("timestamp"),
    }
    if OCCURRENCE in message:  # later phases key it as the result it stands for (dropped as the render ends)
        stub[OCCURRENCE] = message[OCCURRENCE]
    return stub


Decision = tuple[str, dict[str, Any] | None]  # (the message's own key, its stub or None to keep it)


class StubMemo:
    """Each result's decision, kept while the index and settings stay the same.

    Every request re-renders the whole history, and the same few hundred result messages (the same dict
    objects, never mutated) come back each time; only a flush or a settings change alters a decision.
    An index that lists the keys it changed (`changed_keys`) costs a flush only the decisions of those
    keys (and of results reusing their ids, for the legacy bare-id lookup); any other change of
    `version` forgets every decision."""

    def __init__(self) -> None:
        self._version: object = None
        self._decisions: dict[int, tuple[dict[str, Any], Decision]] = {}
        self._by_name: dict[str, set[int]] = {}  # own key and tool call id -> the decisions they name
        self._changes_seen = 0

    def _forget_all(self) -> None:
        self._decisions.clear()
        self._by_name.clear()

    def sync(self, version: object, changed_keys: list[str] | None, settings: object) -> None:
        """Bring the decisions up to `version`: `settings` changing forgets them all, the index changing
        forgets those its new `changed_keys` may alter."""
        if version == self._version:
            return
        previous, self._version = self._version, version
        same_settings = isinstance(previous, tuple) and previous[-1:] == (settings,)
        if changed_keys is None or not same_settings or len(changed_keys) < self._changes_seen:
            self._forget_all()
        else:
            keys = set(changed_keys[self._changes_seen:])
            for name in keys | {bare_id(key) for key in keys}:
                for ident in self._by_name.pop(name, ()):
                    self._decisions.pop(ident, None)
        self._changes_seen = len(changed_keys) if changed_keys is not None else 0

    def decision(self, message: dict[str, Any], version: object, decide: Callable[[dict[str, Any]], Decision],
                 ) -> Decision:
        if version != self._version:
            self._version = version
            self._forget_all()
        cached = self._decisions.get(id(message))
        if cached is not None and cached[0] is message:
            return cached[1]
        result = decide(message)
        self._decisions[id(message)] = (message, result)
        for name in (result[0], str(message.get("toolCallId", ""))):
            self._by_name.setdefault(name, set()).add(id(message))
        return result


def _decide(message: dict[str, Any], index: StubIndex, is_protected: Callable[[str, dict[str, Any]], bool],
            ) -> Decision:
    own = message_key(message)
    key = lookup_key(message, index, own)
    record = index.get_record(key) if key is not None else None
    if key is None or record is None or is_protected(record.tool_name, record.args):
        return own, None
    return own, stub_message(message, record, index.get_short_ref(key) or str(message.get("toolCallId")))


def replace_stubs(messages: list[Any], index: StubIndex, is_protected: Callable[[str, dict[str, Any]], bool],
                  grace_keys: set[str], memo: StubMemo | None = None, version: object = None) -> list[Any]:
    """Stub every summarised result not protected now and not inside a recovery grace window. `version`
    ends with the settings' version when `memo` may keep decisions across index changes."""
    memo = memo or StubMemo()
    if isinstance(version, tuple) and version:
        memo.sync(version, getattr(index, "changed_keys", None), version[-1])
    out: list[Any] | None = None
    for position, message in enumerate(messages):
        if message.get("role") != "toolResult":
            continue
        own, stub = memo.decision(message, version, lambda m: _decide(m, index, is_protected))
        if stub is None or own in grace_keys:
            continue
        if out is None:
            out = list(messages)
        out[position] = stub
    return messages if out is None else out
