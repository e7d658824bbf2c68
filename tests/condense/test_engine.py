"""A simulation's hooks (`pi-tui whatif`) are given to the engine when it is built: a batch filter that
keeps work out of a flush, and a look at every summary's prompt and text."""

from __future__ import annotations

from typing import Any

from condense import BatchFilter, SummaryHook
from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.records import Batch
from tests.support.memory_host import SCENARIO_SETTINGS, Driver, MemoryHost, stubbed

BIG = "x" * 1500  # over min_batch_chars


def _drive(host: MemoryHost, batch_filter: BatchFilter | None = None, on_summary: SummaryHook | None = None,
           **settings: Any) -> Driver:
    config = CondenseConfig.model_validate({**SCENARIO_SETTINGS, **settings})
    engine = CondenseEngine(host, config, batch_filter=batch_filter, on_summary=on_summary)
    engine.on_session_start()
    return Driver(host, engine)


async def test_a_batch_filter_given_to_the_engine_keeps_a_batch_out_of_the_flush() -> None:
    host = MemoryHost()
    seen: list[int] = []

    def only_first_turn(batch: Batch) -> bool:
        seen.append(batch.turn_index)
        return batch.turn_index == 0

    drive = _drive(host, batch_filter=only_first_turn)
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.tool_turn(120, [("c2", BIG)])
    await drive.final(200)
    assert 1 in seen, "the filter was asked about the second turn's batch"
    assert stubbed(drive.render()) == ["c1"], "the filtered batch stays raw"
    assert len(host.prompts) == 1 and "c2.py" not in host.prompts[0]


async def test_on_summary_given_to_the_engine_sees_each_summary_prompt_and_text() -> None:
    host = MemoryHost(answer=lambda prompt: "[[1:read]] what c1 held")
    summaries: list[tuple[str, str]] = []
    drive = _drive(host, on_summary=lambda prompt, text: summaries.append((prompt, text)))
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    assert summaries == [(host.prompts[0], "[[1:read]] what c1 held")]


async def test_the_extractive_summariser_still_shows_on_summary_the_prompt_a_model_would_get() -> None:
    host = MemoryHost()
    summaries: list[tuple[str, str]] = []
    drive = _drive(host, on_summary=lambda prompt, text: summaries.append((prompt, text)),
                   summarizer_model="extractive")
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    assert host.prompts == [], "no model call"
    assert len(summaries) == 1 and "c1.py" in summaries[0][0] and summaries[0][1]
