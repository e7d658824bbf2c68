"""What a recording says about its own model requests: when, how big, what they cost.

Each assistant message of a branch stands for one model request; its usage holds what the provider
billed (prompt = input + cacheRead + cacheWrite). A request with no usage at all was aborted before
the provider reported anything: it is not priced, for any strategy, so the simulation and the
recording count the same requests.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

USER_SIDE_ROLES = frozenset({"user", "bashExecution"})


@dataclass(frozen=True)
class RecordedRequest:
    number: int  # 0-based position among the branch's assistant messages
    time_ms: int
    model: str  # the model id that answered, e.g. claude-sonnet-4-5
    output_tokens: int
    prompt_tokens: int
    cache_read: int
    cost: float
    first_after_user: bool  # the first billed request since a user message arrived

    @property
    def billed(self) -> bool:
        return self.prompt_tokens > 0 or self.output_tokens > 0


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _mapping(value: Any) -> Mapping[str, Any]:
    """A usage record or its cost as recorded; anything else (absent, damaged) reads as empty."""
    return value if isinstance(value, dict) else {}


def recorded_requests(messages: Iterable[dict[str, Any]]) -> list[RecordedRequest]:
    """One entry per assistant message of `messages` (a branch's messages, in order)."""
    requests: list[RecordedRequest] = []
    user_waiting = False
    for message in messages:
        role = message.get("role")
        if role in USER_SIDE_ROLES:
            user_waiting = True
        if role != "assistant":
            continue
        usage = _mapping(message.get("usage"))
        cost = _mapping(usage.get("cost"))
        prompt = _int(usage.get("input")) + _int(usage.get("cacheRead")) + _int(usage.get("cacheWrite"))
        request = RecordedRequest(len(requests), _int(message.get("timestamp")),
                                  str(message.get("model", "")),
                                  _int(usage.get("output")), prompt, _int(usage.get("cacheRead")),
                                  float(cost.get("total") or 0.0), user_waiting)
        if request.billed:
            user_waiting = False
        requests.append(request)
    return requests


class MissRate(BaseModel):
    """Full cache misses (cacheRead 0) among the first billed requests after a user message."""

    misses: int
    firsts: int

    @property
    def rate(self) -> float:
        return self.misses / self.firsts if self.firsts else 0.0


def observed_miss_rate(requests: Iterable[RecordedRequest]) -> MissRate:
    """The session's first billed request is left out: it can only miss, whatever the provider does."""
    billed = [r for r in requests if r.billed]
    firsts = [r for r in billed[1:] if r.first_after_user]
    return MissRate(misses=sum(1 for r in firsts if r.cache_read == 0), firsts=len(firsts))
