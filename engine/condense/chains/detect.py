"""Finding the closed chains of a branch: user -> (tool-using turns and their results)* -> text reply.

Only the three conversational roles move the walk. Every other message (custom messages from
condense or from other extensions, bash executions, branch and compaction summaries) neither opens,
closes nor interrupts a chain; it simply sits inside whichever range surrounds it, and the renderer
never drops such messages. (pi-condense 2.10.0 later let other extensions' custom messages open a
chain; no scenario pins that, and a non-user start could not be resolved by the role-gated renderer,
so we keep the 2.9.1 rule.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from condense.capture import call_args
from condense.chains.model import ChainRange
from condense.chains.render import Boundaries
from condense.grace import RecoveryAges
from condense.measure import message_chars
from condense.messages import tool_calls
from condense.occurrence import Occurrences, message_key, result_timestamp_of
from condense.prefix import Following

IsProtected = Callable[[str, dict[str, Any]], bool]

SYNTHETIC_PREFIX = "<compressed-chain"


def is_synthetic_chain_message(message: dict[str, Any]) -> bool:
    """The `<compressed-chain>` user message that phase 3 inserts: a rendering, never a chain start."""
    content = message.get("content")
    if isinstance(content, str):
        return content.lstrip().startswith(SYNTHETIC_PREFIX)
    if not isinstance(content, list) or not content or not isinstance(content[0], dict):
        return False
    text = content[0].get("text")
    return content[0].get("type") == "text" and isinstance(text, str) and text.lstrip().startswith(SYNTHETIC_PREFIX)


class _OpenChain:
    def __init__(self, start: int, is_protected: IsProtected | None) -> None:
        self.start = start
        self.is_protected = is_protected
        self.ids: dict[str, None] = {}  # ordered sets
        self.keys: dict[str, None] = {}
        self.protected: dict[str, None] = {}
        self.args: dict[str, dict[str, Any]] = {}  # a result is protected by its call's arguments
        self.chars = 0  # of the tool-calling turns and their outputs, as the model reads them

    def add_call(self, call: Mapping[str, Any]) -> None:
        call_id, name = call.get("id"), call.get("name")
        if not isinstance(call_id, str) or not call_id:
            return
        args = call_args(call)
        self.args[call_id] = args
        self._add(call_id, str(name or ""), args)

    def add_result(self, message: dict[str, Any]) -> None:
        call_id = message.get("toolCallId")
        if not isinstance(call_id, str) or not call_id:
            return
        self.keys[message_key(message)] = None
        self._add(call_id, str(message.get("toolName") or ""), self.args.get(call_id, {}))

    def _add(self, call_id: str, name: str, args: dict[str, Any]) -> None:
        self.ids[call_id] = None
        if self.is_protected is not None and self.is_protected(name, args):
            self.protected[call_id] = None

    def range(self, final: int | None) -> ChainRange:
        return ChainRange(self.start, final, tuple(self.ids), tuple(self.keys), tuple(self.protected), self.chars)


def detect_chains(messages: Sequence[dict[str, Any]],
                  is_protected: IsProtected | None = None) -> list[ChainRange]:
    """Every chain of `messages`, oldest first. A chain cut short by the next user message is
    reported with no final timestamp; the chain still open at the end is not reported at all."""
    chains: list[ChainRange] = []
    current: _OpenChain | None = None
    for message in messages:
        role = message.get("role")
        if role == "user":
            if is_synthetic_chain_message(message):
                continue
            if current is not None:
                chains.append(current.range(None))
            start = result_timestamp_of(message.get("timestamp"))
            current = _OpenChain(start, is_protected) if start is not None else None
        elif current is None:
            continue
        elif role == "toolResult":
            current.add_result(message)
            current.chars += message_chars(message)
        elif role == "assistant" and tool_calls(message):
            for call in tool_calls(message):
                current.add_call(call)
            current.chars += message_chars(message)
        elif role == "assistant":
            chains.append(current.range(result_timestamp_of(message.get("timestamp"))))
            current = None
    return chains


class ChainDetector:
    """`detect_chains` for a branch that grows between calls. A non-synthetic user message resets the
    walk, so the chains before the last one never change while earlier messages stay the same: they are
    kept, and only the messages from the last user message they reached on are walked again."""

    def __init__(self) -> None:
        self._key: object = None
        self._seen = Following()  # the messages of the last call
        self._last_user: int | None = None  # where the last user message that starts a walk is in them
        self._chains: list[ChainRange] = []  # detect_chains of the messages up to it

    def detect(self, messages: Sequence[dict[str, Any]], is_protected: IsProtected | None, key: object,
               ) -> list[ChainRange]:
        """`detect_chains(messages, is_protected)`; `key` changes whenever `is_protected` may answer
        differently."""
        held = self._seen.follow(messages)
        if key != self._key or not held:
            held, self._key, self._last_user, self._chains = 0, key, None, []
        last_user = next((p for p in range(len(messages) - 1, held - 1, -1) if _starts_walk(messages[p])),
                         self._last_user)
        if last_user is None:
            return detect_chains(messages, is_protected)
        if last_user != self._last_user:
            self._chains = self._chains + detect_chains(messages[self._last_user or 0 : last_user + 1], is_protected)
            self._last_user = last_user
        return self._chains + detect_chains(messages[last_user:], is_protected)


def _starts_walk(message: dict[str, Any]) -> bool:
    return message.get("role") == "user" and not is_synthetic_chain_message(message)


def with_closing_message(messages: list[Any], closing: Mapping[str, Any] | None) -> list[Any]:
    """`messages` with the reply that triggered a flush appended, unless it is already the last one.

    Pi tells extensions about a finished message before it saves it, so a flush run from
    `message_end` reads a branch without the reply that just closed the newest chain; without it
    that chain would look open and the rolling window would keep K+1 chains raw. Identity is role
    and timestamp (messages have no id), so a host that saves first makes this a no-op.
    """
    if closing is None:
        return messages
    last = messages[-1] if messages else None
    if last is not None and all(last.get(key) == closing.get(key) for key in ("role", "timestamp")):
        return messages
    return [*messages, closing]


class BranchMessages:
    """`branch_messages` of a branch that grows between flushes, with its grace ages and boundary
    tables: only the entries appended since the last call are read (any other change starts over)."""

    def __init__(self) -> None:
        self._seen = Following()  # the branch's entries as read
        self._reset()

    def _reset(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.ages = RecoveryAges()
        self.boundaries = Boundaries()
        self._occurrences = Occurrences()  # a repeated result is read through its numbered copy

    def of(self, branch_entries: list[dict[str, Any]]) -> BranchMessages:
        held = self._seen.follow(branch_entries)
        if not held:
            self._reset()
        new = self._occurrences.number(branch_messages(branch_entries[held:]))
        self.messages += new
        self.ages.feed(new)
        self.boundaries.extend(new)
        return self


def branch_messages(branch_entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages of a branch's `message` entries, in order: what detection and backfill walk."""
    return [
        entry["message"]
        for entry in branch_entries
        if entry.get("type") == "message" and isinstance(entry.get("message"), dict)
    ]
