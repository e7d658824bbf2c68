"""Turning a batch of tool calls into a summary: input text, prompts, model calls, inline refs."""

from condense.summarize.extractive import extractive_range, extractive_summary
from condense.summarize.fallback import COOLDOWN_MS, FallbackController, TargetDecision
from condense.summarize.prompts import batch_prompt, range_prompt
from condense.summarize.refs import (
    build_short_refs,
    build_summary_content,
    format_refs_footer,
    normalize_summary_refs,
    substitute_inline_refs,
)
from condense.summarize.runner import (
    Summarizer,
    SummarizerAborted,
    SummarizerConfig,
    SummaryHook,
    SummaryOutcome,
    is_usable_summary,
)
from condense.summarize.serialize import serialize_batch, window_text

__all__ = [
    "COOLDOWN_MS",
    "FallbackController",
    "Summarizer",
    "SummarizerAborted",
    "SummarizerConfig",
    "SummaryHook",
    "SummaryOutcome",
    "TargetDecision",
    "batch_prompt",
    "build_short_refs",
    "build_summary_content",
    "extractive_range",
    "extractive_summary",
    "format_refs_footer",
    "is_usable_summary",
    "normalize_summary_refs",
    "range_prompt",
    "serialize_batch",
    "substitute_inline_refs",
    "window_text",
]
