"""The cost simulator behind `pi-tui whatif`: prompts as token segments, Anthropic's prompt cache (and
a plain prefix cache to compare), prices, the baseline strategies, recovery checks, retention and the report.
Standard library and pydantic only; the host supplies prices, the tokenizer and the contexts."""

from condense.simulate.baselines import (
    Compaction,
    ObservationMasking,
    PiCompaction,
    extractive_compaction,
    mask_placeholder,
)
from condense.simulate.cache import (
    CACHE_MODELS,
    DEFAULT_TTL_MS,
    LONG_TTL_MS,
    LOOKBACK_BLOCKS,
    AnthropicCache,
    CacheModel,
    CacheRead,
    PrefixCache,
    min_cacheable_tokens,
)
from condense.simulate.context_editing import CLEARED_RESULT, ClearToolUses, ContextEditing
from condense.simulate.openhands_sdk import SdkCondenser
from condense.simulate.pricing import CACHE_READ_FACTOR, CACHE_WRITE_1H_FACTOR, CACHE_WRITE_FACTOR, PriceTable
from condense.simulate.prompt import CharEncoder, Encoder, Meter, Prompt, Segment, common_units, message_text
from condense.simulate.recorded import MissRate, RecordedRequest, observed_miss_rate, recorded_requests
from condense.simulate.recovery import Query, Recovery, check_recovery, returns_original
from condense.simulate.recovery_cost import CALL_TOKENS, RecoveryCost, RecoveryFigures
from condense.simulate.report import SessionReport, format_report
from condense.simulate.retention import Hidden, Lookup, Retention, RetentionMeter, Shares, Use, find_uses
from condense.simulate.server_compaction import COMPACT_TRIGGER_TOKENS, ServerCompaction, openai_compaction
from condense.simulate.simulation import (
    Calibration,
    RequestOutcome,
    StrategyResult,
    StrategySimulation,
    baseline,
    calibrate,
    with_ratios,
)
from condense.simulate.strategies import (
    ANTHROPIC_EDITS,
    CONDENSE_STRATEGIES,
    OPENHANDS_SDK,
    PRUNE_AFTER_READ,
    STICKY_EDITS,
    STRATEGIES,
    condense_config,
    condense_config_with,
    unknown_strategies,
)
from condense.simulate.summarizing_condenser import SummarizingCondenser
from condense.simulate.summary_length import MODEL_TOKENS_PER_CALL, model_summary_tokens
from condense.simulate.svg import plot_svg

__all__ = [
    "ANTHROPIC_EDITS",
    "CACHE_MODELS",
    "CACHE_READ_FACTOR",
    "CACHE_WRITE_1H_FACTOR",
    "CACHE_WRITE_FACTOR",
    "CALL_TOKENS",
    "CLEARED_RESULT",
    "COMPACT_TRIGGER_TOKENS",
    "CONDENSE_STRATEGIES",
    "DEFAULT_TTL_MS",
    "LONG_TTL_MS",
    "LOOKBACK_BLOCKS",
    "MODEL_TOKENS_PER_CALL",
    "OPENHANDS_SDK",
    "PRUNE_AFTER_READ",
    "STICKY_EDITS",
    "STRATEGIES",
    "AnthropicCache",
    "CacheModel",
    "CacheRead",
    "Calibration",
    "CharEncoder",
    "ClearToolUses",
    "Compaction",
    "ContextEditing",
    "Encoder",
    "Hidden",
    "Lookup",
    "Meter",
    "MissRate",
    "ObservationMasking",
    "PiCompaction",
    "PrefixCache",
    "PriceTable",
    "Prompt",
    "Query",
    "RecordedRequest",
    "Recovery",
    "RecoveryCost",
    "RecoveryFigures",
    "RequestOutcome",
    "Retention",
    "RetentionMeter",
    "SdkCondenser",
    "Segment",
    "ServerCompaction",
    "SessionReport",
    "Shares",
    "StrategyResult",
    "StrategySimulation",
    "SummarizingCondenser",
    "Use",
    "baseline",
    "calibrate",
    "check_recovery",
    "common_units",
    "condense_config",
    "condense_config_with",
    "extractive_compaction",
    "find_uses",
    "format_report",
    "mask_placeholder",
    "message_text",
    "min_cacheable_tokens",
    "model_summary_tokens",
    "observed_miss_rate",
    "openai_compaction",
    "plot_svg",
    "recorded_requests",
    "returns_original",
    "unknown_strategies",
    "with_ratios",
]
