"""The footer's pruning figure, as a user reads it beside the context figure: what the model reads now
and what pruning saves, in the same tokens, refreshed as soon as `/pruner now` has summarised, with the
diagnostic counters shown in every state while one is non-zero."""

from __future__ import annotations

import re

FIGURE = re.compile(r"│ prune: ON · reads (\S+) · saves (\S+) \(-(\d+)%\)")


def tokens(text: str) -> tuple[int, int]:
    """A footer figure back to a count, with how far the rounding may be off."""
    if text.endswith("k"):
        return round(float(text[:-1]) * 1000), 50 if "." in text else 500
    return int(text), 0


async def on_demand_task(app, pilot, send, wait) -> None:
    await wait(pilot)
    engine = app.runtime.engine
    engine.set_config(engine.config.model_copy(update={"prune_on": "on-demand"}))
    await send(pilot, "fix the failing test")


async def test_pruner_now_shows_what_the_model_reads_and_saves_at_once(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await on_demand_task(app, pilot, send, wait)
        assert re.fullmatch(r"│ prune: \d+ pending", app.bridge.statuses["condense"])
        await send(pilot, "/pruner now")
        context = app.runtime.host.context_usage().tokens  # the footer's figure, summaries included
        figure = FIGURE.fullmatch(app.bridge.statuses["condense"])
        assert figure, app.bridge.statuses
        assert app.main.footer.lines(118)[-1].plain == figure[0].removeprefix("│ ")
        (reads, reads_off), (saves, saves_off) = tokens(figure[1]), tokens(figure[2])
        assert saves > 0
        # the same tokens as the context figure: the next request carries the context less the saving
        assert abs(reads + saves - context) <= reads_off + saves_off + 1
        assert abs(int(figure[3]) - saves / context * 100) <= 2


async def test_diagnostic_counters_show_while_work_is_pending(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await on_demand_task(app, pilot, send, wait)
        engine = app.runtime.engine
        engine.diagnostics.report("orphan-sweep", "k1", "swept call_9")
        engine.update_status()
        assert re.fullmatch(r"│ prune: \d+ pending · diag o1", app.bridge.statuses["condense"])


def footer_context(app) -> float:
    """The context figure of the footer's second line, in tokens of the 200k window."""
    percent = re.search(r"(\d+\.\d)%/200k", app.main.footer.lines(118)[1].plain)
    assert percent, app.main.footer.lines(118)
    return float(percent[1]) / 100 * 200_000


async def test_after_a_flush_the_context_figure_is_what_the_model_reads(make_app, send, wait, wait_for) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await on_demand_task(app, pilot, send, wait)
        before = footer_context(app)
        await send(pilot, "/pruner now")
        figure = FIGURE.fullmatch(app.bridge.statuses["condense"])
        assert figure, app.bridge.statuses
        (reads, reads_off), _ = tokens(figure[1]), tokens(figure[2])
        after = footer_context(app)
        assert after < before  # the summaries replaced more than they add
        assert abs(after - reads) <= reads_off + 100  # the footer rounds to 0.1% of 200k
        # a /tree move (here onto the same point): the branch is measured at once, both figures agree again
        await app.runtime.host.navigate(app.runtime.host.session.leaf_id)
        assert FIGURE.fullmatch(app.bridge.statuses["condense"])
        await wait_for(pilot, lambda: FIGURE.fullmatch(app.bridge.statuses["condense"]) is not None)
        reads, reads_off = tokens(FIGURE.fullmatch(app.bridge.statuses["condense"])[1])
        assert abs(footer_context(app) - reads) <= reads_off + 100
