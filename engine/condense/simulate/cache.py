"""The provider's prompt cache, as the simulator models it: two models, one interface.

`anthropic` (the default) is Anthropic's documented rule. A request writes a cache entry for the
prefix that ends at each of its breakpoints (where the provider conversion puts `cache_control`: the
system prompt and the newest user or tool message). A later request reads the longest prefix that
ends at a block boundary at most `LOOKBACK_BLOCKS` blocks before one of its own breakpoints and for
which an entry exists that was written or read less than the TTL ago; reading an entry refreshes it.
Nothing else is ever read: a request that rewrote a message far back reads the system prompt only,
however long the unchanged stretch before the rewrite is.

`prefix` is the older, more generous model: the common prefix with the previous request of the lane,
token by token, wherever it ends. No provider gives that credit; it is kept as a comparison.

A prefix shorter than the model's minimum cacheable length (`min_cacheable_tokens`) is never cached:
its breakpoint writes nothing and its tokens are plain input, as Anthropic bills it.

A cache bust is a request inside the TTL that could not read everything the previous request of its
lane wrote. Main-model requests and summariser calls are separate lanes. Recorded sessions show one
more effect no cache rule explains: many first requests after a new user message are full misses;
the simulation prices those in expectation with the session's miss rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from condense.simulate.prompt import Prompt, Segment, common_prefix_tokens, common_units

DEFAULT_TTL_MS = 5 * 60 * 1000
LONG_TTL_MS = 60 * 60 * 1000
LOOKBACK_BLOCKS = 20
CacheModel = Literal["anthropic", "prefix"]
CACHE_MODELS: tuple[CacheModel, ...] = ("anthropic", "prefix")


# Anthropic's minimum cacheable prompt length by model family, longest match first (prompt caching docs)
_MIN_CACHEABLE: tuple[tuple[str, int], ...] = (
    ("opus-4-6", 4096), ("opus-4-5", 4096), ("haiku-4-5", 4096), ("sonnet-4-6", 2048),
    ("haiku-3", 2048), ("3-haiku", 2048), ("3-5-haiku", 2048),
)
DEFAULT_MIN_CACHEABLE = 1024  # Sonnet 4.5, Opus 4.1 and 4, Sonnet 4 and 3.7


def min_cacheable_tokens(model: str) -> int:
    """The fewest tokens a prefix must hold for Anthropic to cache it, for a model id such as
    `claude-opus-4-5-20251101` or `anthropic/claude-sonnet-4-5`."""
    return next((tokens for family, tokens in _MIN_CACHEABLE if family in model), DEFAULT_MIN_CACHEABLE)


@dataclass(frozen=True)
class CacheRead:
    cached: float  # tokens read from the cache
    written: float  # tokens written to it; the rest of the prompt is plain input
    bust: bool  # inside the TTL, yet what the previous request wrote was not read whole
    expired: bool  # the previous request is older than the TTL


class Cache(Protocol):
    def send(self, prompt: Prompt, time_ms: int) -> CacheRead: ...


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
            return CacheRead(0.0, prompt.tokens, False, False)
        if time_ms - previous_time >= self.ttl_ms:
            return CacheRead(0.0, prompt.tokens, False, True)
        cached = common_prefix_tokens(previous, prompt, self.units_per_token)
        return CacheRead(cached, prompt.tokens - cached, cached < previous.tokens, False)


class AnthropicCache:
    """Entries keyed by the exact segment sequence they cover. A prefix key comes from a trie of
    segment identities, so equal prefixes get equal keys in one walk over the prompt."""

    def __init__(self, ttl_ms: int = DEFAULT_TTL_MS, lookback_blocks: int = LOOKBACK_BLOCKS,
                 min_tokens: float = 0.0) -> None:
        self.ttl_ms = ttl_ms
        self.lookback_blocks = lookback_blocks
        self.min_tokens = min_tokens
        self._trie: dict[tuple[int, int], int] = {}
        self._entries: dict[int, int] = {}  # prefix key -> when it was last written or read
        self._previous_end = 0.0  # tokens up to the previous request's last breakpoint
        self._previous_time: int | None = None
        self._last: tuple[tuple[Segment, ...], list[int]] = ((), [0])  # the previous prompt's segments, keys

    def _keys(self, prompt: Prompt) -> list[int]:
        """keys[n]: the key of the prefix made of the first n segments (segments are interned and
        pinned by the meter, so their identities are stable); the previous prompt's for the segments
        they share, so only what a request added is walked."""
        segments, last_keys = self._last
        shared = common_units(segments, prompt.segments)
        keys = last_keys[:shared + 1]
        for segment in prompt.segments[shared:]:
            keys.append(self._trie.setdefault((keys[-1], id(segment)), len(self._trie) + 1))
        self._last = (prompt.segments, keys)
        return keys

    def _alive(self, key: int, time_ms: int) -> bool:
        written = self._entries.get(key)
        return written is not None and time_ms - written < self.ttl_ms

    def _hit(self, prompt: Prompt, keys: list[int], time_ms: int) -> int:
        """The segment count of the longest readable prefix: for each breakpoint, the boundaries at
        it and up to `lookback_blocks` blocks before it are tried, nearest first."""
        best = 0
        for breakpoint in prompt.breakpoints:
            end, blocks = breakpoint, 0
            while end > best:
                if self._alive(keys[end], time_ms):
                    best = end
                    break
                blocks += prompt.segments[end - 1].blocks
                if blocks > self.lookback_blocks:
                    break
                end -= 1
        return best

    def send(self, prompt: Prompt, time_ms: int) -> CacheRead:
        keys = self._keys(prompt)
        hit = self._hit(prompt, keys, time_ms)
        if hit:
            self._entries[keys[hit]] = time_ms
        cacheable = [b for b in prompt.breakpoints if prompt.tokens_before(b) >= self.min_tokens]
        for breakpoint in cacheable:
            self._entries[keys[breakpoint]] = time_ms
        cached = prompt.tokens_before(hit)
        end = prompt.tokens_before(max(cacheable, default=0))
        previous_time, self._previous_time = self._previous_time, time_ms
        previous_end, self._previous_end = self._previous_end, end
        expired = previous_time is not None and time_ms - previous_time >= self.ttl_ms
        bust = previous_time is not None and not expired and cached < previous_end
        return CacheRead(cached, max(0.0, end - cached), bust, expired)


def make_cache(model: CacheModel, units_per_token: float, ttl_ms: int, min_tokens: float = 0.0) -> Cache:
    """`min_tokens`: the answering model's minimum cacheable length (the `anthropic` model only)."""
    if model == "anthropic":
        return AnthropicCache(ttl_ms, min_tokens=min_tokens)
    return PrefixCache(units_per_token, ttl_ms)
