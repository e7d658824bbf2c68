"""A flush where the prompt cache is cold anyway (condense/engine.py, `before_request`): a request sent
more than `cold_cache_ms` after the previous one, or the first after a session opens, rewrites the whole
prompt, so pending work is flushed before it rather than sent whole."""

from __future__ import annotations

from condense.host import ContextUsage
from tests.support.memory_host import MemoryHost, assistant, call, make, result, stubbed, user

BIG = "x" * 1500
MINUTE = 60_000
DEFERRED = {"min_flush_chars": 10_000_000}  # final replies leave work pending, as a deferred flush does


def resumed_branch(host: MemoryHost) -> None:
    """A session that ran without condense: two read turns, the second's result not yet answered."""
    host.add_message(user("read them", 100))
    host.add_message(assistant(110, call("old")))
    host.add_message(result("old", BIG, 120))
    host.add_message(assistant(130, call("new")))
    host.add_message(result("new", BIG + "2", 140))
    host.usage = ContextUsage(190_000, 200_000)


async def test_a_resumed_session_is_flushed_before_its_first_request_but_not_its_unread_output() -> None:
    host, engine, drive = make()
    resumed_branch(host)
    engine.on_session_start()
    await engine.before_request(10 * MINUTE)
    assert host.custom("context-prune-flush-metrics")[-1]["trigger"] == "cold-cache"
    assert stubbed(drive.render()) == ["old"], "the result after the last reply was never read: it stays"


async def test_a_warm_cache_waits_and_a_cold_one_flushes() -> None:
    host, engine, drive = make(DEFERRED)
    await drive.prompt("go", 0)
    await drive.tool_turn(1_000, [("c1", BIG)])
    await drive.final(2_000)
    assert stubbed(drive.render()) == [], "the final reply's flush was deferred"
    await engine.before_request(2_000 + 4 * MINUTE)
    assert host.custom("context-prune-flush-metrics") == [], "the cache is still warm: a flush would bust it"
    await engine.before_request(2_000 + 4 * MINUTE + 5 * MINUTE + 1)
    assert host.custom("context-prune-flush-metrics")[-1]["trigger"] == "cold-cache"
    assert stubbed(drive.render()) == ["c1"]


async def test_cold_cache_zero_never_flushes_before_a_request() -> None:
    host, engine, drive = make({**DEFERRED, "cold_cache_ms": 0})
    await drive.prompt("go", 0)
    await drive.tool_turn(1_000, [("c1", BIG)])
    await drive.final(2_000)
    await engine.before_request(2_000 + 60 * MINUTE)
    assert host.custom("context-prune-flush-metrics") == [] and stubbed(drive.render()) == []


async def test_nothing_pending_means_no_flush_even_when_cold() -> None:
    host, engine, drive = make()
    await drive.prompt("go", 0)
    await drive.tool_turn(1_000, [("c1", BIG)])
    await drive.final(2_000)
    flushes = len(host.custom("context-prune-flush-metrics"))
    await engine.before_request(2_000 + 60 * MINUTE)
    assert len(host.custom("context-prune-flush-metrics")) == flushes
