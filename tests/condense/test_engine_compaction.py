"""Past the point where even the pruned request no longer fits the model's window, pruning cannot help:
the engine falls back to the host's compaction (Pi's), said in one line."""

from __future__ import annotations

from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.host import ContextUsage
from tests.support.memory_host import Driver, MemoryHost

WINDOW = 40_000  # less Pi's 16,384-token reserve for the reply: 23,616 tokens may be sent


class CompactingMemoryHost(MemoryHost):
    def __init__(self) -> None:
        super().__init__()
        self.compactions = 0
        self.usage = ContextUsage(30_000, WINDOW)

    async def compact(self) -> bool:
        self.compactions += 1
        return True


def started(host: MemoryHost) -> Driver:
    engine = CondenseEngine(host, CondenseConfig())
    engine.on_session_start()
    return Driver(host, engine)


async def test_a_pruned_request_over_the_window_is_compacted_by_the_host_said_in_one_line() -> None:
    host = CompactingMemoryHost()
    drive = started(host)
    await drive.prompt("word " * 16_000, 1)  # 80,000 characters a user wrote: nothing to prune
    await drive.final(10)
    assert host.compactions == 1
    [(level, line)] = [notice for notice in host.notices if "Pi's compaction" in notice[1]]
    assert level == "warning" and "\n" not in line
    assert line.startswith("pruner: even pruned, the next request (28,267 tokens) does not fit the 40,000-token")


async def test_a_request_that_fits_is_sent_as_it_is() -> None:
    host = CompactingMemoryHost()
    drive = started(host)
    await drive.prompt("fix the failing test", 1)
    await drive.final(10)
    assert host.compactions == 0 and not any("Pi's compaction" in text for _, text in host.notices)


async def test_a_host_without_compaction_is_left_to_send_it() -> None:
    host = MemoryHost()
    host.usage = ContextUsage(30_000, WINDOW)
    drive = started(host)
    await drive.prompt("word " * 16_000, 1)
    await drive.final(10)
    assert not any("compacting" in text for _, text in host.notices)


async def test_a_small_window_keeps_room_for_the_request_not_just_pis_reserve() -> None:
    """Pi's 16,384-token reply reserve is all of a 16k window: half of it is reserved instead, so a
    short conversation is sent as it is, and one past the rest still compacts."""
    host = CompactingMemoryHost()
    host.usage = ContextUsage(3_000, 16_000)
    drive = started(host)
    await drive.prompt("fix the failing test", 1)
    await drive.final(10)
    assert host.compactions == 0 and not any("Pi's compaction" in text for _, text in host.notices)
    host.usage = ContextUsage(13_000, 16_000)
    await drive.prompt("word " * 16_000, 20)
    await drive.final(30)
    assert host.compactions == 1


async def test_a_model_that_answers_in_few_tokens_keeps_only_those_free_of_its_window() -> None:
    """A 32k model asked for replies of at most 4,096 tokens: a 21k-token request fits, and saying it does
    not (with Pi's 16,384-token reserve) sent it to a compaction it did not need."""
    for usage, compactions in ((ContextUsage(20_000, 32_000, 4_096), 0), (ContextUsage(20_000, 32_000), 1)):
        host = CompactingMemoryHost()
        host.usage = usage
        drive = started(host)
        await drive.prompt("word " * 12_000, 1)
        await drive.final(10)
        assert host.compactions == compactions, usage
