"""Which closed chains to compress now: all but the K most recent ones, minus those still in grace."""

from __future__ import annotations

from collections.abc import Container, Sequence, Set

from condense.chains.model import ChainRange
from condense.occurrence import bare_id, parse_occ_key


def is_candidate(chain: ChainRange, compressed: Container[int], min_chars: int = 0) -> bool:
    """Closed, used tools, not compressed yet, and big enough (`min_chars` of calls and outputs) that its
    compressed form is smaller. Conversational rounds (no tools) and small ones have nothing worth
    compressing, so they never take a slot of the rolling window: a chain of one short read became a
    `<compressed-chain>` body twice its size, and the model lost the file it read one turn ago."""
    return (chain.closed and bool(chain.middle_tool_call_ids) and chain.middle_chars >= min_chars
            and chain.start_user_timestamp not in compressed)


def holds_graced_output(chain: ChainRange, grace_keys: Set[str]) -> bool:
    """Whether the chain holds a recovery result still in its grace window. Keys are compared as
    occurrences, so a graced output never defers a chain that merely reuses its provider id; a grace
    key without a timestamp (a legacy result) can only be compared by bare id."""
    keys = chain.lookup_keys
    if any(key in grace_keys for key in keys):
        return True
    legacy = {key for key in grace_keys if parse_occ_key(key).result_timestamp is None}
    return bool(legacy) and any(bare_id(key) in legacy for key in keys)


def select_eligible(chains: Sequence[ChainRange], compressed: Container[int], k: int,
                    grace_keys: Set[str] = frozenset(), min_chars: int = 0) -> list[ChainRange]:
    """The candidates beyond the newest `k`, oldest first (`chains` must be in branch order), then
    without those holding a graced output. The window is cut BEFORE the grace filter: a deferred
    chain must not let a newer chain slide out of the window in its place."""
    candidates = [chain for chain in chains if is_candidate(chain, compressed, min_chars)]
    beyond_window = candidates[: max(0, len(candidates) - max(0, k))]
    return [chain for chain in beyond_window if not holds_graced_output(chain, grace_keys)]
