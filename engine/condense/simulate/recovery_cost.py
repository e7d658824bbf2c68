"""What it costs a model to get back what its context no longer shows.

Retention finds, at each request, the tool-given tokens the recorded model used that the strategy's
context did not show: recoverable (behind a condense ref) or lost. A model that needs one has to fetch
it before it can write the reply the recording holds. Priced here, the same way for every strategy:

- The request that produced the reply is preceded by one extra request with the same prompt, whose
  reply is one call per output needed: `context_tree_query` with the ref for a recoverable token, the
  original tool call run again for a lost one. Each call is `CALL_TOKENS` output tokens.
- The recorded request then carries those calls and their answers (the whole output) after its own
  prompt: it reads that prompt from the cache (the extra request just wrote it) and writes the calls
  and answers.
- An output a history fold took out of view (condense's `fN` blocks list its ref, not what it holds)
  takes one more round trip first: the model reads the fold's transcript to find the ref, then fetches
  the output. The transcript is carried like any answer.
- The answers stay in the context, read from the cache by every later request, until the strategy
  next rewrites its prompt (a cache bust: condense's next flush prunes them again, a summarising
  strategy folds them in, Anthropic's edit clears them). While they are there, a later use from the
  same output needs no fetch.

What this leaves out, and whom it flatters: it assumes the model asks for exactly the outputs it needs,
at once, and that a lost output can be had again by re-running its tool (a file since edited, a command
with side effects, a search that depended on state may not give it back; a model that lost the token
may not know it needs it). Both favour the lossy strategies. It does not shorten a strategy's own
carrying: for a strategy that rewrites its prompt at nearly every request (masking), the answers leave
at once, where the real answer would stay among the newest outputs a while.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from condense.simulate.pricing import PriceTable

CALL_TOKENS = 40  # one call: its name, its id, a ref or the original arguments


class RecoveryFigures(BaseModel):
    """What recovery added to one strategy's run."""

    cost: float = 0.0
    round_trips: int = 0  # extra requests made to fetch something back
    fetches: int = 0  # outputs fetched (a round trip can fetch several)
    fetched_tokens: float = 0.0


class RecoveryCost:
    """Follows one strategy's requests in order and prices the fetches its hidden uses call for."""

    def __init__(self, call_tokens: float = CALL_TOKENS) -> None:
        self.call_tokens = call_tokens
        self._carried: dict[int, float] = {}  # output position -> tokens still in the context for it
        self.figures = RecoveryFigures()

    def request(self, prompt_tokens: float, bust: bool, needed: Sequence[tuple[int, float]],
                prices: PriceTable, first: Sequence[tuple[int, float]] = ()) -> None:
        """One priced request: its prompt's size, whether it rewrote the cached prompt, the outputs
        (history position, tokens) its hidden uses come from, and what must be read before those can
        be asked for (a fold's transcript: any key that is no history position, and its tokens)."""
        if bust:
            self._carried.clear()
        self.figures.cost += prices.cost(sum(self._carried.values()), 0.0, 0.0)
        for stage in (first, needed):
            self._round_trip(prompt_tokens, stage, prices)

    def _round_trip(self, prompt_tokens: float, needed: Sequence[tuple[int, float]], prices: PriceTable) -> None:
        """One extra request fetching what is not carried yet; its answers are carried from then on."""
        wanted = dict((position, tokens) for position, tokens in needed if position not in self._carried)
        if not wanted:
            return
        carried = sum(self._carried.values())
        calls = len(wanted) * self.call_tokens
        fetched = sum(wanted.values())
        figures = self.figures
        figures.cost += prices.cost(prompt_tokens + carried, fetched + calls, calls)
        figures.round_trips += 1
        figures.fetches += len(wanted)
        figures.fetched_tokens += fetched
        for position, tokens in wanted.items():
            self._carried[position] = tokens + self.call_tokens
