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


def in_grace_recovery_keys(messages: Sequence[dict[str, Any]], k: int) -> set[str]:
    """Keys of the recovery results whose age (user messages after them) is at most `k`; none when k <= 0."""
    if k <= 0:
        return set()
    users_total = sum(1 for message in messages if message.get("role") == "user")
    users_so_far = 0
    keys: set[str] = set()
    for message in messages:
        users_so_far += message.get("role") == "user"
        is_recovery = message.get("role") == "toolResult" and message.get("toolName") == QUERY_TOOL
        if is_recovery and users_total - users_so_far <= k:  # age: user messages after it
            keys.add(message_key(message))
    return keys
