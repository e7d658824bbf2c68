"""`pi-tui whatif`: what a recorded session would have cost under each pruning strategy.

Every recorded assistant message stands for one model request. For each strategy the context of each
of those requests is rebuilt (condense strategies through `pi-tui replay`'s machinery, into a
throw-away session file), turned into exactly what the provider would read (`convert_to_llm` and the
provider transform for the model that answered), measured with one tokenizer for all strategies, and
priced by `condense.simulate`'s cache model (Anthropic's rule by default). This module is the host
side: it owns litellm (prices, tokenizer) and the session; the arithmetic lives in the engine package.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condense import BatchFilter
from condense.config import CondenseConfig
from condense.simulate import (
    ANTHROPIC_EDITS,
    CACHE_MODELS,
    CONDENSE_STRATEGIES,
    DEFAULT_TTL_MS,
    LONG_TTL_MS,
    PRUNE_AFTER_READ,
    STRATEGIES,
    CacheModel,
    Calibration,
    CharEncoder,
    Compaction,
    ContextEditing,
    Encoder,
    Meter,
    MissRate,
    ObservationMasking,
    PiCompaction,
    PriceTable,
    Query,
    RecordedRequest,
    Recovery,
    SessionReport,
    StrategyResult,
    StrategySimulation,
    SummarizingCondenser,
    baseline,
    calibrate,
    check_recovery,
    condense_config,
    condense_config_with,
    model_summary_tokens,
    observed_miss_rate,
    recorded_requests,
    unknown_strategies,
    with_ratios,
)
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.litellm_client import _litellm
from pi_tui.ai.transform import transform_messages
from pi_tui.ai.types import ModelSpec
from pi_tui.errors import UserError
from pi_tui.modes.replay import PRUNER_PREFIX, Replayer, output_session
from pi_tui.session.context import SessionContext, build_context, entry_message, extend_context
from pi_tui.session.store import Session

PRICING_MODELS = ("claude-opus-4-5", "claude-sonnet-4-5", "gpt-5.1-codex")
TOKENIZER_MODEL = "claude-sonnet-4-5"  # one tokenizer for every strategy and session
DEFAULT_WINDOW = 200_000
FALLBACK_PRICING = "claude-sonnet-4-5"

Progress = Callable[[str], None]


# ----- prices, window and tokenizer from litellm (imported on first use, by the client's importer) -----

def _model_entry(model: str) -> dict[str, Any] | None:
    entry = _litellm().model_cost.get(model)
    return entry if isinstance(entry, dict) and entry.get("input_cost_per_token") else None


def price_table(model: str) -> PriceTable:
    """litellm's prices for `model`. A map that has a cache-read price but no cache-write price is an
    OpenAI-style automatic cache, which bills uncached tokens at the plain input price."""
    entry = _model_entry(model)
    if entry is None:
        raise UserError(f"--pricing {model}: litellm's price map does not know this model")
    input_price = float(entry["input_cost_per_token"])
    read = entry.get("cache_read_input_token_cost")
    write = entry.get("cache_creation_input_token_cost")
    if write is None and read is not None:
        write = input_price
    output_price = float(entry.get("output_cost_per_token") or 0.0)
    return PriceTable.from_prices(model, input_price, output_price, None if read is None else float(read),
                                  None if write is None else float(write))


@dataclass
class Pricing:
    """Each request priced with the table of the model that answered it, unless one is forced; with
    1-hour cache entries, writes cost what Anthropic charges for those."""

    forced: PriceTable | None = None
    one_hour: bool = False
    tables: dict[str, PriceTable] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.forced is not None and self.one_hour:
            self.forced = self.forced.with_one_hour_writes()

    def for_model(self, model: str) -> PriceTable:
        if self.forced is not None:
            return self.forced
        table = self.tables.get(model)
        if table is None:
            known = _model_entry(model) is not None
            table = price_table(model if known else FALLBACK_PRICING)
            if not known:
                self.notes.append(f"no litellm prices for {model or '(unknown model)'}:"
                                  f" priced as {FALLBACK_PRICING}")
            self.tables[model] = table.with_one_hour_writes() if self.one_hour else table
        return self.tables[model]

    def describe(self) -> str:
        if self.forced is not None:
            return f"{self.forced.name} (forced)"
        return ", ".join(sorted({t.name for t in self.tables.values()})) + " (the model that answered)"


def context_window(model: str) -> int:
    """The model's input window, the one figure every strategy must fit in."""
    entry = _model_entry(model) or {}
    return int(entry.get("max_input_tokens") or DEFAULT_WINDOW)


class LitellmEncoder:
    """litellm's tokenizer for a fixed model (its bundled Anthropic tokenizer for Claude models)."""

    units_per_token = 1.0

    def __init__(self, model: str = TOKENIZER_MODEL) -> None:
        litellm = _litellm()
        self._encode = litellm.encode
        self._tokenizer = litellm.utils.select_tokenizer(model=model)
        self.name = f"litellm.encode, {model} tokenizer ({self._tokenizer['type']})"

    def encode(self, text: str) -> Sequence[Any]:
        return self._encode(text=text, custom_tokenizer=self._tokenizer)


def default_encoder() -> Encoder:
    try:
        return LitellmEncoder()
    except Exception:  # no usable tokenizer offline: a deterministic estimate, named in the output
        return CharEncoder()


# ----- the recorded session ------------------------------------------------------------------------

def _is_pruner_entry(entry: dict[str, Any]) -> bool:
    return str(entry.get("customType", "")).startswith(PRUNER_PREFIX)


def without_compactions(session: Session) -> Session:
    """The session's branch with its compaction entries taken out, in memory only. Strategies that
    prune by other means start from the full history: the recording's compactions were Pi's answer
    to a context those strategies never build (`pi-compaction` simulates that answer on its own)."""
    entries: list[dict[str, Any]] = []
    parent: str | None = None
    for entry in session.branch_entries():
        if entry.get("type") == "compaction":
            continue
        entries.append(entry if entry.get("parentId") == parent else {**entry, "parentId": parent})
        parent = entry.get("id")
    return Session(dict(session.header), entries, None)


@dataclass
class Recording:
    """The session's branch, its messages with nothing removed, and one RecordedRequest per request."""

    session: Session
    branch: list[dict[str, Any]]
    history: list[dict[str, Any]] = field(init=False)
    requests: list[RecordedRequest] = field(init=False)
    before: list[int] = field(init=False)  # per request: how many history messages precede it
    entry_at: list[int] = field(init=False)  # per request: its entry's position in the branch
    specs: list[ModelSpec] = field(init=False)

    def __post_init__(self) -> None:
        self.history, self.before, self.entry_at, self.specs = [], [], [], []
        for position, entry in enumerate(self.branch):
            message = entry_message(entry) if not _is_pruner_entry(entry) else None
            if message is None:
                continue
            if message.get("role") == "assistant":
                self.before.append(len(self.history))
                self.entry_at.append(position)
                self.specs.append(ModelSpec(provider=str(message.get("provider", "")),
                                            id=str(message.get("model", "")),
                                            api=str(message.get("api", "openai-completions"))))
            self.history.append(message)  # type: ignore[arg-type]
        self.requests = recorded_requests(self.history)

    @property
    def main_model(self) -> str:
        billed = [r.model for r in self.requests if r.billed]
        return max(set(billed), key=billed.count) if billed else FALLBACK_PRICING


# ----- running one strategy ------------------------------------------------------------------------

@dataclass
class _Run:
    """Prices the requests of one strategy as they are produced."""

    recording: Recording
    meter: Meter
    pricing: Pricing
    sim: StrategySimulation
    sent: int = 0
    edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None  # the provider's, server-side

    def request(self, number: int, context: list[dict[str, Any]]) -> None:
        recorded = self.recording.requests[number]
        self.sent = number + 1
        if not recorded.billed:
            return
        llm = self.provider_view(context, number)
        self.sim.request(self.meter.prompt(llm), recorded, self.pricing.for_model(recorded.model))  # type: ignore[arg-type]

    def provider_view(self, context: list[dict[str, Any]], number: int) -> list[dict[str, Any]]:
        """What the model reads of `context`: converted, transformed for the model, edited server-side."""
        llm = transform_messages(convert_to_llm(context), self.recording.specs[number])  # type: ignore[arg-type]
        return llm if self.edit is None else self.edit(llm)  # type: ignore[arg-type]

    def summariser_call(self, prompt: str | list[dict[str, Any]], output: str, time_ms: int) -> None:
        """Priced at the length a model writes, not the extractive text's (see `summary_length`)."""
        current = self.recording.requests[max(0, self.sent - 1)]
        meter = self.meter
        asked = meter.text_prompt(prompt) if isinstance(prompt, str) else meter.prompt(prompt, system=False)
        written = model_summary_tokens(prompt, meter.text_tokens(output)) if isinstance(prompt, str) \
            else meter.text_tokens(output)
        self.sim.summariser_call(asked, written, time_ms, self.pricing.for_model(current.model))


def _run_recorded(run: _Run) -> Recovery:
    """Each request carries the context of the branch before it, grown entry by entry (rebuilt only at
    a compaction), so the whole run is linear in the session's length."""
    branch = run.recording.branch
    context, built = SessionContext(), 0
    for number, position in enumerate(run.recording.entry_at):
        for end in range(built + 1, position + 1):
            if not extend_context(context, branch[end - 1]):
                context = build_context(branch[:end])
        built = position
        run.request(number, list(context.messages))  # type: ignore[arg-type]
    final = build_context(branch).messages
    return check_recovery(run.recording.history, final, None)  # type: ignore[arg-type]


def _run_none(run: _Run) -> Recovery:
    history = run.recording.history
    for number, before in enumerate(run.recording.before):
        run.request(number, history[:before])
    return check_recovery(history, history, None)


def _run_masking(run: _Run) -> Recovery:
    history, masking = run.recording.history, ObservationMasking()
    for number, before in enumerate(run.recording.before):
        run.request(number, masking.apply(history[:before]))
    return check_recovery(history, masking.apply(history), None)


def _run_summarising(run: _Run, summariser: PiCompaction | SummarizingCondenser) -> Recovery:
    """A strategy that folds old history into one summary before a request when its rule says so."""
    history = run.recording.history
    for number, before in enumerate(run.recording.before):
        time_ms = run.recording.requests[number].time_ms
        done: Compaction | None = summariser.maybe_compact(history[:before], time_ms)
        if done is not None:
            run.summariser_call(done.folded, done.summary, time_ms)
        run.request(number, summariser.context(history[:before]))
    return check_recovery(history, summariser.context(history), None)


def _run_context_edit(run: _Run, editing: ContextEditing) -> Recovery:
    """The full history every time, edited by the provider: nothing it clears can be asked back."""
    history = run.recording.history
    run.edit = editing.apply
    for number, before in enumerate(run.recording.before):
        run.request(number, history[:before])
    final = run.provider_view(history, len(run.recording.before) - 1) if run.recording.before else history
    return check_recovery(history, final, None)


def _latest_time(session: Session) -> int:
    for entry in reversed(session.entries):
        message = entry.get("message")
        if isinstance(message, dict) and isinstance(message.get("timestamp"), int):
            return message["timestamp"]
    return 0


def _read_turns_only(run: _Run) -> BatchFilter:
    """Keeps batches whose results no request has carried yet out of every flush (see
    `PRUNE_AFTER_READ`): when request k is sent, the model has read the turns before k."""
    return lambda batch: batch.turn_index < run.sent - 1


def _run_condense(run: _Run, config: CondenseConfig, window: int, after_read: bool = False) -> Recovery:
    source = without_compactions(run.recording.session)
    with tempfile.TemporaryDirectory(prefix="pi-tui-whatif-") as folder:
        out = output_session(source, Path(folder) / "replay.jsonl")
        counter = iter(range(len(run.recording.requests)))
        # every summary condense asks for is reported with the prompt a model would have been sent (the
        # extractive summariser builds that prompt only to be priced)
        replayer = Replayer(source, out, config, window,
                            on_render=lambda _before, rendered: run.request(next(counter), rendered),
                            batch_filter=_read_turns_only(run) if after_read else None,
                            on_summary=lambda asked, text: run.summariser_call(asked, text, _latest_time(out)))
        asyncio.run(replayer.run())
        engine = replayer.engine
        final = engine.render(out.messages())
        query: Query = lambda key: engine.query([key])[0]  # noqa: E731
        return check_recovery(run.recording.history, final, query)  # spill sidecars still exist here


# ----- the whole comparison ------------------------------------------------------------------------

@dataclass
class WhatifOptions:
    strategies: list[str]
    pricing: str | None = None
    ttl_ms: int = DEFAULT_TTL_MS
    cache_model: CacheModel = "anthropic"
    # more condense strategies, by name: settings changed from the defaults (benchmarks/sweep.py)
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)
    condense: CondenseConfig = field(default_factory=CondenseConfig)  # what each condense variant starts from


def parse_ttl(text: str) -> int | None:
    """`5m`, `1h` or a bare number of minutes, in ms; None when it is not a positive duration."""
    text = text.strip()
    unit = {"m": 60_000, "h": 3_600_000}.get(text[-1:].lower())
    try:
        value = float(text[:-1] if unit else text) * (unit or 60_000)
    except ValueError:
        return None
    return round(value) if math.isfinite(value) and value > 0 else None


def whatif_options(strategies: list[str] | None, pricing: str | None, ttl: str,
                   cache_model: str = "anthropic", condense: CondenseConfig | None = None) -> WhatifOptions:
    """The command line's choices, checked: strategy names (comma-separated, default all), a pricing
    model, a cache model and a cache lifetime it offers (Anthropic: 5 minutes or 1 hour); `condense` is
    `offline_condense_config`'s."""
    names = [name for arg in strategies or [] for name in arg.split(",") if name] or list(STRATEGIES)
    unknown = unknown_strategies(names)
    if unknown:
        raise UserError(f"--strategies: unknown {', '.join(unknown)}; choose from {', '.join(STRATEGIES)}")
    if pricing is not None and pricing not in PRICING_MODELS:
        raise UserError(f"--pricing {pricing}: choose one of {', '.join(PRICING_MODELS)}")
    if cache_model not in CACHE_MODELS:
        raise UserError(f"--cache-model {cache_model}: choose one of {', '.join(CACHE_MODELS)}")
    ttl_ms = parse_ttl(ttl)
    if ttl_ms is None:
        raise UserError(f"--cache-ttl {ttl}: give a duration such as 5m or 1h")
    if cache_model == "anthropic" and ttl_ms not in (DEFAULT_TTL_MS, LONG_TTL_MS):
        raise UserError(f"--cache-ttl {ttl}: Anthropic's cache lives 5m or 1h (--cache-model prefix takes any)")
    return WhatifOptions(list(dict.fromkeys(names)), pricing, ttl_ms, cache_model,  # type: ignore[arg-type]
                         condense=condense or CondenseConfig())


def _window_notes(results: list[StrategyResult], window: int) -> list[str]:
    return [f"{r.name}: cannot run: its peak context ({r.peak_context_tokens:,.0f} tokens) is over the"
            f" {window:,}-token window" for r in results if not r.can_run]


def _pricing(options: WhatifOptions) -> Pricing:
    """The price tables the options ask for; an hour-long cache is written at its own price."""
    return Pricing(price_table(options.pricing) if options.pricing else None, options.ttl_ms >= LONG_TTL_MS)


@dataclass
class _Strategies:
    """What one process needs to run strategies of one session, built once per process: the recording,
    and a meter whose tokenised texts are shared by the strategies that process runs."""

    recording: Recording
    options: WhatifOptions
    window: int
    meter: Meter
    miss: MissRate

    def run(self, name: str) -> tuple[StrategyResult, Calibration | None, Pricing]:
        pricing = _pricing(self.options)
        sim = StrategySimulation(name, self.meter.units_per_token, self.miss.rate, self.options.ttl_ms,
                                 self.options.cache_model)
        run = _Run(self.recording, self.meter, pricing, sim)
        recovery = _dispatch(name, run, self.window, self.options)
        calibration = calibrate(run.sim.outcomes, self.recording.requests, self.miss) if name == "recorded" else None
        self.meter.forget_messages()
        return run.sim.result(recovery), calibration, pricing


_worker: _Strategies | None = None  # a worker process's own, set up by `_start_worker`


def _start_worker(strategies: _Strategies) -> None:
    global _worker
    _worker = strategies


def _run_in_worker(name: str) -> tuple[StrategyResult, Calibration | None, Pricing]:
    assert _worker is not None
    return _worker.run(name)


def _workers(strategies: int) -> int:
    """Processes worth starting: one per strategy, at most one per core this process may use."""
    return max(1, min(strategies, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                      else os.cpu_count() or 1))


def _run_strategies(strategies: _Strategies, progress: Progress | None,
                    ) -> list[tuple[StrategyResult, Calibration | None, Pricing]]:
    """Every strategy's outcome, in the order asked. Strategies are independent, so they run in
    parallel processes where there are cores for them (forked: each starts from this process's
    recording and tokeniser); otherwise one after the other here."""
    names = strategies.options.strategies
    workers = _workers(len(names))
    if workers == 1 or not hasattr(os, "fork"):
        outcomes = []
        for name in names:
            if progress is not None:
                progress(name)
            outcomes.append(strategies.run(name))
        return outcomes
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                             initargs=(strategies,)) as pool:
        futures = [pool.submit(_run_in_worker, name) for name in names]
        for name in names:
            if progress is not None:
                progress(name)
        return [future.result() for future in futures]


def run_whatif(session: Session, options: WhatifOptions, encoder: Encoder | None = None,
               progress: Progress | None = None) -> SessionReport:
    recording = Recording(session, session.branch_entries())
    if not any(r.billed for r in recording.requests):
        raise UserError(f"{session.path}: no model request with recorded usage to replay")
    window = context_window(recording.main_model)
    meter = Meter(encoder or default_encoder())
    miss = observed_miss_rate(recording.requests)
    outcomes = _run_strategies(_Strategies(recording, options, window, meter, miss), progress)
    pricing = _pricing(options)
    for _, _, used in outcomes:
        pricing.tables.update(used.tables)
        pricing.notes += used.notes
    calibration = next((c for _, c, _ in outcomes if c is not None), None)
    condense = CONDENSE_STRATEGIES | set(options.variants)
    results = with_ratios([result for result, _, _ in outcomes], window, condense)
    base = baseline(results, condense)
    return SessionReport(
        session=str(session.path), tokenizer=meter.encoder.name, pricing=pricing.describe(),
        cache_model=options.cache_model, cache_ttl_ms=options.ttl_ms, context_window=window,
        baseline=base.name if base else None, miss_rate=miss,
        unpriced_requests=sum(1 for r in recording.requests if not r.billed),
        calibration=calibration, pricing_forced=pricing.forced is not None, strategies=results,
        notes=sorted(set(pricing.notes)) + _window_notes(results, window))


def _dispatch(name: str, run: _Run, window: int, options: WhatifOptions) -> Recovery:
    if name == "recorded":
        return _run_recorded(run)
    if name == "none":
        return _run_none(run)
    if name == "masking":
        return _run_masking(run)
    if name == "pi-compaction":
        return _run_summarising(run, PiCompaction(run.meter, window))
    if name == "openhands-condenser":
        return _run_summarising(run, SummarizingCondenser())
    if name in ANTHROPIC_EDITS:
        return _run_context_edit(run, ContextEditing(run.meter, ANTHROPIC_EDITS[name]))
    if name in options.variants:
        return _run_condense(run, condense_config_with(options.variants[name], options.condense), window)
    return _run_condense(run, condense_config(name, options.condense), window, name in PRUNE_AFTER_READ)

