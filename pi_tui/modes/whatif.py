"""`pi-tui whatif`: what a recorded session would have cost under each pruning strategy.

Every recorded assistant message stands for one model request. For each strategy the context of each
of those requests is rebuilt (condense strategies through `pi-tui replay`'s machinery, into a
throw-away session file), turned into exactly what the provider would read (`convert_to_llm` and the
provider transform for the model that answered), measured with one tokenizer for all strategies, and
priced by `condense.simulate`'s cache model (Anthropic's rule by default). This module runs the
strategies (`whatif_runs`), in parallel processes, and compares them; prices, windows and the tokenizer
come from pi-tui's model access (`pi_tui.ai`), the arithmetic from the engine package.
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from condense.config import CondenseConfig
from condense.simulate import (
    CACHE_MODELS,
    CONDENSE_STRATEGIES,
    DEFAULT_TTL_MS,
    LONG_TTL_MS,
    STRATEGIES,
    CacheModel,
    Calibration,
    Encoder,
    Meter,
    MissRate,
    RetentionMeter,
    SessionReport,
    StrategyResult,
    StrategySimulation,
    Use,
    baseline,
    calibrate,
    find_uses,
    min_cacheable_tokens,
    observed_miss_rate,
    unknown_strategies,
    with_ratios,
)
from pi_tui.ai.pricing import context_window
from pi_tui.ai.tokenizer import default_encoder
from pi_tui.errors import UserError
from pi_tui.modes.whatif_runs import Pricing, Recording, StrategyRun, known_price_table, run_strategy
from pi_tui.session.store import Session

PRICING_MODELS = ("claude-opus-4-5", "claude-sonnet-4-5", "gpt-5.1-codex")

Progress = Callable[[int, int, str], None]  # (strategies done, of how many, the one that just ended)


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
    return WhatifOptions(list(dict.fromkeys(names)), pricing, ttl_ms, cache_model,
                         condense=condense or CondenseConfig())


def _window_notes(results: list[StrategyResult], window: int) -> list[str]:
    return [f"{r.name}: cannot run: its peak context ({r.peak_context_tokens:,.0f} tokens) is over the"
            f" {window:,}-token window" for r in results if not r.can_run]


def _pricing(options: WhatifOptions) -> Pricing:
    """The price tables the options ask for; an hour-long cache is written at its own price."""
    return Pricing(known_price_table(options.pricing) if options.pricing else None, options.ttl_ms >= LONG_TTL_MS)


@dataclass
class _Strategies:
    """What one process needs to run strategies of one session, built once per process: the recording,
    and a meter whose tokenised texts are shared by the strategies that process runs."""

    recording: Recording
    options: WhatifOptions
    window: int
    meter: Meter
    miss: MissRate
    uses: list[Use]  # the retention measure's, the same for every strategy

    def run(self, name: str) -> tuple[StrategyResult, Calibration | None, Pricing]:
        pricing = _pricing(self.options)
        sim = StrategySimulation(name, self.meter.units_per_token, self.miss.rate, self.options.ttl_ms,
                                 self.options.cache_model, min_cacheable_tokens(self.recording.main_model))
        retention = RetentionMeter(self.recording.history, self.uses)
        run = StrategyRun(self.recording, self.meter, pricing, sim, retention)
        recovery = run_strategy(name, run, self.window, self.options.variants, self.options.condense)
        calibration = calibrate(run.sim.outcomes, self.recording.requests, self.miss) if name == "recorded" else None
        self.meter.forget_messages()
        return run.sim.result(recovery, retention.result(), run.recovering.figures), calibration, pricing


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
        if progress is not None:
            progress(0, len(names), "")
        for done, name in enumerate(names, start=1):
            outcomes.append(strategies.run(name))
            if progress is not None:
                progress(done, len(names), name)
        return outcomes
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                             initargs=(strategies,)) as pool:
        futures = {pool.submit(_run_in_worker, name): name for name in names}
        if progress is not None:
            progress(0, len(names), "")
            for done, future in enumerate(as_completed(futures), start=1):
                progress(done, len(names), futures[future])
        return [future.result() for future in futures]


def run_whatif(session: Session, options: WhatifOptions, encoder: Encoder | None = None,
               progress: Progress | None = None) -> SessionReport:
    recording = Recording(session, session.branch_entries())
    if not any(r.billed for r in recording.requests):
        raise UserError(f"{session.path}: no model request with recorded usage to replay")
    window = context_window(recording.main_model)
    meter = Meter(encoder or default_encoder())
    miss = observed_miss_rate(recording.requests)
    uses = find_uses(recording.history, recording.before)
    outcomes = _run_strategies(_Strategies(recording, options, window, meter, miss, uses), progress)
    pricing = _pricing(options)
    for _, _, used in outcomes:
        pricing.tables.update(used.tables)
        pricing.notes += used.notes
    calibration = next((c for _, c, _ in outcomes if c is not None), None)
    condense = CONDENSE_STRATEGIES | set(options.variants)
    results = with_ratios([result for result, _, _ in outcomes], window, condense)
    base = baseline(results, condense)
    base_recovering = baseline(results, condense, with_recovery=True)
    return SessionReport(
        session=str(session.path), tokenizer=meter.encoder.name, pricing=pricing.describe(),
        cache_model=options.cache_model, cache_ttl_ms=options.ttl_ms, context_window=window,
        baseline=base.name if base else None, miss_rate=miss,
        baseline_with_recovery=base_recovering.name if base_recovering else None,
        unpriced_requests=sum(1 for r in recording.requests if not r.billed),
        calibration=calibration, pricing_forced=pricing.forced is not None, strategies=results,
        notes=sorted(set(pricing.notes)) + _window_notes(results, window))
