"""One strategy's run priced request by request, and what it adds up to.

The host feeds each strategy's requests in recorded order (the prompt it would have sent, and the
recorded request it stands for: time, output tokens, whether a user message came just before) plus
any summariser calls the strategy made. Output tokens are the recorded ones for every strategy, so
strategies differ only in what they send.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from condense.simulate.cache import DEFAULT_TTL_MS, PrefixCache, expected_cached
from condense.simulate.pricing import PriceTable
from condense.simulate.prompt import Prompt
from condense.simulate.recorded import MissRate, RecordedRequest
from condense.simulate.recovery import Recovery


@dataclass(frozen=True)
class RequestOutcome:
    number: int  # the recorded request it stands for
    tokens: float  # prompt tokens
    cached: float  # in expectation
    bust: bool
    cost: float  # in expectation


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
    ratio_to_none: float | None = None
    recovery: Recovery
    context_tokens: list[float]  # per priced request, in order
    bust_requests: list[int]  # positions in `context_tokens`


class StrategySimulation:
    def __init__(self, name: str, units_per_token: float, miss_rate: float,
                 ttl_ms: int = DEFAULT_TTL_MS) -> None:
        self.name = name
        self.miss_rate = miss_rate
        self._main = PrefixCache(units_per_token, ttl_ms)
        self._side = PrefixCache(units_per_token, ttl_ms)
        self.outcomes: list[RequestOutcome] = []
        self.summariser_calls = 0
        self.summariser_cost = 0.0

    def request(self, prompt: Prompt, recorded: RecordedRequest, prices: PriceTable) -> RequestOutcome:
        read = self._main.send(prompt, recorded.time_ms)
        cached = expected_cached(read.cached, recorded.first_after_user, self.miss_rate)
        cost = prices.cost(cached, prompt.tokens - cached, recorded.output_tokens)
        outcome = RequestOutcome(recorded.number, prompt.tokens, cached, read.bust, cost)
        self.outcomes.append(outcome)
        return outcome

    def summariser_call(self, prompt: Prompt, output_tokens: float, time_ms: int,
                        prices: PriceTable) -> float:
        read = self._side.send(prompt, time_ms)
        cost = prices.cost(read.cached, prompt.tokens - read.cached, output_tokens)
        self.summariser_calls += 1
        self.summariser_cost += cost
        return cost

    def result(self, recovery: Recovery) -> StrategyResult:
        tokens = [o.tokens for o in self.outcomes]
        prompt_total = sum(tokens)
        main_cost = sum(o.cost for o in self.outcomes)
        return StrategyResult(
            name=self.name, requests=len(tokens),
            mean_context_tokens=prompt_total / len(tokens) if tokens else 0.0,
            peak_context_tokens=max(tokens, default=0.0),
            cache_hit_rate=sum(o.cached for o in self.outcomes) / prompt_total if prompt_total else 0.0,
            cache_busts=sum(o.bust for o in self.outcomes), main_cost=main_cost,
            summariser_calls=self.summariser_calls, summariser_cost=self.summariser_cost,
            total_cost=main_cost + self.summariser_cost, recovery=recovery, context_tokens=tokens,
            bust_requests=[i for i, o in enumerate(self.outcomes) if o.bust])


def with_ratios(results: list[StrategyResult]) -> list[StrategyResult]:
    """Each result's total against the `none` strategy's, when that one ran."""
    none = next((r for r in results if r.name == "none"), None)
    if none is None or none.total_cost <= 0:
        return results
    return [r.model_copy(update={"ratio_to_none": r.total_cost / none.total_cost}) for r in results]


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


def _mean_abs(pairs: list[tuple[float, float]]) -> float:
    return sum(abs(_relative(s, r)) for s, r in pairs) / len(pairs) if pairs else 0.0
