"""Scenarios of src/summarizer-fallback.test.ts: the outage fallback state machine, on a fake clock.

Models are `provider/id` strings here (the host names models that way), so "id or provider differ"
compares the whole string.
"""

from __future__ import annotations

from condense.summarize.fallback import COOLDOWN_MS, FallbackController, TargetDecision

HAIKU = "anthropic/claude-haiku"
SONNET = "anthropic/claude-sonnet"


class Clock:
    def __init__(self, now: float = 0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


PRIMARY = TargetDecision("primary", False)
PROBE = TargetDecision("primary", True)
FALLBACK = TargetDecision("fallback", False)


# ----- has_distinct_fallback -----


def test_false_when_models_are_identical() -> None:
    assert FallbackController.has_distinct_fallback(HAIKU, HAIKU) is False


def test_false_when_either_model_is_missing() -> None:
    assert FallbackController.has_distinct_fallback(None, SONNET) is False
    assert FallbackController.has_distinct_fallback(HAIKU, None) is False
    assert FallbackController.has_distinct_fallback(HAIKU, "") is False


def test_true_when_id_or_provider_differ() -> None:
    assert FallbackController.has_distinct_fallback(HAIKU, SONNET) is True
    assert FallbackController.has_distinct_fallback("a/m", "b/m") is True


# ----- choose_target -----


def test_targets_primary_when_not_in_fallback() -> None:
    assert FallbackController(Clock()).choose_target() == PRIMARY


def test_targets_fallback_while_in_fallback_and_before_cooldown() -> None:
    clock = Clock(1_000_000)
    controller = FallbackController(clock)
    controller.on_primary_fail_fallback_ok()
    assert controller.in_fallback is True
    clock.now += COOLDOWN_MS - 1
    assert controller.choose_target() == FALLBACK


def test_elects_exactly_one_probe_after_cooldown_elapses() -> None:
    clock = Clock(0)
    controller = FallbackController(clock)
    controller.on_primary_fail_fallback_ok()
    clock.now = COOLDOWN_MS
    assert controller.choose_target() == PROBE
    assert controller.choose_target() == FALLBACK


# ----- entering, recovering -----


def test_first_rescued_transient_returns_enter_rest_return_none() -> None:
    controller = FallbackController(Clock())
    assert controller.on_primary_fail_fallback_ok() == "enter"
    assert controller.in_fallback is True
    assert controller.on_primary_fail_fallback_ok() == "none"
    assert controller.on_primary_fail_fallback_ok() == "none"


def test_probe_success_while_in_fallback_returns_recover_and_clears_state() -> None:
    controller = FallbackController(Clock())
    controller.on_primary_fail_fallback_ok()
    assert controller.on_primary_success(True) == "recover"
    assert controller.in_fallback is False


def test_non_probe_primary_success_is_a_no_op() -> None:
    controller = FallbackController(Clock())
    assert controller.on_primary_success(False) == "none"
    assert controller.in_fallback is False


def test_rescued_probe_returns_none_and_stays_in_fallback() -> None:
    clock = Clock(0)
    controller = FallbackController(clock)
    controller.on_primary_fail_fallback_ok()
    clock.now = COOLDOWN_MS
    assert controller.choose_target().was_probe is True
    clock.now = COOLDOWN_MS + 5
    assert controller.on_primary_fail_fallback_ok() == "none"
    assert controller.in_fallback is True


# ----- both down -----


def test_owed_warning_fires_on_the_first_later_fallback_success() -> None:
    controller = FallbackController(Clock())
    controller.on_both_down()
    assert controller.in_fallback is True
    assert controller.on_fallback_success() == "enter"
    assert controller.on_fallback_success() == "none"


def test_both_down_while_already_in_fallback_does_not_owe_a_new_warning() -> None:
    controller = FallbackController(Clock())
    controller.on_primary_fail_fallback_ok()
    controller.on_both_down()
    assert controller.on_fallback_success() == "none"


def test_a_probe_recovery_after_both_down_does_not_later_emit_a_stale_enter() -> None:
    clock = Clock(0)
    controller = FallbackController(clock)
    controller.on_both_down()
    clock.now = COOLDOWN_MS
    assert controller.choose_target().was_probe is True
    assert controller.on_primary_success(True) == "recover"
    assert controller.in_fallback is False
    assert controller.on_fallback_success() == "none"


def test_no_on_primary_success_call_means_in_fallback_is_retained() -> None:
    clock = Clock(0)
    controller = FallbackController(clock)
    controller.on_primary_fail_fallback_ok()
    clock.now = COOLDOWN_MS
    assert controller.choose_target().was_probe is True
    # the probe's answer was unusable: the caller reports nothing, so nothing recovers
    assert controller.in_fallback is True


def test_on_fallback_only_fail_does_not_push_out_the_next_primary_probe() -> None:
    clock = Clock(0)
    controller = FallbackController(clock)
    controller.on_primary_fail_fallback_ok()
    for minute in range(1, 10):  # the fallback fails every minute of the cooldown
        clock.now = minute * 60_000
        assert controller.choose_target() == FALLBACK
        controller.on_fallback_only_fail()
    clock.now = COOLDOWN_MS
    assert controller.choose_target() == PROBE


def test_reset_clears_all_state() -> None:
    controller = FallbackController(Clock(5))
    controller.on_both_down()
    controller.reset()
    assert controller.in_fallback is False
    assert controller.on_fallback_success() == "none"
    assert controller.choose_target() == PRIMARY
