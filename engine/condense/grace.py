"""Recovery grace: a just-recovered output must not be pruned again right away.

When the model calls `context_tree_query`, the original output comes back as that call's result, which
is captured and summarised like any other tool output. Without grace the next flush would stub it and
the model would have to recover it again ("fighting the pruner"). So the recovery results of the last
K user turns are kept verbatim, keyed by their occurrence keys like everything else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from condense.occurrence import message_key
from condense.records import QUERY_TOOL


class RecoveryAges:
    """Recovery results and the user messages seen so far, fed in order (possibly in several pieces, as
    a conversation grows), so the grace set is known without walking the whole conversation again."""

    def __init__(self) -> None:
        self.users = 0
        self.fed = 0  # messages seen so far
        self._recoveries: list[tuple[int, str]] = []  # (users up to and including it, its key)

    def feed(self, messages: Sequence[dict[str, Any]]) -> None:
        self.fed += len(messages)
        for message in messages:
            role = message.get("role")
            self.users += role == "user"
            if role == "toolResult" and message.get("toolName") == QUERY_TOOL:
                self._recoveries.append((self.users, message_key(message)))

    def in_grace(self, k: int) -> set[str]:
        """Keys of the recovery results whose age (user messages after them) is at most `k`."""
        return {key for seen, key in self._recoveries if self.users - seen <= k} if k > 0 else set()
