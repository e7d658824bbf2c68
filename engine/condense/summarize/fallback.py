"""Which model the next summariser call goes to while the configured one is having an outage.

Outages are usually per model: a cheap summariser model can be down while the session's own model
works. Without a fallback every flush would retry the dead model and context would grow for the whole
outage. This is only the state machine; `runner.Summarizer` makes the calls and shows the notices.
It lives in memory only and is reset when a session starts: a restart mid-outage simply re-detects.

The probe slot is claimed synchronously in `choose_target`, so when a flush starts N calls at once
exactly one of them probes the primary and the rest go straight to the fallback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

COOLDOWN_MS = 600_000  # between probes of the primary while in fallback; deliberately not configurable

Transition = Literal["enter", "recover", "none"]
Target = Literal["primary", "fallback"]


@dataclass(frozen=True)
class TargetDecision:
    target: Target
    was_probe: bool


def monotonic_ms() -> float:
    return time.monotonic() * 1000


class FallbackController:
    def __init__(self, clock: Callable[[], float] = monotonic_ms) -> None:
        self._clock = clock
        self.in_fallback = False
        self._last_probe_at = 0.0
        self._owes_enter_warning = False

    @staticmethod
    def has_distinct_fallback(primary: str | None, session: str | None) -> bool:
        """Only a session model that differs from the configured one can stand in for it."""
        return bool(primary) and bool(session) and primary != session

    def reset(self) -> None:
        self.in_fallback = False
        self._last_probe_at = 0.0
        self._owes_enter_warning = False

    def choose_target(self) -> TargetDecision:
        """Call before the first await of a summariser call: it may claim this cooldown's one probe."""
        if not self.in_fallback:
            return TargetDecision("primary", False)
        now = self._clock()
        if now - self._last_probe_at >= COOLDOWN_MS:
            self._last_probe_at = now
            return TargetDecision("primary", True)
        return TargetDecision("fallback", False)

    def on_primary_fail_fallback_ok(self) -> Transition:
        """The primary failed transiently and the session model rescued the call."""
        self._last_probe_at = self._clock()
        if self._owes_enter_warning or not self.in_fallback:
            self._owes_enter_warning = False
            self.in_fallback = True
            return "enter"
        return "none"  # a failed probe, rescued: stay in fallback quietly

    def on_both_down(self) -> None:
        """Both models failed transiently. Enter fallback, but keep the warning until the session
        model actually works: telling the user we switched to a model that is also down would mislead."""
        self._last_probe_at = self._clock()
        if not self.in_fallback:
            self.in_fallback = True
            self._owes_enter_warning = True

    def on_fallback_only_fail(self) -> None:
        """A steady-state fallback call failed. Deliberately leaves the probe clock alone: moving it
        here let a failing fallback postpone the next primary probe forever."""

    def on_primary_success(self, was_probe: bool) -> Transition:
        if was_probe and self.in_fallback:
            self.in_fallback = False
            self._owes_enter_warning = False
            return "recover"
        return "none"

    def on_fallback_success(self) -> Transition:
        if self._owes_enter_warning:
            self._owes_enter_warning = False
            return "enter"
        return "none"
