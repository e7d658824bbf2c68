"""Block ids (`b1`, `b2`, ...) of compressed chains: short names the model and the user can quote."""

from __future__ import annotations

import re
from collections.abc import Iterable

_BLOCK_ID = re.compile(r"b([0-9]+)")


class BlockRefIssuer:
    def __init__(self) -> None:
        self._next = 1

    def issue(self) -> str:
        block_id = f"b{self._next}"
        self._next += 1
        return block_id

    def rebuild_from(self, ids: Iterable[str]) -> None:
        """Continue after the highest id already persisted; gaps are never refilled, so an id once
        written names one chain for the whole session."""
        numbers = [int(match[1]) for block_id in ids if (match := _BLOCK_ID.fullmatch(block_id))]
        self._next = max(numbers, default=0) + 1
