"""The status line's reclaim figure against the host's context figure: what the model reads now (the host's
tokens while they were reported for a request with the saving pruning has now, else the estimate of the
next request) and what pruning saves."""

from __future__ import annotations

import re

from condense.host import ContextUsage
from condense.measure import estimate_tokens
from condense.stats import format_tokens
from tests.support.memory_host import make

BIG = "x" * 8000  # 2,000 tokens by the chars/4 estimate
FIGURE = re.compile(r"│ prune: ON · reads (\S+) · saves (\S+) \(-\d+%\)")


def next_request(engine) -> int:
    """The estimate of the next request, as a request is measured: the host's messages, pruned."""
    return estimate_tokens(engine.full_render(engine.host.context_messages()))


async def test_a_flush_shows_the_next_request_at_once_and_the_next_reply_reads_what_the_host_says() -> None:
    host, engine, drive = make({"prune_on": "on-demand"})
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    drive.render()  # the request that reads the output whole
    await drive.final(200)
    host.usage = ContextUsage(2500, 200_000)  # what the host reports after that reply
    engine.update_status()
    assert host.status["condense"] == "│ prune: 1 pending"
    await engine.flush("manual")
    figure = FIGURE.fullmatch(host.status["condense"])
    assert figure, host.status
    # not the host's figure less the saving (another count of other text): what the next request carries
    assert figure[1] == format_tokens(next_request(engine)) and next_request(engine) < 2500 and figure[2] == "2.0k"
    await drive.prompt("and now?", 300)
    drive.render()
    await drive.final(400)  # its usage counts the stub, not the output
    host.usage = ContextUsage(1200, 200_000)
    engine.update_status()
    figure = FIGURE.fullmatch(host.status["condense"])
    assert figure and figure[1] == "1.2k", host.status  # exactly the context figure


async def test_with_no_context_figure_a_flush_still_shows_what_the_next_request_reads() -> None:
    host, engine, drive = make({"prune_on": "on-demand"})
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    drive.render()
    await drive.final(200)
    host.usage = ContextUsage(None, 200_000)  # after a compaction, until a reply reports usage
    await engine.flush("manual")
    assert engine.context_figure() == ContextUsage(None, 200_000)  # the host keeps showing `?`
    figure = FIGURE.fullmatch(host.status["condense"])
    assert figure and figure[1] == format_tokens(next_request(engine)), host.status


async def test_a_flush_says_how_many_summaries_it_has_of_how_many_while_it_runs() -> None:
    """A long session resumed with work pending waits on hundreds of summaries before its first request:
    the status line counts them as they come."""
    host, engine, drive = make({"prune_on": "on-demand"})
    await drive.prompt("go", 100)
    for turn in range(3):
        await drive.tool_turn(110 + 10 * turn, [(f"c{turn}", BIG + str(turn))])
    await drive.final(200)
    seen: list[str] = []
    set_status = host.set_status

    def recorded(key: str, text: str | None) -> None:
        seen.append(text or "")
        set_status(key, text)

    host.set_status = recorded  # type: ignore[method-assign]  # the lines as they were shown
    await engine.flush("manual")
    counts = [line for line in seen if "summarizing" in line]
    assert counts == [f"│ prune: summarizing {done}/3…" for done in range(4)]
    assert "summarizing" not in host.status["condense"], "the figure again once it is done"
