"""The cost simulator behind `pi-tui whatif`: prompts as token segments, a prefix cache with a TTL,
prices, the baseline strategies, recovery checks and the report. Standard library and pydantic only;
the host supplies prices, the tokenizer and the contexts."""

from condense.simulate.baselines import (
    Compaction,
    ObservationMasking,
    PiCompaction,
    extractive_compaction,
    mask_placeholder,
)
from condense.simulate.cache import DEFAULT_TTL_MS, CacheRead, PrefixCache, expected_cached
from condense.simulate.pricing import CACHE_READ_FACTOR, CACHE_WRITE_FACTOR, PriceTable
from condense.simulate.prompt import CharEncoder, Encoder, Meter, Prompt, Segment, common_units, message_text
from condense.simulate.recorded import MissRate, RecordedRequest, observed_miss_rate, recorded_requests
from condense.simulate.recovery import Query, Recovery, check_recovery, returns_original
from condense.simulate.report import SessionReport, format_report
from condense.simulate.simulation import (
    Calibration,
    RequestOutcome,
    StrategyResult,
    StrategySimulation,
    calibrate,
    with_ratios,
)
from condense.simulate.strategies import (
    PRUNE_AFTER_READ,
    STRATEGIES,
    condense_config,
    unknown_strategies,
)
from condense.simulate.svg import plot_svg

__all__ = [
    "CACHE_READ_FACTOR",
    "CACHE_WRITE_FACTOR",
    "DEFAULT_TTL_MS",
    "PRUNE_AFTER_READ",
    "STRATEGIES",
    "CacheRead",
    "Calibration",
    "CharEncoder",
    "Compaction",
    "Encoder",
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
    "RequestOutcome",
    "Segment",
    "SessionReport",
    "StrategyResult",
    "StrategySimulation",
    "calibrate",
    "check_recovery",
    "common_units",
    "condense_config",
    "expected_cached",
    "extractive_compaction",
    "format_report",
    "mask_placeholder",
    "message_text",
    "observed_miss_rate",
    "plot_svg",
    "recorded_requests",
    "returns_original",
    "unknown_strategies",
    "with_ratios",
]
