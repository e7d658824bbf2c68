"""The footer segment (`src/commands.test.ts`: pruneStatusText, setPruneStatusWidget, diagnostics on the
status line).

One deliberate change from the reference (issue 12): instead of `92.0k->14.0k`, a chars/4 estimate of
part of the request set beside a context figure counted in real tokens, the segment says what the model
reads now (the host's context figure) and what pruning saves, in the footer's token units.

Not here: the context-metrics suffix (` · think … · gap … · chain …%`), which upstream removed in 2.9.2
as noise and we do not implement; and "clears (no wrap) when the status line is hidden", which is the
engine's choice of calling `set_status(key, None)` and is tested with the engine.
"""

from __future__ import annotations

from condense.diagnostics import DiagnosticKind, DiagnosticSink
from condense.stats import Reclaim, status_line, status_text

NO_DIAGNOSTICS: dict[DiagnosticKind, int] = {
    "unresolved-range": 0, "range-id-mismatch": 0, "orphan-sweep": 0, "backfill-empty": 0}
SOME: dict[DiagnosticKind, int] = {**NO_DIAGNOSTICS, "unresolved-range": 2, "orphan-sweep": 1}
RECLAIM = Reclaim(before_chars=368_000, after_chars=56_000)


# ------------------------------------------------------------------------------ prune status text


def test_disabled_reads_prune_off() -> None:
    assert status_text(False, RECLAIM, SOME) == "prune: OFF"


def test_enabled_without_reclaim_reads_prune_on() -> None:
    assert status_text(True, None, None) == "prune: ON"


def test_zero_before_and_after_reads_prune_on_without_division_by_zero() -> None:
    assert status_text(True, Reclaim(0, 0), None) == "prune: ON"


def test_reclaim_shows_estimated_tokens_and_the_saving() -> None:
    assert status_text(True, RECLAIM, None) == "prune: ON · reads 14k · saves 78k (-85%)"


def test_what_the_model_reads_is_the_hosts_context_figure_and_the_saving_adds_to_it() -> None:
    # the complaint: `2.3k->993` beside a context of 8.6k; now both sides count the same tokens
    status = status_text(True, Reclaim(before_chars=9_200, after_chars=3_972), None, reads_tokens=8_600)
    assert status == "prune: ON · reads 8.6k · saves 1.3k (-13%)"


def test_figures_use_the_footers_units() -> None:
    assert status_text(True, Reclaim(4_000_000, 0), None, reads_tokens=12_499) == \
        "prune: ON · reads 12k · saves 1.0M (-99%)"


def test_no_change_reads_minus_0_percent() -> None:
    assert status_text(True, Reclaim(100, 100), None) == "prune: ON · reads 25 · saves 0 (-0%)"


def test_an_expansion_is_clamped_to_minus_0_percent() -> None:
    assert status_text(True, Reclaim(100, 400), None).endswith("(-0%)")


def test_token_estimates_round_half_up() -> None:
    # 10 chars is 2.5 tokens: 3, as in Pi (Python's round() would give 2).
    assert status_text(True, Reclaim(10, 2), None) == "prune: ON · reads 1 · saves 2 (-67%)"


# --------------------------------------------------------------------------------- status widget


def test_prefixes_every_rendered_state_with_a_single_leading_bar() -> None:
    assert status_line(status_text(False, None, None)) == "│ prune: OFF"
    assert status_line(status_text(True, None, None)) == "│ prune: ON"
    assert status_line(status_text(True, RECLAIM, None)) == "│ prune: ON · reads 14k · saves 78k (-85%)"


def test_prefixes_string_progress_values_too() -> None:
    assert status_line("prune: 3 pending") == "│ prune: 3 pending"


# ------------------------------------------------------------------------ diagnostics on status line


def test_all_zero_diagnostics_add_no_segment() -> None:
    assert status_text(True, None, NO_DIAGNOSTICS) == "prune: ON"


def test_nonzero_diagnostics_append_a_warnings_segment() -> None:
    assert status_text(True, None, SOME) == "prune: ON · 3 warnings (/pruner status)"


def test_diagnostics_follow_the_reclaim_ratio() -> None:
    assert status_text(True, RECLAIM, SOME) == "prune: ON · reads 14k · saves 78k (-85%) · 3 warnings (/pruner status)"


def test_the_widget_forwards_the_sinks_counters() -> None:
    sink = DiagnosticSink(lambda _type, _data: None)
    sink.report("unresolved-range", "b1", "blockId=b1 start=1 final=2")
    assert status_line(status_text(True, None, sink.counts())) == "│ prune: ON · 1 warning (/pruner status)"


def test_appends_b_n_for_backfill_empty_alongside_u_m_o() -> None:
    assert status_text(True, None, {**SOME, "backfill-empty": 2}) == "prune: ON · 5 warnings (/pruner status)"
