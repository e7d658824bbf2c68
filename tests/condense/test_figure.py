"""The context figure's one owner: which count the footer and the status line's `reads` show, in each case
a past fix of the figure handled (a flush since the last reply, the next reply, a compacted branch, a
session opened before or after its last flush, pruning off)."""

from __future__ import annotations

from condense.figure import ContextFigure
from condense.host import ContextUsage
from condense.measure import estimate_from_chars
from condense.stats import PruneStats
from tests.support.memory_host import make

WINDOW = 200_000


def figure_after(before_chars: int, after_chars: int) -> tuple[ContextFigure, PruneStats]:
    stats = PruneStats()
    stats.set_live_reclaim(before_chars, after_chars)
    return ContextFigure(stats), stats


def test_the_hosts_count_stands_while_it_holds_the_saving_pruning_has_now() -> None:
    figure, _ = figure_after(40_000, 8_000)  # 8,000 tokens saved
    figure.count()  # the reply's request had that saving
    assert figure.shown(ContextUsage(3_000, WINDOW)) == ContextUsage(3_000, WINDOW)
    assert figure.status_reads(ContextUsage(3_000, WINDOW)) == 3_000


def test_nothing_pruned_yet_shows_the_hosts_count() -> None:
    figure = ContextFigure(PruneStats())
    assert figure.shown(ContextUsage(1_234, WINDOW)) == ContextUsage(1_234, WINDOW)


def test_after_a_flush_it_is_the_estimate_of_the_next_request_until_a_reply_counts_it() -> None:
    figure, stats = figure_after(40_000, 40_000)
    figure.count()  # the last reply: nothing saved then
    stats.set_live_reclaim(40_000, 8_000)  # a flush: the next request carries 8,000 characters
    host = ContextUsage(10_500, WINDOW)
    assert figure.shown(host) == ContextUsage(estimate_from_chars(8_000), WINDOW)  # not 10,500 less the saving
    figure.count()  # the next reply's usage counts the stubs
    assert figure.shown(ContextUsage(2_600, WINDOW)) == ContextUsage(2_600, WINDOW)


def test_a_host_count_smaller_than_the_saving_never_goes_negative() -> None:
    """The demo's estimate of a recorded session counts fewer tokens than pruning took out."""
    figure, stats = figure_after(400_000, 400_000)
    figure.count()
    stats.set_live_reclaim(400_000, 4_000)
    reads = figure.reads(ContextUsage(500, WINDOW))
    assert reads == estimate_from_chars(4_000) and reads > 0


def test_an_unknown_count_stays_unknown_but_the_status_line_still_reads_the_estimate() -> None:
    """After a compaction the footer shows `?` until a newer reply reports usage."""
    figure, stats = figure_after(40_000, 40_000)
    figure.count()
    stats.set_live_reclaim(40_000, 8_000)
    unknown = ContextUsage(None, WINDOW)
    assert figure.shown(unknown) == unknown
    assert figure.status_reads(unknown) == estimate_from_chars(8_000)
    assert figure.shown(None) is None and figure.status_reads(None) == estimate_from_chars(8_000)


def test_a_session_opened_after_its_last_flush_shows_the_estimate_it_was_left_with() -> None:
    """Its last reply's request had the saving measured on the branch as it was then, not today's."""
    figure, _ = figure_after(40_000, 8_000)
    figure.reset()
    figure.count(2_000)  # the saving of the branch before the final reply's flush
    assert figure.shown(ContextUsage(9_000, WINDOW)) == ContextUsage(estimate_from_chars(8_000), WINDOW)


def test_a_session_opened_with_no_reply_counts_no_saving() -> None:
    """The host estimates a conversation without a reply unpruned."""
    figure, _ = figure_after(40_000, 8_000)
    figure.count(0)
    assert figure.reads(ContextUsage(10_000, WINDOW)) == estimate_from_chars(8_000)


def test_after_a_reload_the_first_measure_is_what_the_last_reply_had() -> None:
    figure, stats = figure_after(40_000, 8_000)
    figure.reset()
    known_after_reset = figure.known
    assert not known_after_reset
    figure.count_if_unknown()  # the first render since the reload
    assert figure.known and figure.reads(ContextUsage(2_500, WINDOW)) == 2_500
    stats.set_live_reclaim(40_000, 4_000)
    figure.count_if_unknown()  # known already: a later measure is a flush's, not the reply's
    assert figure.reads(ContextUsage(2_500, WINDOW)) == estimate_from_chars(4_000)


async def test_with_pruning_off_the_engine_shows_the_hosts_count() -> None:
    host, engine, drive = make({"prune_on": "on-demand"})
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", "x" * 8000)])
    drive.render()
    await drive.final(200)
    await engine.flush("manual")
    host.usage = ContextUsage(2_500, WINDOW)
    assert engine.context_figure() != host.usage  # the flush changed what the next request carries
    engine.set_config(engine.config.model_copy(update={"enabled": False}))
    assert engine.context_figure() == host.usage
