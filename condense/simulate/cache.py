"""The provider's prefix cache, as the simulator models it.

A request reads from the cache the longest prefix it shares with the previous request of the same
lane, if that one was sent less than the TTL ago; every other prompt token is written (Anthropic
caches the whole prompt up to its last breakpoint, which pi-tui puts on the newest message). A cache
bust is a request inside the TTL that could not reuse the whole previous prompt: something in it was
rewritten. Main-model requests and summariser calls are separate lanes (their prompts share nothing,
and a provider keeps both cached side by side).

Recorded sessions show one more effect no prefix model explains: many first requests after a new
user message are full misses. `expected_cached` prices those in expectation with a miss rate.
"""

from __future__ import annotations

from dataclasses import dataclass

from condense.simulate.prompt import Prompt, common_prefix_tokens

DEFAULT_TTL_MS = 5 * 60 * 1000


@dataclass(frozen=True)
class CacheRead:
    cached: float  # tokens read from the cache
    bust: bool  # inside the TTL, yet the previous prompt was not reused whole
    expired: bool  # the previous request is older than the TTL


class PrefixCache:
    def __init__(self, units_per_token: float, ttl_ms: int = DEFAULT_TTL_MS) -> None:
        self.units_per_token = units_per_token
        self.ttl_ms = ttl_ms
        self._previous: Prompt | None = None
        self._previous_time = 0

    def send(self, prompt: Prompt, time_ms: int) -> CacheRead:
        previous, self._previous = self._previous, prompt
        previous_time, self._previous_time = self._previous_time, time_ms
        if previous is None:
            return CacheRead(0.0, False, False)
        if time_ms - previous_time >= self.ttl_ms:
            return CacheRead(0.0, False, True)
        cached = common_prefix_tokens(previous, prompt, self.units_per_token)
        return CacheRead(cached, cached < previous.tokens, False)


def expected_cached(cached: float, first_after_user: bool, miss_rate: float) -> float:
    """Cached tokens in expectation: a first request after a user message misses with `miss_rate`."""
    return cached * (1.0 - miss_rate) if first_after_user else cached
