"""Chain compression, the second layer of pruning: closed user rounds older than the rolling window
collapse into one `<compressed-chain>` message between their user message and their final reply.

Flow: `detect_chains` finds the rounds of a branch, `compress_eligible` decides and persists
(`context-prune-chain` entries, kept in a `ChainRegistry`), and on every request
`apply_chain_compressions` renders the persisted decisions (phase 3 of the render pipeline).
"""

from condense.chains.backfill import deterministic_body, extract_chain_records
from condense.chains.compress import CompressResult, RangeFuser, Skipped, compress_eligible
from condense.chains.detect import (
    BranchMessages,
    ChainDetector,
    branch_messages,
    detect_chains,
    is_synthetic_chain_message,
    with_closing_message,
)
from condense.chains.model import ChainEntry, ChainRange, ChainRegistry
from condense.chains.placeholders import substitute_block_refs
from condense.chains.render import (
    ChainLayout,
    ChainPhase,
    apply_chain_compressions,
    chain_body,
    is_per_batch_summary,
    resolve_range,
    summary_overlaps_dropped,
    synthetic_chain_message,
    without_thinking,
)
from condense.chains.select import select_eligible

__all__ = [
    "BranchMessages",
    "ChainDetector",
    "ChainEntry",
    "ChainLayout",
    "ChainPhase",
    "ChainRange",
    "ChainRegistry",
    "CompressResult",
    "RangeFuser",
    "Skipped",
    "apply_chain_compressions",
    "branch_messages",
    "chain_body",
    "compress_eligible",
    "detect_chains",
    "deterministic_body",
    "extract_chain_records",
    "is_per_batch_summary",
    "is_synthetic_chain_message",
    "resolve_range",
    "select_eligible",
    "substitute_block_refs",
    "summary_overlaps_dropped",
    "synthetic_chain_message",
    "with_closing_message",
    "without_thinking",
]
