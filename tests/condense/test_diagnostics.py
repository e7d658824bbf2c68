"""DiagnosticSink (`src/diagnostics.test.ts`) and the footer's ` · N warnings (/pruner status)` suffix."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from condense.diagnostics import DiagnosticKind, DiagnosticSink, status_suffix
from condense.records import DIAGNOSTIC

ZERO: dict[DiagnosticKind, int] = {
    "unresolved-range": 0, "range-id-mismatch": 0, "orphan-sweep": 0, "backfill-empty": 0}


class Entries:
    """The host's `append_entry`, recording what it persisted; `failing` makes it raise like a lost file."""

    def __init__(self) -> None:
        self.written: list[tuple[str, Any]] = []
        self.failing = False

    def __call__(self, custom_type: str, data: Any) -> None:
        if self.failing:
            raise OSError("session file is gone")
        self.written.append((custom_type, data))


@pytest.fixture
def entries() -> Entries:
    return Entries()


def test_writes_one_session_entry_per_distinct_kind_and_dedup_key(entries: Entries) -> None:
    DiagnosticSink(entries).report("unresolved-range", "b1", "blockId=b1 start=1000 final=1200")
    assert entries.written == [
        (DIAGNOSTIC, {"kind": "unresolved-range", "detail": "blockId=b1 start=1000 final=1200"})
    ]  # the dedup key is not persisted


def test_dedupes_a_repeated_kind_and_dedup_key_within_the_session(entries: Entries) -> None:
    sink = DiagnosticSink(entries)
    sink.report("orphan-sweep", "abc", "swept 1 orphan toolResult(s): a")
    sink.report("orphan-sweep", "abc", "swept 1 orphan toolResult(s): a")
    assert len(entries.written) == 1
    assert sink.counts()["orphan-sweep"] == 1


def test_a_different_dedup_key_of_the_same_kind_still_reports(entries: Entries) -> None:
    sink = DiagnosticSink(entries)
    sink.report("unresolved-range", "b1", "one")
    sink.report("unresolved-range", "b2", "two")
    assert len(entries.written) == 2
    assert sink.counts()["unresolved-range"] == 2


def test_the_same_dedup_key_under_two_different_kinds_both_report(entries: Entries) -> None:
    sink = DiagnosticSink(entries)
    sink.report("unresolved-range", "b1", "unresolved")
    sink.report("range-id-mismatch", "b1", "mismatch")
    assert [data["kind"] for _, data in entries.written] == ["unresolved-range", "range-id-mismatch"]
    assert sink.counts() == {**ZERO, "unresolved-range": 1, "range-id-mismatch": 1}


def test_counts_are_per_kind_and_start_at_zero(entries: Entries) -> None:
    assert DiagnosticSink(entries).counts() == ZERO


def test_an_append_failure_never_raises_into_the_render_path_and_does_not_mark_the_key_as_seen(
    entries: Entries, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="condense")
    entries.failing = True
    sink = DiagnosticSink(entries)
    sink.report("orphan-sweep", "abc", "swept")  # must not raise
    assert sink.counts()["orphan-sweep"] == 0
    assert len([r for r in caplog.records if r.name == "condense"]) == 1
    assert "orphan-sweep" in caplog.records[0].getMessage()


def test_a_retry_of_the_same_kind_and_dedup_key_after_append_starts_working_persists_and_counts(
    entries: Entries,
) -> None:
    sink = DiagnosticSink(entries)
    entries.failing = True
    sink.report("orphan-sweep", "abc", "swept")
    entries.failing = False
    sink.report("orphan-sweep", "abc", "swept")
    assert entries.written == [(DIAGNOSTIC, {"kind": "orphan-sweep", "detail": "swept"})]
    assert sink.counts()["orphan-sweep"] == 1


def test_counts_returns_a_snapshot_mutating_it_does_not_affect_internal_counters(entries: Entries) -> None:
    sink = DiagnosticSink(entries)
    snapshot = sink.counts()
    snapshot["orphan-sweep"] = 99
    assert sink.counts() == ZERO


def test_reset_zeroes_all_counters(entries: Entries) -> None:
    sink = DiagnosticSink(entries)
    sink.report("unresolved-range", "b1", "x")
    sink.report("backfill-empty", "1000", "middles=0")
    sink.reset()
    assert sink.counts() == ZERO


def test_reset_allows_a_previously_seen_kind_and_dedup_key_to_report_again(entries: Entries) -> None:
    sink = DiagnosticSink(entries)
    sink.report("unresolved-range", "b1", "x")
    sink.reset()
    sink.report("unresolved-range", "b1", "x")
    assert len(entries.written) == 2
    assert sink.counts()["unresolved-range"] == 1


def test_counts_backfill_empty_like_any_other_kind(entries: Entries) -> None:
    sink = DiagnosticSink(entries)
    sink.report("backfill-empty", "1000", "middles=2")
    sink.report("backfill-empty", "1000", "middles=2")
    assert sink.counts() == {**ZERO, "backfill-empty": 1}
    assert entries.written == [(DIAGNOSTIC, {"kind": "backfill-empty", "detail": "middles=2"})]


# ------------------------------------------------------------------------------ footer suffix


def test_status_suffix_is_empty_when_all_counts_are_zero() -> None:
    assert status_suffix(ZERO) == ""
    assert status_suffix({}) == ""


def test_status_suffix_counts_every_kind_and_points_to_the_status() -> None:
    counts: dict[DiagnosticKind, int] = {
        "backfill-empty": 2, "orphan-sweep": 1, "range-id-mismatch": 0, "unresolved-range": 2}
    assert status_suffix(counts) == " · 5 warnings (/pruner status)"
    assert status_suffix({**ZERO, "range-id-mismatch": 3}) == " · 3 warnings (/pruner status)"
