"""A copy of a list its owner only grows (a host's branch, the messages of each request): the test each
incremental part of the engine makes before it walks only what is new.

Messages and entries are never changed in place, so the usual answer is the very same objects with a
few more after them. The copy takes the new items in first and then compares the two lists, which
Python does item by item, identity first, in C: a pointer comparison per item, with no reference count
touched but the new items'. An equal copy of an item counts as the same item, which is right for
everything decided from a message's content.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Following:
    """The copy of a list that only grows: `follow` tells how much of it was seen before."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def follow(self, items: Sequence[Any]) -> int:
        """Take `items` (a list) in: how many of them the copy held already when they only grew since it
        was taken, else 0, when it starts over. Either way the copy holds `items` afterwards."""
        held = len(self.items)
        if len(items) >= held:
            self.items += items[held:]
            if items == self.items:
                return held
        self.items = list(items)
        return 0
