"""Block ids of compressed chains (`src/block-refs.test.ts`)."""

from __future__ import annotations

from condense.block_refs import BlockRefIssuer


def test_first_issue_returns_b1() -> None:
    assert BlockRefIssuer().issue() == "b1"


def test_subsequent_calls_are_monotonic() -> None:
    issuer = BlockRefIssuer()
    assert [issuer.issue() for _ in range(3)] == ["b1", "b2", "b3"]


def test_rebuild_from_nothing_next_is_b1() -> None:
    issuer = BlockRefIssuer()
    issuer.rebuild_from([])
    assert issuer.issue() == "b1"


def test_rebuild_from_b1_b2_next_is_b3() -> None:
    issuer = BlockRefIssuer()
    issuer.rebuild_from(["b1", "b2"])
    assert issuer.issue() == "b3"


def test_rebuild_from_a_gapped_sequence_continues_after_the_max_not_in_the_gap() -> None:
    issuer = BlockRefIssuer()
    issuer.rebuild_from(["b3", "b1"])
    assert issuer.issue() == "b4"


def test_rebuild_from_resets_the_counter_even_after_prior_issues() -> None:
    issuer = BlockRefIssuer()
    issuer.issue()
    issuer.issue()
    issuer.rebuild_from(["b5"])
    assert issuer.issue() == "b6"


def test_rebuild_from_ignores_ids_that_are_not_block_ids() -> None:
    issuer = BlockRefIssuer()
    issuer.rebuild_from(["t9", "b", "bx2", "b2x", "b10"])
    assert issuer.issue() == "b11"
