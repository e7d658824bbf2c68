"""The footer's pruning figure, as a user reads it beside the context figure: what the model reads now
and what pruning saves, in the same tokens, refreshed as soon as `/pruner now` has summarised, with the
diagnostic counters shown in every state while one is non-zero."""

from __future__ import annotations

import re

from condense.measure import estimate_tokens
from pi_tui.screens.picker import PickerScreen
from tests.conftest import corpus_copy
from tests.support.footer import FIGURE, footer_figures, tokens
from tests.support.typed import present


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
        figure = FIGURE.fullmatch(app.bridge.statuses["condense"])
        assert figure, app.bridge.statuses
        assert app.main.footer.lines(118)[-1].plain == figure[0].removeprefix("│ ")
        (reads, reads_off), (saves, _) = tokens(figure[1]), tokens(figure[2])
        assert saves > 0
        # what the next request carries, measured as a request is
        engine = app.runtime.engine
        assert abs(reads - estimate_tokens(engine.full_render(list(app.runtime.host.agent.messages)))) <= reads_off
        assert abs(int(figure[3]) - saves / (reads + saves) * 100) <= 2


async def test_diagnostic_counters_show_while_work_is_pending(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await on_demand_task(app, pilot, send, wait)
        engine = app.runtime.engine
        engine.diagnostics.report("orphan-sweep", "k1", "swept call_9")
        engine.update_status()
        assert re.fullmatch(r"│ prune: \d+ pending · 1 warning \(/pruner status\)", app.bridge.statuses["condense"])


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
        reads, reads_off = tokens(present(FIGURE.fullmatch(app.bridge.statuses["condense"]))[1])
        assert abs(footer_context(app) - reads) <= reads_off + 100


async def test_a_flush_on_a_loaded_session_drops_the_context_figure_to_what_the_model_reads(
        make_app, send, wait, tmp_path) -> None:
    # a recorded session this engine never pruned: nothing is indexed yet
    copy = corpus_copy("pi-large-session.jsonl", tmp_path)
    app = make_app(session=copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        before = footer_context(app)
        await send(pilot, "/pruner now")
        figure = FIGURE.fullmatch(app.bridge.statuses["condense"])
        assert figure, app.bridge.statuses
        reads, reads_off = tokens(figure[1])
        saves, _ = tokens(figure[2])
        after = footer_context(app)
        assert after < before - saves / 2  # the summaries replaced far more than they add
        assert abs(after - reads) <= reads_off + 100


async def test_a_reopened_or_resumed_session_shows_the_figures_it_was_left_with(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "fix the failing test")  # the final reply's flush comes after that reply's usage
        left = footer_figures(app)
        path = app.runtime.host.session.path
        assert FIGURE.fullmatch("│ " + left[1]), left
        await send(pilot, "/new")
        await send(pilot, "/resume", opens=PickerScreen)
        await pilot.press("enter")
        await wait(pilot)
        assert footer_figures(app) == left
    saved = path.read_bytes()
    reopened = make_app(session=path)  # `--session`, and `-c`, which opens the same file
    async with reopened.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        assert footer_figures(reopened) == left
        assert path.read_bytes() == saved  # measuring it wrote nothing
