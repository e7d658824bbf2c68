"""The status line's reclaim figure against the host's context figure: what the model reads now (the host's
tokens, less what pruning took out since the request they were reported for) and what pruning saves."""

from __future__ import annotations

import re

from condense.host import ContextUsage
from tests.condense.memory_host import make

BIG = "x" * 8000  # 2,000 tokens by the chars/4 estimate
FIGURE = re.compile(r"│ prune: ON · reads (\S+) · saves (\S+) \(-\d+%\)")


async def test_a_flush_shows_the_saving_at_once_and_the_next_reply_reads_what_the_host_says() -> None:
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
    saved = int(float(figure[2].rstrip("k")) * 1000) if figure[2].endswith("k") else int(figure[2])
    # the next request carries the context less the output: the two figures add up to the host's
    assert saved > 1900 and abs(int(figure[1]) + saved - 2500) <= 50
    await drive.prompt("and now?", 300)
    drive.render()
    await drive.final(400)  # its usage counts the stub, not the output
    host.usage = ContextUsage(1200, 200_000)
    engine.update_status()
    figure = FIGURE.fullmatch(host.status["condense"])
    assert figure and figure[1] == "1.2k", host.status  # exactly the context figure


async def test_a_host_count_below_the_saving_falls_back_to_the_pruned_texts_own_measure() -> None:
    host, engine, drive = make({"prune_on": "on-demand"})
    await drive.prompt("go", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    drive.render()
    await drive.final(200)
    host.usage = ContextUsage(500, 200_000)  # an estimating host counted less than the output alone
    await engine.flush("manual")
    reads = engine.reads_now()
    reclaim = engine.stats.live_reclaim()
    assert reclaim is not None and reads == reclaim.after_chars // 4 > 0  # never a negative context
    figure = FIGURE.fullmatch(host.status["condense"])
    assert figure and int(figure[1]) == reads, host.status
