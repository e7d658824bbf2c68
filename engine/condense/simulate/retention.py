"""Retention: when the model reaches back for something a tool told it, does the strategy still let it
see it?

Cost alone would crown whichever strategy forgets most. This measure looks at what the recorded
model actually used: in each assistant message, the identifier-like tokens (file paths, names, ids,
hashes, numbers of six characters or more) it writes for the first time, in its text or its tool
calls' arguments, that an earlier tool result holds and no earlier user or assistant text does. Such a
token came from a tool output. At the request that produced the message, each one is

- visible: the context the strategy sent holds it (anywhere: the output itself, a summary, a note);
- recoverable: it is not, but an output holding it is behind a condense ref that the context shows and
  whose query gives the output back whole;
- lost: neither.

The same three shares are kept for uses whose newest source came before the user message that opened
the turn: recall across tasks, where forgetting strategies differ most. The measure says what was in
reach, not whether a model would have found it, and it counts a use even where the recorded model
could have guessed the token again.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from condense.messages import content_parts, content_text, model_parts
from condense.names import identifiers
from condense.simulate.recovery import returns_original

Lookup = Callable[[dict[str, Any]], tuple[str, str] | None]
"""A pruned tool result -> (the ref a context would show for it, what its query answers); None when
the strategy has no ref for it."""


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a tool call's arguments, as the model wrote it (not JSON-escaped)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def said(message: dict[str, Any]) -> str:
    """What a message says in its own words: an assistant's text and call arguments (not its thinking),
    everything another role carries; a tool result says nothing here."""
    role = message.get("role")
    if role == "toolResult":
        return ""
    if role != "assistant":
        return "\n".join(part.text for part in model_parts(message))
    texts = []
    for part in content_parts(message.get("content")):
        if part.kind == "text":
            texts.append(part.text)
        elif part.kind == "toolCall":
            texts.extend(_strings(part.source.get("arguments")))
    return "\n".join(texts)


@dataclass(frozen=True)
class Use:
    """One first use of a token that came from a tool output."""

    token: str
    request: int  # the request that produced the message using it
    sources: tuple[int, ...]  # history positions of earlier tool results holding it, newest first
    earlier_turn: bool  # its newest source came before the user message that opened the turn


class _Texts:
    """A growing run of texts, searchable as one string (joined again only after it grew)."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self.starts: list[int] = []
        self.owners: list[int] = []
        self._length = 0
        self._joined: str | None = ""

    def add(self, text: str, owner: int) -> None:
        if text:
            self._parts.append(text)
            self.starts.append(self._length)
            self.owners.append(owner)
            self._length += len(text) + 1
            self._joined = None

    @property
    def text(self) -> str:
        if self._joined is None:
            self._joined = "\n".join(self._parts)
        return self._joined

    def owners_of(self, token: str) -> list[int]:
        """The owners of the parts holding `token`, oldest first."""
        text, found, at = self.text, [], 0
        while (at := text.find(token, at)) >= 0:
            part = bisect.bisect_right(self.starts, at) - 1
            found.append(self.owners[part])
            at = self.starts[part + 1] if part + 1 < len(self.starts) else len(text)
        return found


def find_uses(history: Sequence[dict[str, Any]], replies: Sequence[int]) -> list[Use]:
    """Every first use of a tool-given token; `replies[n]` is the history position of the message that
    request n produced."""
    request_of = {position: number for number, position in enumerate(replies)}
    words, outputs = _Texts(), _Texts()
    seen: set[str] = set()
    turn_start = 0
    uses: list[Use] = []
    for position, message in enumerate(history):
        role, text = message.get("role"), said(message)
        if role == "assistant" and position in request_of:
            uses += _first_uses(text, request_of[position], turn_start, seen, words, outputs)
        if role == "user":
            turn_start = position
        if role == "toolResult":
            outputs.add(content_text(message.get("content") or []), position)
        words.add(text, position)
        seen |= identifiers(text)
    return uses


def _first_uses(text: str, request: int, turn_start: int, seen: set[str], words: _Texts,
                outputs: _Texts) -> list[Use]:
    uses = []
    for token in sorted(identifiers(text) - seen):
        if token in words.text:
            continue
        sources = outputs.owners_of(token)
        if sources:
            uses.append(Use(token, request, tuple(reversed(sources)), sources[-1] < turn_start))
    return uses


@dataclass(frozen=True)
class Hidden:
    """A use its request's context did not show: recoverable or lost, and the output holding it."""

    token: str
    kind: str  # RECOVERABLE or LOST
    source: int  # history position of the tool result a model would fetch again


class Shares(BaseModel):
    """How many uses were visible, recoverable and lost, and each as a share of all (None when none)."""

    uses: int = 0
    visible: int = 0
    recoverable: int = 0
    lost: int = 0
    visible_share: float | None = None
    recoverable_share: float | None = None
    lost_share: float | None = None

    @classmethod
    def of(cls, counts: dict[str, int]) -> Shares:
        visible, recoverable, lost = (counts.get(kind, 0) for kind in (VISIBLE, RECOVERABLE, LOST))
        uses = visible + recoverable + lost
        return cls(uses=uses, visible=visible, recoverable=recoverable, lost=lost,
                   visible_share=_share(visible, uses), recoverable_share=_share(recoverable, uses),
                   lost_share=_share(lost, uses))


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


class Retention(BaseModel):
    all: Shares
    earlier_turn: Shares  # uses whose newest source came from an earlier user turn


VISIBLE, RECOVERABLE, LOST = "visible", "recoverable", "lost"


def _shows(ref: str, text: str) -> bool:
    """`ref` stands in `text` on its own (t1 is not t12)."""
    return re.search(rf"(?<!\w){re.escape(ref)}(?!\w)", text) is not None


class RetentionMeter:
    """Classifies each use at the request that produced it, from the text that request carried."""

    def __init__(self, history: Sequence[dict[str, Any]], uses: Sequence[Use]) -> None:
        self.history = history
        self._by_request: dict[int, list[Use]] = {}
        for use in uses:
            self._by_request.setdefault(use.request, []).append(use)
        self._all: dict[str, int] = {}
        self._earlier: dict[str, int] = {}

    def wants(self, request: int) -> bool:
        return request in self._by_request

    def classify(self, use: Use, context: str, lookup: Lookup | None) -> tuple[str, int | None]:
        """The use's kind, and the history position of the output a model would fetch to see it again:
        the one whose ref the context shows when it is recoverable, the newest source when it is lost."""
        if use.token in context:
            return VISIBLE, None
        if lookup is None:
            return LOST, use.sources[0]
        for position in use.sources:
            source = self.history[position]
            found = lookup(source)
            if found is not None and _shows(found[0], context) and \
                    returns_original(content_text(source.get("content") or []), found[1])[0]:
                return RECOVERABLE, position
        return LOST, use.sources[0]

    def observe(self, request: int, context: str, lookup: Lookup | None = None) -> list[Hidden]:
        """`context`: everything the model read at `request`; `lookup`: the strategy's refs, if any.
        Returns the uses the context did not show, for recovery to price."""
        hidden = []
        for use in self._by_request.get(request, ()):
            kind, source = self.classify(use, context, lookup)
            self._all[kind] = self._all.get(kind, 0) + 1
            if use.earlier_turn:
                self._earlier[kind] = self._earlier.get(kind, 0) + 1
            if source is not None:
                hidden.append(Hidden(use.token, kind, source))
        return hidden

    def result(self) -> Retention:
        return Retention(all=Shares.of(self._all), earlier_turn=Shares.of(self._earlier))
