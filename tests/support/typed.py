"""Small typed helpers that let the tests read what they know is there without silencing the type checker."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

T = TypeVar("T")


def present(value: T | None) -> T:
    """`value`, which the test knows is not None (an AttributeError on None would be the failure otherwise)."""
    assert value is not None, "expected a value, got None"
    return value


def plain(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Messages read as the plain JSON dicts they are on the wire and on disk (the same objects, not copies),
    for tests that look into any message without first narrowing its role."""
    return cast(list[dict[str, Any]], list(messages))


def text_at(blocks: Sequence[Mapping[str, Any]], index: int = 0) -> str:
    """The `text` of `blocks[index]`, a block the test knows is a text block."""
    text: str = blocks[index]["text"]
    return text
