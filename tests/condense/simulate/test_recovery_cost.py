"""Recovery priced (condense/simulate/recovery_cost.py): a hidden token costs one extra request and its
answer, which later requests carry until the strategy rewrites its prompt."""

from __future__ import annotations

import pytest

from condense.simulate import CALL_TOKENS, PriceTable, RecoveryCost

# $ per token, round numbers so each figure below can be worked out by hand
PRICES = PriceTable(name="test", input=1.0, output=10.0, cache_read=0.1, cache_write=1.25)


def test_a_fetch_reads_the_prompt_again_writes_call_and_answer_and_pays_the_call() -> None:
    recovery = RecoveryCost()
    recovery.request(10_000, bust=False, needed=[(7, 2_000)], prices=PRICES)
    call = CALL_TOKENS
    expected = 10_000 * 0.1 + (2_000 + call) * 1.25 + call * 10.0
    assert recovery.figures.cost == pytest.approx(expected)
    assert (recovery.figures.round_trips, recovery.figures.fetches, recovery.figures.fetched_tokens) == (1, 1, 2_000)


def test_two_outputs_needed_at_once_are_one_round_trip() -> None:
    recovery = RecoveryCost()
    recovery.request(10_000, bust=False, needed=[(7, 2_000), (9, 500), (7, 2_000)], prices=PRICES)
    assert (recovery.figures.round_trips, recovery.figures.fetches, recovery.figures.fetched_tokens) == (1, 2, 2_500)


def test_an_answer_is_carried_until_the_next_bust_and_not_fetched_twice_meanwhile() -> None:
    recovery = RecoveryCost()
    recovery.request(10_000, bust=False, needed=[(7, 2_000)], prices=PRICES)
    after_fetch = recovery.figures.cost
    recovery.request(11_000, bust=False, needed=[(7, 2_000)], prices=PRICES)
    carried = (2_000 + CALL_TOKENS) * 0.1
    assert recovery.figures.cost == pytest.approx(after_fetch + carried), "read from the cache, not fetched again"
    assert recovery.figures.round_trips == 1
    recovery.request(6_000, bust=True, needed=[], prices=PRICES)
    assert recovery.figures.cost == pytest.approx(after_fetch + carried), "the rewrite dropped the answer"
    recovery.request(6_500, bust=False, needed=[(7, 2_000)], prices=PRICES)
    assert recovery.figures.round_trips == 2, "once dropped, it has to be fetched again"


def test_nothing_hidden_costs_nothing() -> None:
    recovery = RecoveryCost()
    for tokens in (1_000, 2_000, 3_000):
        recovery.request(tokens, bust=tokens == 2_000, needed=[], prices=PRICES)
    assert recovery.figures.cost == 0 and recovery.figures.round_trips == 0


def test_a_folded_output_takes_its_folds_transcript_first_in_a_round_trip_of_its_own() -> None:
    recovery = RecoveryCost()
    recovery.request(10_000, bust=False, needed=[(7, 2_000)], prices=PRICES, first=[(-1, 3_000)])
    call = CALL_TOKENS
    transcript = 10_000 * 0.1 + (3_000 + call) * 1.25 + call * 10.0
    output = (10_000 + 3_000 + call) * 0.1 + (2_000 + call) * 1.25 + call * 10.0  # the transcript is carried
    assert recovery.figures.cost == pytest.approx(transcript + output)
    assert (recovery.figures.round_trips, recovery.figures.fetches) == (2, 2)
    recovery.request(10_500, bust=False, needed=[(8, 100)], prices=PRICES, first=[(-1, 3_000)])
    assert recovery.figures.round_trips == 3, "the transcript is carried: only the new output is fetched"
