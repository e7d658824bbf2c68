"""What one call of the library (`add`, `flush`) pruned, and how much smaller the next request is for it.

An agent author wants to see the engine work without reading its session entries: which outputs it
took out of the context (by the refs the model can query), which tasks it compressed, which requests
it folded, and the saving. The meter reads what the engine persisted during the call (new index
records, chain and fold entries, summaries) and measures the next request's size before and after.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from condense.fold import reconstruct_folds
from condense.host import Level
from condense.inspect import chain_marks
from condense.measure import Sizes, message_chars, model_chars
from condense.messages import AgentMessage
from condense.record_bursts import records_of
from condense.records import DEDUP_ALIAS, SUMMARY

if TYPE_CHECKING:
    from condense.engine import CondenseEngine
    from condense.local_host import LocalHost

PI_CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class PruneResult:
    """What one `add()` or `flush()` did to the history the model reads next.

    `refs` are the tool outputs it took out of the context (summarised, stubbed as stale, folded), each
    recoverable through `context_tree_query`; `outputs` counts those plus outputs stubbed as duplicates
    of an earlier one; `chains` the finished tasks it compressed into one block (`b3`), `folds` the
    blocks the oldest requests were folded into (`f1`), `spilled` the outputs written to files beside
    the store. `saved_chars` is how many fewer characters the model reads in the next request because
    of it (summaries added are counted against it), `notices` what condense said meanwhile."""

    refs: tuple[str, ...] = ()
    outputs: int = 0
    chains: tuple[str, ...] = ()
    folds: tuple[str, ...] = ()
    spilled: tuple[str, ...] = ()
    summaries: int = 0
    saved_chars: int = 0
    notices: tuple[tuple[Level, str], ...] = ()

    @property
    def saved_tokens(self) -> int:
        """`saved_chars` in tokens, estimated as Pi does for text no provider has counted, and as pi-tui's
        footer reckons its saving (characters / 4)."""
        return round(self.saved_chars / PI_CHARS_PER_TOKEN)

    @property
    def pruned(self) -> bool:
        return bool(self.outputs or self.chains or self.folds)


@dataclass(frozen=True)
class Before:
    """Where a call started: the index's size, the branch's length, the size of the request then."""

    records: int
    entries: int
    request_chars: int


class PruneMeter:
    """Measures each call of one facade; keeps the sizes of the messages it measured, by identity, so a
    measure costs a lookup per message and a count per new one."""

    def __init__(self, engine: CondenseEngine, host: LocalHost) -> None:
        self.engine = engine
        self.host = host
        self._sizes = Sizes(message_chars)
        self._request_chars: int | None = None  # of the last request measured; None before the first

    def measure(self, rendered: list[AgentMessage]) -> int:
        """The size of a request the facade rendered (the one it gives out, or one rendered to measure)."""
        self._request_chars = self._sizes.total(rendered)
        if self._sizes.count > 2 * len(rendered) + 64:
            self._sizes.forget_all_but(rendered)
        return self._request_chars

    def _measure_now(self) -> int:
        return self.measure(self.engine.render(self.host.messages()))

    def start(self) -> Before:
        chars = self._measure_now() if self._request_chars is None else self._request_chars
        return Before(len(self.engine.index), len(self.host.entries), chars)

    def result(self, before: Before, added: list[AgentMessage], notices: list[tuple[Level, str]]) -> PruneResult:
        """What happened since `before`, in a call that handed over `added`: the saving is what the next
        request would have held had nothing been pruned (the last request and `added`) less what it holds."""
        new = list(self.engine.index.records())[before.records:]
        refs = tuple(self.engine.index.get_short_ref(r.key) or r.key for r in new)
        entries = self.host.entries[before.entries:]
        aliases = sum(1 for _ in records_of(entries, DEDUP_ALIAS))
        return PruneResult(
            refs=refs, outputs=len(refs) + aliases,
            chains=tuple(mark.block for mark in chain_marks(entries).values()),
            folds=tuple(fold.ref for fold in reconstruct_folds(entries)),
            spilled=tuple(ref for ref, record in zip(refs, new, strict=True) if record.spill_path),
            summaries=sum(1 for e in entries if e.get("type") == "custom_message" and e.get("customType") == SUMMARY),
            saved_chars=before.request_chars + model_chars(added) - self._measure_now(), notices=tuple(notices))
