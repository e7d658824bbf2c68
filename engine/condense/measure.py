"""How much of a conversation the model reads, in characters and estimated tokens.

Counts what a provider turns into tokens: text, thinking, tool-call arguments and tool results (and
summary texts); not JSON punctuation or ids. On the recorded corpus sessions the providers billed
about 3.0 characters per token for this code-heavy content, plus about 1,600 tokens of system prompt
and tool definitions per request.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from condense.messages import model_parts

CHARS_PER_TOKEN = 3.0
SYSTEM_TOKENS = 1600


def json_chars(value: Any) -> int:
    """Length of `value` as compact JSON (JavaScript's JSON.stringify): the unit of sizes and thresholds."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


class Sizes:
    """A size of messages remembered by their identity (a message is never mutated in place), so a
    figure over a whole branch that grew since the last time costs a lookup per message and a
    measurement per new one."""

    def __init__(self, measure: Callable[[Any], int]) -> None:
        self._measure = measure
        self._sizes: dict[int, tuple[Any, int]] = {}

    @property
    def count(self) -> int:
        return len(self._sizes)

    def of(self, value: Any) -> int:
        known = self._sizes.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        size = self._measure(value)
        self._sizes[id(value)] = (value, size)
        return size

    def total(self, values: Iterable[Any]) -> int:
        return sum(map(self.of, values))

    def forget_all_but(self, *groups: list[Any]) -> None:
        """Drop what no longer matters (renders replaced since), so memory follows the session's size."""
        self._sizes = {id(v): known for group in groups for v in group
                       if (known := self._sizes.get(id(v))) is not None and known[0] is v}


def message_chars(message: Any) -> int:
    """Characters of everything the model reads in one message."""
    return sum(len(part.text) for part in model_parts(message))


def model_chars(messages: Iterable[Any]) -> int:
    """Characters of everything the model reads in these messages."""
    return sum(map(message_chars, messages))


def estimate_from_chars(chars: int) -> int:
    return round(chars / CHARS_PER_TOKEN) + SYSTEM_TOKENS


def estimate_tokens(messages: list[Any]) -> int:
    return estimate_from_chars(model_chars(messages))
