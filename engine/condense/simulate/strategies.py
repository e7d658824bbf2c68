"""The strategies a session can be replayed under, and the condense settings behind each condense one.

Every condense strategy summarises with the extractive summariser, so a run needs no model and gives
the same numbers every time; what a model would have charged for those summaries is priced anyway.
"""

from __future__ import annotations

from typing import Any

from condense.config import CondenseConfig
from condense.simulate.context_editing import ClearToolUses
from condense.simulate.openhands_sdk import AGENT_KEEP_FIRST, AGENT_MAX_SIZE, SDK_KEEP_FIRST, SDK_MAX_SIZE

STRATEGIES: dict[str, str] = {
    "recorded": "each request as the recording agent built it (its own compactions included)",
    "none": "the full history, nothing ever removed",
    "pi-compaction": "Pi's rule: near the window, all but the last ~20k tokens become one summary",
    "masking": "the last 10 tool outputs verbatim, older ones a one-line placeholder",
    "anthropic-clear-tool-uses": "Anthropic's context edit with its defaults: over 100k input tokens, all"
                                 " but the 3 newest tool results cleared (and old thinking)",
    "anthropic-clear-at-least": "the same edit, applied only when it clears at least 5,000 tokens",
    "anthropic-clear-tool-inputs": "the same edit, clearing the calls' arguments too",
    "anthropic-clear-tool-uses-sticky": "Anthropic's edit with its defaults, read as a cut that stays put"
                                        " until the edited prompt passes the trigger again",
    "anthropic-clear-tool-inputs-sticky": "the sticky reading, clearing the calls' arguments too",
    "anthropic-compaction": "Anthropic's server-side compaction (compact_20260112) with its default trigger:"
                            " past 150k input tokens, the whole conversation becomes one summary",
    "openai-compaction": "OpenAI's Responses compaction (context_management compact_threshold at 80% of the"
                         " window): past it, the whole input becomes one compaction item",
    "openhands-condenser": "a simplified OpenHands condenser (one message = one event, 120/4, the whole"
                           " messages summarised): kept to compare with earlier figures",
    "openhands-sdk-agent": "OpenHands' default agent's condenser as the SDK runs it: past 80 events (a"
                           " call and a result one each), the first 4 and the newest 35 stay",
    "openhands-sdk": "OpenHands' LLMSummarizingCondenser with its own defaults: past 240 events, the"
                     " first 2 and the newest 117 stay",
    "every-turn": "condense flushing after every tool turn",
    "condense": "condense with its default settings",
    "condense-no-chains": "condense without chain compression",
    "condense-group-batches": "condense with one batch per user message",
    "condense-purge-args": "condense, also shrinking the long arguments of calls whose output is stubbed",
}

_CONDENSE_VARIANTS: dict[str, dict[str, Any]] = {
    # a budget threshold this small is reached on every turn_end, so every tool turn flushes
    "every-turn": {"prune_on": "agent-message", "auto_budget_threshold": 1e-9, "min_batch_chars": 0},
    "condense": {},
    "condense-no-chains": {"chain_compression": {"enabled": False}},
    "condense-group-batches": {"batching_mode": "agent-message"},
    "condense-purge-args": {"purge_summarized_args": True},
}

CONDENSE_STRATEGIES = frozenset(_CONDENSE_VARIANTS)

OPENHANDS_SDK: dict[str, tuple[int, int]] = {  # max_size, keep_first
    "openhands-sdk-agent": (AGENT_MAX_SIZE, AGENT_KEEP_FIRST),
    "openhands-sdk": (SDK_MAX_SIZE, SDK_KEEP_FIRST),
}

ANTHROPIC_EDITS: dict[str, ClearToolUses] = {
    "anthropic-clear-tool-uses": ClearToolUses(),
    "anthropic-clear-at-least": ClearToolUses(clear_at_least=5_000),
    "anthropic-clear-tool-inputs": ClearToolUses(clear_tool_inputs=True),
    "anthropic-clear-tool-uses-sticky": ClearToolUses(),
    "anthropic-clear-tool-inputs-sticky": ClearToolUses(clear_tool_inputs=True),
}
STICKY_EDITS = frozenset({"anthropic-clear-tool-uses-sticky", "anthropic-clear-tool-inputs-sticky"})

# A turn_end flush runs after the turn's results arrived but before the next request, so it would
# summarise outputs the model never read, and no cached prefix would ever be rewritten. Per-turn
# pruning as the design describes it (and warns about) prunes a turn's outputs once the model has
# read them: these strategies flush only batches of turns whose results an earlier request carried.
PRUNE_AFTER_READ = frozenset({"every-turn"})


def unknown_strategies(names: list[str]) -> list[str]:
    return [name for name in names if name not in STRATEGIES]


def condense_config(name: str, base: CondenseConfig | None = None) -> CondenseConfig:
    """The settings of a condense strategy: `base` (default: the defaults), extractive summaries, the
    variant's changes."""
    return condense_config_with(_CONDENSE_VARIANTS[name], base)


def condense_config_with(changes: dict[str, Any], base: CondenseConfig | None = None) -> CondenseConfig:
    """`base` (default: the defaults) with extractive summaries, and `changes` (a nested table merges key
    by key)."""
    data = {**(base or CondenseConfig()).model_dump(), "summarizer_model": "extractive"}
    for key, value in changes.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) else value
    return CondenseConfig.model_validate(data)
