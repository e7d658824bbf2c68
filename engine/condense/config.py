"""Every setting of the pruning engine, with its default and what it accepts.

The model is strict (TOML has real types, so `enabled = "yes"` is a mistake to report, not to coerce) and
forbids unknown keys. Two leniencies are deliberate, both inherited from the design: a fractional value
for a count is floored rather than rejected, and `0` for a budget fraction means "trigger off" (TOML has
no null, and the design treats a fraction outside `(0, 1]` as off). The host's settings loader turns each
validation error into one line and falls back to that key's default, so a bad value never costs the user
their other settings. Field descriptions are the help text of the settings overlay.
"""

from __future__ import annotations

import difflib
import json
import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, JsonValue, PlainSerializer, ValidationError


def _floor_fraction(value: Any) -> Any:
    """2.7 turns -> 2: the design floors counts silently. NaN and infinities stay as they are (and fail)."""
    if isinstance(value, float) and math.isfinite(value):
        return math.floor(value)
    return value


def _zero_is_off(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool) and value == 0:
        return None
    return value


def _off_is_zero(value: float | None) -> float:
    """Written back as 0, because a None would be dropped from TOML and the default would return."""
    return 0.0 if value is None else value


Count = Annotated[int, Field(ge=0), BeforeValidator(_floor_fraction)]
PositiveCount = Annotated[int, Field(gt=0), BeforeValidator(_floor_fraction)]
Fraction = Annotated[
    Annotated[float, Field(gt=0, le=1)] | None,
    BeforeValidator(_zero_is_off),
    PlainSerializer(_off_is_zero),
]
_FRACTION_EXPECTED: dict[str, JsonValue] = {"x-expected": "a number > 0 and <= 1, or 0 to turn the trigger off"}

PruneOn = Literal["agent-message", "on-demand"]
BatchingMode = Literal["turn", "agent-message"]
SummarizerThinking = Literal["default", "off", "minimal", "low", "medium", "high", "xhigh"]
SummarizerModel = Annotated[str, Field(pattern=r"^(default|extractive|[^/\s]+/\S+)$")]


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=True)


class ChainCompressionConfig(_Table):
    enabled: bool = Field(True, description="Compress closed conversation chains into one summary message.")
    rolling_window: Count = Field(
        0, description="How many of the most recent closed chains stay raw (0 compresses all of them)."
    )
    strip_final_assistant_thinking: bool = Field(
        True, description="Drop the thinking blocks of a compressed chain's final assistant reply."
    )
    fuse_range_summary: bool = Field(
        True, description="Fuse the per-batch summaries of a chain into one summary (one extra model call)."
    )
    min_chars: Count = Field(
        500, description="Leave a chain raw while its tool calls and outputs hold fewer characters than this"
        " (compressed, it would be no smaller)."
    )


class PurgeErrorsConfig(_Table):
    enabled: bool = Field(True, description="Shrink the arguments of failed tool calls once they cool down.")
    cooldown_turns: Count = Field(2, description="Assistant turns to wait after an error before purging.")
    min_arg_chars: Count = Field(
        500, description="Only purge arguments at least this long (JSON characters)."
    )


class CondenseConfig(_Table):
    """Every pruning setting with its default; build it with `model_validate` from snake_case or the
    design's camelCase keys. Strict, so a wrong type is reported rather than guessed at."""

    enabled: bool = Field(True, description="Master switch of context pruning (`/pruner on|off`).")
    prune_on: PruneOn = Field(
        "agent-message",
        description="When to flush: after each final agent reply, or only on `/pruner now`.",
    )
    batching_mode: BatchingMode = Field(
        "turn", description="One summary per tool-using turn, or one per user message (agent-message)."
    )
    summarizer_model: SummarizerModel = Field(
        "default",
        description='Model that writes summaries: "default" (the session\'s), "extractive" (no model), '
        'or "provider/model-id".',
        json_schema_extra={"x-expected": '"default", "extractive" or "provider/model-id"'},
    )
    summarizer_thinking: SummarizerThinking = Field(
        "default", description='Thinking level of the summarizer; "default" lets the provider choose.'
    )
    protected_tools: list[str] = Field(
        default_factory=list, description="Tool names whose outputs are never summarized or stubbed."
    )
    protected_paths: list[str] = Field(
        default_factory=lambda: ["**/skills/**/*.md"],
        description="Globs matched against a call's `path` argument; matching outputs stay verbatim.",
    )
    spill_threshold: PositiveCount = Field(
        65536, description="A single output at least this many characters long is spilled to a file."
    )
    spill_preview_bytes: Count = Field(
        2048, description="Bytes of a spilled output kept inline as a preview."
    )
    min_batch_chars: Count = Field(
        2000, description="Skip summarizing batches smaller than this many characters (0 disables)."
    )
    summary_names: Count = Field(
        20, description="Each summary ends with a line per pruned output naming up to this many of the identifiers"
        " it used most (paths, functions, types, flags), so later work can write them exactly (0 = none)."
    )
    dedup_by_content_hash: bool = Field(
        True, description="Reuse an earlier summary for a byte-identical output instead of a new model call."
    )
    recovery_grace_turns: Count = Field(
        3, description="User turns a recovered output stays verbatim before it can be pruned (0 disables)."
    )
    quiet_oversized_skips: bool = Field(
        False, description="Hide the notices about skipped oversized and duplicate batches."
    )
    summarizer_idle_timeout_ms: Count = Field(
        20000, description="Abandon a summarizer call silent for this long, in ms (0 disables)."
    )
    summarizer_max_timeout_ms: Count = Field(
        180000, description="Abandon a summarizer call running longer than this, in ms (0 disables)."
    )
    auto_budget_threshold: Fraction = Field(
        0.735,
        description="Flush when context use reaches this share of the window, at most 300k tokens (0 = off).",
        json_schema_extra=_FRACTION_EXPECTED,
    )
    budget_turn_delta: Fraction = Field(
        0.04,
        description="Flush when context use grows by this share in one turn (0 = off).",
        json_schema_extra=_FRACTION_EXPECTED,
    )
    keep_recent: Count = Field(
        1, description="Newest tool turns whose outputs a budget flush leaves as they are: the model has not"
        " read them yet (0 = flush them too); a spilled output is spilled regardless."
    )
    cold_cache_ms: Count = Field(
        300_000, description="Before a request sent this long after the previous one (or the first after a"
        " session opens), flush pending work: the provider's prompt cache has expired, so the rewrite is free"
        " (0 = off)."
    )
    fold_keep_turns: Count = Field(
        3, description="Fold everything before this many newest user messages into one block behind a ref, where"
        " a flush or a cold cache rewrites the prompt anyway (0 = never fold)."
    )
    fold_min_chars: Count = Field(
        32_000, description="Fold only when the stretch a fold would take out of view holds at least this many"
        " characters."
    )
    min_flush_chars: Count = Field(
        0, description="At a final reply, flush only once the pending tool outputs hold this many characters"
        " (0 = always); a flush rewrites the cached prompt, so it should remove enough to pay for that."
    )
    purge_summarized_args: bool = Field(
        False, description="Also shrink long argument strings (write bodies, edit texts) of calls whose output"
        " is stubbed; context_tree_query still returns them."
    )
    superseded_reads: bool = Field(
        True, description="At a flush, stub a read output whose file a later edit or write changed, or a later"
        " read showed again, with no summary of its own; context_tree_query still returns it."
    )
    index_copies: bool = Field(
        False, description="Copy each pruned output's text and arguments into its index record, and a compressed"
        " chain's dropped ids and body into its entry, as pi-condense does, so Pi with pi-condense can read them"
        " back from this session (the file grows by about the size of every pruned output); off, records keep"
        " only what the session's own entries cannot tell."
    )
    show_prune_status_line: bool = Field(True, description="Show the pruner's segment in the footer.")
    chain_compression: ChainCompressionConfig = Field(
        default_factory=ChainCompressionConfig, description="Compression of closed conversation chains."
    )
    purge_errors: PurgeErrorsConfig = Field(
        default_factory=PurgeErrorsConfig, description="Shrinking of failed tool calls' arguments."
    )


_TABLE_ERRORS = frozenset({"model_type", "model_attributes_type", "dict_type"})


def _fields_at(model: type[BaseModel] | None, path: list[str]) -> type[BaseModel] | None:
    """The sub-model (a table) that `path` names inside `model`, or None."""
    for part in path:
        field = model.model_fields.get(part) if model is not None else None
        annotation = field.annotation if field is not None else None
        model = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
    return model


def _expected(model: type[BaseModel] | None, path: list[str]) -> str | None:
    """The field's own words for what it accepts (`x-expected`), where pydantic's would show a regex."""
    table = _fields_at(model, path[:-1]) if path else None
    field = table.model_fields.get(path[-1]) if table is not None else None
    extra = field.json_schema_extra if field is not None else None
    return str(extra["x-expected"]) if isinstance(extra, dict) and "x-expected" in extra else None


def _shown(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def one_line_error(exc: ValidationError, model: type[BaseModel] | None = None) -> str:
    """The first problem of a rejected configuration as one line a user can act on, where pydantic's
    own text spans several and talks about Python types. Every place that shows a ValidationError to a
    user goes through here; `model` (the validated class) lets it name the keys a table accepts."""
    first = exc.errors()[0]
    path = [str(p) for p in first["loc"] if not str(p).startswith("_")]
    where = ".".join(path)
    if first["type"] == "extra_forbidden":
        parent = _fields_at(model, path[:-1])
        guess = difflib.get_close_matches(path[-1], list(parent.model_fields), n=1) if parent else []
        return f"unknown setting {where}" + (f" (did you mean {'.'.join([*path[:-1], guess[0]])}?)" if guess else "")
    table = _fields_at(model, path)
    if table is not None and first["type"] in _TABLE_ERRORS:
        value = first.get("input")
        fields = table.model_fields
        example = next((name for name, f in fields.items() if type(f.default) is type(value)), next(iter(fields)))
        return f"{where} is a table: set its keys, e.g. {where}.{example}={_shown(value)}"
    expected = _expected(model, path)
    if expected is None and first["type"] == "string_pattern_mismatch":
        expected = "another form"  # never the pattern: a regex tells a user nothing
    reason = f"expected {expected}" if expected else str(first["msg"]).removeprefix("Value error, ")
    reason = reason[:1].lower() + reason[1:]
    text = f"{reason} (got {_shown(first.get('input'))})"
    return f"{where}: {text}" if where else text
