"""One strategy's run priced request by request, and what it adds up to.

The host feeds each strategy's requests in recorded order (the prompt it would have sent, and the
recorded request it stands for: time, output tokens, whether a user message came just before) plus
any summariser calls the strategy made. Output tokens are the recorded ones for every strategy, so
strategies differ only in what they send. Under the `anthropic` cache model every request is priced a
second time under the `prefix` model too, so a report can show how much a cache rule no provider
offers would flatter a strategy.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, computed_field

from condense.simulate.cache import DEFAULT_TTL_MS, Cache, CacheModel, CacheRead, make_cache
from condense.simulate.pricing import PriceTable
from condense.simulate.prompt import Prompt
from condense.simulate.recorded import MissRate, RecordedRequest
from condense.simulate.recovery import Recovery
from condense.simulate.recovery_cost import RecoveryFigures
from condense.simulate.retention import Retention


@dataclass(frozen=True)
class RequestOutcome:
    number: int  # the recorded request it stands for
    tokens: float  # prompt tokens
    cached: float  # in expectation
    bust: bool
    cost: float  # in expectation
    prefix_model_cost: float  # the same request under the `prefix` cache model


class StrategyResult(BaseModel):
    name: str
    requests: int
    mean_context_tokens: float
    peak_context_tokens: float
    cache_hit_rate: float  # cached prompt tokens / prompt tokens, in expectation
    cache_busts: int
    main_cost: float
    summariser_calls: int
    summariser_cost: float
    total_cost: float
    prefix_model_cost: float  # total_cost under the `prefix` cache model
    ratio_to_none: float | None = None
    can_run: bool = True  # its peak context fits the model's window
    ratio_to_baseline: float | None = None  # against the cheapest runnable non-condense strategy
    recovery: Recovery
    recovering: RecoveryFigures = RecoveryFigures()  # what fetching back the hidden tokens it used adds
    ratio_with_recovery: float | None = None  # the same against the cheapest such strategy, both with recovery
    retention: Retention | None = None  # what the model had in reach of the tokens it reached back for
    context_tokens: list[float]  # per priced request, in order
    bust_requests: list[int]  # positions in `context_tokens`

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cost_with_recovery(self) -> float:
        """The total plus what fetching back the hidden tokens the model used would have cost."""
        return self.total_cost + self.recovering.cost


class _Lane:
    """One stream of requests (the main model, or the summariser) and its cache(s)."""

    def __init__(self, model: CacheModel, units_per_token: float, ttl_ms: int, min_tokens: float = 0.0) -> None:
        self.cache = make_cache(model, units_per_token, ttl_ms, min_tokens)
        self.prefix: Cache | None = make_cache("prefix", units_per_token, ttl_ms) if model != "prefix" else None

    def price(self, prompt: Prompt, time_ms: int, miss: float, output: float,
              prices: PriceTable) -> tuple[CacheRead, float, float, float]:
        """(what the cache did, cached tokens and cost in expectation, cost under the prefix model)."""
        read = self.cache.send(prompt, time_ms)
        cached, cost = _priced(prompt, read, miss, output, prices)
        prefix_cost = cost if self.prefix is None else _priced(prompt, self.prefix.send(prompt, time_ms), miss,
                                                               output, prices)[1]
        return read, cached, cost, prefix_cost


def _priced(prompt: Prompt, read: CacheRead, miss: float, output: float, prices: PriceTable) -> tuple[float, float]:
    """An expected miss turns the tokens it would have read into written ones."""
    cached = read.cached * (1.0 - miss)
    plain = max(0.0, prompt.tokens - read.cached - read.written)
    return cached, prices.cost(cached, prompt.tokens - plain - cached, output, plain)


class StrategySimulation:
    def __init__(self, name: str, units_per_token: float, miss_rate: float,
                 ttl_ms: int = DEFAULT_TTL_MS, cache_model: CacheModel = "anthropic",
                 min_cacheable: float = 0.0) -> None:
        """`min_cacheable`: the session model's minimum cacheable prompt length, in tokens."""
        self.name = name
        self.miss_rate = miss_rate
        self._main = _Lane(cache_model, units_per_token, ttl_ms, min_cacheable)
        self._side = _Lane(cache_model, units_per_token, ttl_ms, min_cacheable)
        self.outcomes: list[RequestOutcome] = []
        self.summariser_calls = 0
        self.summariser_cost = 0.0
        self.summariser_prefix_cost = 0.0

    def request(self, prompt: Prompt, recorded: RecordedRequest, prices: PriceTable) -> RequestOutcome:
        miss = self.miss_rate if recorded.first_after_user else 0.0  # see cache.py: recorded full misses
        read, cached, cost, prefix_cost = self._main.price(prompt, recorded.time_ms, miss,
                                                           recorded.output_tokens, prices)
        outcome = RequestOutcome(recorded.number, prompt.tokens, cached, read.bust, cost, prefix_cost)
        self.outcomes.append(outcome)
        return outcome

    def summariser_call(self, prompt: Prompt, output_tokens: float, time_ms: int,
                        prices: PriceTable) -> float:
        _, _, cost, prefix_cost = self._side.price(prompt, time_ms, 0.0, output_tokens, prices)
        self.summariser_calls += 1
        self.summariser_cost += cost
        self.summariser_prefix_cost += prefix_cost
        return cost

    def server_call(self, prompt: Prompt, output_tokens: float, time_ms: int, prices: PriceTable) -> float:
        """A step the provider samples on the request itself (server-side compaction's summary): priced
        on the main stream's cache, counted with the summariser's calls."""
        _, _, cost, prefix_cost = self._main.price(prompt, time_ms, 0.0, output_tokens, prices)
        self.summariser_calls += 1
        self.summariser_cost += cost
        self.summariser_prefix_cost += prefix_cost
        return cost

    def result(self, recovery: Recovery, retention: Retention | None = None,
               recovering: RecoveryFigures | None = None) -> StrategyResult:
        tokens = [o.tokens for o in self.outcomes]
        prompt_total = sum(tokens)
        main_cost = sum(o.cost for o in self.outcomes)
        recovering = recovering or RecoveryFigures()
        return StrategyResult(
            name=self.name, requests=len(tokens),
            mean_context_tokens=prompt_total / len(tokens) if tokens else 0.0,
            peak_context_tokens=max(tokens, default=0.0),
            cache_hit_rate=sum(o.cached for o in self.outcomes) / prompt_total if prompt_total else 0.0,
            cache_busts=sum(o.bust for o in self.outcomes), main_cost=main_cost,
            summariser_calls=self.summariser_calls, summariser_cost=self.summariser_cost,
            total_cost=main_cost + self.summariser_cost,
            recovering=recovering,
            prefix_model_cost=sum(o.prefix_model_cost for o in self.outcomes) + self.summariser_prefix_cost,
            recovery=recovery, retention=retention, context_tokens=tokens,
            bust_requests=[i for i, o in enumerate(self.outcomes) if o.bust])


def with_ratios(results: list[StrategyResult], window: int | None = None,
                condense: Collection[str] = ()) -> list[StrategyResult]:
    """Marks the strategies whose peak context is over `window` as unable to run, and sets each total
    against `none` (when it ran) and against the baseline: the cheapest runnable strategy that is not
    one of `condense`; the cost with recovery against the cheapest such strategy with recovery (it
    may be another one). A strategy that could never have run is never a denominator."""
    marked = [r.model_copy(update={"can_run": window is None or r.peak_context_tokens <= window})
              for r in results]
    none = next((r for r in marked if r.name == "none" and r.total_cost > 0), None)
    base, base_recovering = baseline(marked, condense), baseline(marked, condense, with_recovery=True)
    return [r.model_copy(update={
        "ratio_to_none": r.total_cost / none.total_cost if none else None,
        "ratio_to_baseline": r.total_cost / base.total_cost if base else None,
        "ratio_with_recovery": r.cost_with_recovery / base_recovering.cost_with_recovery
        if base_recovering else None}) for r in marked]


def baseline(results: list[StrategyResult], condense: Collection[str],
             with_recovery: bool = False) -> StrategyResult | None:
    """The cheapest strategy that could have run and is not a condense strategy, by its total or by
    its cost with recovery."""
    candidates = [r for r in results if r.can_run and r.name not in condense and r.total_cost > 0]
    return min(candidates, key=lambda r: r.cost_with_recovery if with_recovery else r.total_cost, default=None)


class Calibration(BaseModel):
    """The `recorded` strategy against the recording's own usage."""

    requests: int
    simulated_prompt_tokens: float
    recorded_prompt_tokens: int
    prompt_tokens_error: float  # relative error of the totals
    mean_abs_prompt_error: float  # mean of the per-request relative errors
    simulated_cost: float
    recorded_cost: float
    cost_error: float
    mean_abs_cost_error: float
    miss_rate: MissRate


def _relative(simulated: float, recorded: float) -> float:
    return (simulated - recorded) / recorded if recorded else 0.0


def calibrate(outcomes: list[RequestOutcome], recorded: list[RecordedRequest], miss: MissRate) -> Calibration:
    by_number = {r.number: r for r in recorded}
    pairs = [(o, by_number[o.number]) for o in outcomes if o.number in by_number]
    prompt_pairs = [(o.tokens, r.prompt_tokens) for o, r in pairs if r.prompt_tokens > 0]
    cost_pairs = [(o.cost, r.cost) for o, r in pairs if r.cost > 0]
    simulated_tokens = sum(o.tokens for o, _ in pairs)
    recorded_tokens = sum(r.prompt_tokens for _, r in pairs)
    simulated_cost = sum(o.cost for o, _ in pairs)
    recorded_cost = sum(r.cost for _, r in pairs)
    return Calibration(
        requests=len(pairs), simulated_prompt_tokens=simulated_tokens, recorded_prompt_tokens=recorded_tokens,
        prompt_tokens_error=_relative(simulated_tokens, recorded_tokens),
        mean_abs_prompt_error=_mean_abs(prompt_pairs), simulated_cost=simulated_cost,
        recorded_cost=recorded_cost, cost_error=_relative(simulated_cost, recorded_cost),
        mean_abs_cost_error=_mean_abs(cost_pairs), miss_rate=miss)


def _mean_abs(pairs: Sequence[tuple[float, float]]) -> float:
    return sum(abs(_relative(s, r)) for s, r in pairs) / len(pairs) if pairs else 0.0
