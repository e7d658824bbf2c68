"""Whether a list only grew since it was last seen: the test each incremental part of the engine makes
before it walks only what is new (the branch's entries, the request's messages).

Messages and entries are never changed in place, so the usual answer is the very same objects with a
few more after them. Python compares lists item by item, identity first, in C: a pointer comparison per
item, where `all(map(operator.is_, ...))` costs a function call per item. An equal copy counts as the same
item, which is right for everything decided from a message's content.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def grew_from(items: Sequence[Any], earlier: Sequence[Any]) -> bool:
    """Whether `items` starts with the items of `earlier` (both lists)."""
    if len(items) == len(earlier):
        return items == earlier
    return len(items) > len(earlier) and items[: len(earlier)] == earlier
