"""`/pruner now` leaves one line in the transcript each time: that there was nothing to do and why, what it
did (summaries, outputs, chains, the tokens the next request saves), or that it failed. Its progress rows
go when it ends, and a toast or the footer alone left no trace of it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from condense import prune_tree
from condense.engine import CondenseEngine
from pi_tui.tui.app import PiApp
from tests.conftest import corpus_copy
from tests.support.tui import transcript_notes


def pruner_lines(app: PiApp) -> list[tuple[str, str]]:
    return [(level, text) for level, text in transcript_notes(app) if "pruner" in text]


async def test_with_no_tool_output_it_says_there_is_nothing_to_do_and_why(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner now")
        assert pruner_lines(app) == [("info", "/pruner now: nothing to do: the conversation has no tool output yet")]
        assert not app._notifications


async def test_after_a_compaction_it_says_the_summary_stands_for_the_tool_work(make_app, send, wait,
                                                                                tmp_path: Path) -> None:
    app = make_app(session=corpus_copy("pi-compact-hooks.jsonl", tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner now")
        assert pruner_lines(app) == [("info", "/pruner now: nothing to do: the model reads no tool output since the "
                                              "compaction, whose summary stands for the work before it")]


async def a_task_left_pending(pilot: Any, send: Any, wait: Any) -> CondenseEngine:
    """The demo's first task done with pruning on demand: its tool work waits for `/pruner now`."""
    await wait(pilot)
    engine: CondenseEngine = pilot.app.runtime.engine
    engine.set_config(engine.config.model_copy(update={"prune_on": "on-demand"}))
    await send(pilot, "fix the failing test")
    return engine


async def test_a_flush_says_what_it_did_and_the_next_one_that_nothing_is_left(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        engine = await a_task_left_pending(pilot, send, wait)
        await send(pilot, "/pruner now")
        tree = prune_tree(engine, app.runtime.host.session.branch_entries())
        [(level, line)] = pruner_lines(app)
        summaries = f"{len(tree.summaries)} {'summary' if len(tree.summaries) == 1 else 'summaries'}"
        assert level == "info" and line.startswith(f"/pruner now: {tree.call_count} tool outputs pruned: {summaries}")
        assert re.search(r"; the next request is ~[\d.]+k? tokens smaller$", line), line
        await send(pilot, "/pruner now")
        assert pruner_lines(app)[-1][1].startswith("/pruner now: nothing to do: none of its ")
        assert f"; {tree.call_count} pruned already (/pruner tree)" in pruner_lines(app)[-1][1]


async def test_a_failed_flush_is_said_once(make_app, send, wait, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        engine = await a_task_left_pending(pilot, send, wait)

        async def broken(*_: Any, **__: Any) -> Any:
            raise OSError("No space left on device")

        monkeypatch.setattr(engine.flusher, "run", broken)
        await send(pilot, "/pruner now")
        await wait(pilot)
        assert pruner_lines(app) == [("error", "pruner: flush failed: No space left on device")]
