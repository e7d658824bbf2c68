"""The strings inside JSON-like values: changed in one walk that copies nothing it did not change, and
made text UTF-8 can carry.

A JavaScript string cut inside an emoji holds half of a surrogate pair, JSON writes it as `\\ud83d`, and
Python reads that back as a lone surrogate, which no UTF-8 encoder takes: a request body holding one
fails before it is sent, and so does every later request carrying the same history. Pi never meets
this, as JavaScript's encoder sends such a half as U+FFFD. So text is made valid where it enters (a
session line, a model's reply, a tool's output, a person's input): each lone surrogate becomes U+FFFD,
what the provider would have received from Pi.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a Python str holds a valid pair as one code point
REPLACEMENT = "\ufffd"
# the only way a lone surrogate gets into text read as UTF-8 with U+FFFD for invalid bytes: a JSON escape
# from `\uD800` to `\uDFFF` (most often half of a valid pair)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def valid_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (the very same object when it holds none)."""
    return LONE_SURROGATE.sub(REPLACEMENT, text) if LONE_SURROGATE.search(text) else text


def map_strings(value: T, change: Callable[[str], str]) -> T:
    """`value` with `change` applied to every string in it, keys included. What `change` leaves alone is
    returned as the very same object, so an unchanged message stays unchanged (and is never mutated)."""
    return _map(value, change)  # type: ignore[no-any-return]  # the same shape comes back


def _map(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        items = [(_map(key, change), _map(item, change)) for key, item in value.items()]
        unchanged = all(new_key is key and new is old
                        for (new_key, new), (key, old) in zip(items, value.items(), strict=True))
        return value if unchanged else dict(items)
    if isinstance(value, list):
        listed = [_map(item, change) for item in value]
        return value if all(new is old for new, old in zip(listed, value, strict=True)) else listed
    return value


def valid_json(value: T) -> T:
    """Every string in `value` made valid (see `valid_text`), the same object when none needed it."""
    return map_strings(value, valid_text)


def valid_parsed(value: T, source: str) -> T:
    """`value`, parsed from the JSON text `source`, made valid; walked only when the text holds a
    surrogate escape, so a session file of megabytes is not walked twice for nothing."""
    return valid_json(value) if _SURROGATE_ESCAPE.search(source) else value
