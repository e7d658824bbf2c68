"""`/tree` to an earlier entry keeps condense's work for every output the new branch still holds.

The host's branch is cut back to an earlier entry, as Pi's tree navigation shows it to an extension: the
entries after it (the summaries and index records a later flush wrote) are on the branch left behind.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from condense.engine import CondenseEngine
from condense.fold import FOLD
from condense.inspect import chain_marks, prune_tree
from condense.record_bursts import expanded, records_of
from condense.records import CARRIED, CHAIN, FRONTIER, INDEX, SUMMARY
from tests.support.memory_host import Driver, MemoryHost, make, stubbed

BIG = "line of output\n" * 100  # 1,500 characters: over min_batch_chars


def big(name: str) -> str:
    """An output over min_batch_chars that no other output repeats."""
    return f"{name}: line of output\n" * 100


def _go_back_to(host: MemoryHost, keep: int) -> None:
    """Make the first `keep` entries the branch, as `/tree` to the entry at `keep - 1` does."""
    del host.entries[keep:]


def _position(host: MemoryHost, role: str, stamp: int) -> int:
    return next(i for i, e in enumerate(host.entries) if e.get("type") == "message"
                and e["message"]["role"] == role and e["message"]["timestamp"] == stamp)


def _summarised(host: MemoryHost) -> Counter[str]:
    """How often each output is named by a summary on the branch."""
    return Counter(ref["toolCallId"] for e in host.entries if e.get("customType") == SUMMARY
                   for ref in e["details"]["toolCallRefs"])


async def _read_both(config: dict[str, Any] | None = None) -> tuple[MemoryHost, CondenseEngine, Driver]:
    """A task that read two big outputs and ended: its final reply flushed them."""
    host, engine, drive = make(config)
    await drive.prompt("read both", 100)
    await drive.tool_turn(110, [("c1", big("c1")), ("c2", big("c2"))])
    await drive.final(200)
    return host, engine, drive


async def _back_before_the_flush(host: MemoryHost, engine: CondenseEngine) -> None:
    """`/tree` to the final reply: the summary and records its flush wrote are on the branch left behind."""
    _go_back_to(host, _position(host, "assistant", 200) + 1)
    await engine.on_session_tree()


async def test_a_flush_done_at_a_later_leaf_is_kept_and_nothing_is_summarised_twice() -> None:
    host, engine, drive = await _read_both()
    assert len(host.prompts) == 1 and stubbed(drive.render()) == ["c1", "c2"]
    await _back_before_the_flush(host, engine)
    assert stubbed(drive.render()) == ["c1", "c2"], "still stubs, at once"
    assert engine.index.get_short_ref("c1@111") == "t1" and engine.index.get_short_ref("c2@112") == "t2"
    await drive.prompt("and the third", 300)
    await drive.tool_turn(310, [("c3", big("c3"))])
    await drive.final(400)
    assert len(host.prompts) == 2, "only the new output went to the summariser"
    assert "c1" not in host.prompts[1] and "c3" in host.prompts[1]
    assert _summarised(host) == {"c1": 1, "c2": 1, "c3": 1}
    assert stubbed(drive.render()) == ["c1", "c2", "c3"]
    assert engine.index.get_short_ref("c3@311") == "t3"



async def test_what_this_run_paid_the_summariser_stays_this_runs_after_the_switch() -> None:
    """`/tree` back before the flush: the branch's own snapshot has no calls yet, but the money is spent
    (`/pruner stats` said "$0.000 this session" after a switch)."""
    host, engine, _ = await _read_both()
    spent = engine.stats.session_delta()
    assert spent.total_cost > 0
    await _back_before_the_flush(host, engine)
    assert engine.stats.session_delta() == spent

async def test_a_reload_of_the_new_branch_finds_the_same_work() -> None:
    host, engine, drive = await _read_both()
    await _back_before_the_flush(host, engine)
    carried = drive.render()
    engine.on_session_start()
    assert drive.render() == carried
    assert engine.query(["t2"])[0].endswith("\n\n" + big("c2"))


async def test_a_summary_half_on_the_new_branch_is_kept_for_that_half_only() -> None:
    host, engine, drive = make({"batching_mode": "agent-message"})
    await drive.prompt("read both", 100)
    await drive.tool_turn(110, [("c1", big("c1"))])
    await drive.tool_turn(120, [("c2", big("c2"))])
    await drive.final(200)
    assert len(host.prompts) == 1
    _go_back_to(host, _position(host, "toolResult", 111) + 1)  # c1's output; c2 was never called here
    await engine.on_session_tree()
    assert _summarised(host) == {"c1": 1}
    assert stubbed(drive.render()) == ["c1"]
    assert engine.query(["t1"])[0].endswith("\n\n" + big("c1"))
    assert engine.index.get_record("t2") is None


async def test_a_compressed_chain_on_the_new_branch_stays_compressed() -> None:
    host, engine, drive = await _read_both({"chain_compression": {"rolling_window": 0}})
    [chain] = host.custom(CHAIN)
    before = drive.render()
    await _back_before_the_flush(host, engine)
    assert host.custom(CHAIN) == [chain]
    assert drive.render() == before
    assert "chains:       1 compressed" in engine.stats.describe(engine.chains.entries()), "/pruner stats says so"


async def test_a_chain_cut_by_the_switch_is_left_behind_and_its_outputs_keep_their_summary() -> None:
    host, engine, drive = await _read_both({"chain_compression": {"rolling_window": 0}})
    _go_back_to(host, _position(host, "toolResult", 112) + 1)  # the chain's final reply is not on the branch
    await engine.on_session_tree()
    assert host.custom(CHAIN) == [] and len(engine.chains) == 0
    assert stubbed(drive.render()) == ["c1", "c2"]


async def test_a_repeated_output_keeps_pointing_at_its_original() -> None:
    host, engine, drive = make()
    await drive.prompt("read", 100)
    await drive.tool_turn(110, [("c1", BIG)])
    await drive.final(200)
    await drive.prompt("again", 300)
    await drive.tool_turn(310, [("c9", BIG)])
    await drive.final(400)
    _go_back_to(host, _position(host, "assistant", 400) + 1)
    await engine.on_session_tree()
    assert engine.index.aliases() == {"c9@311": "c1@111"}
    assert stubbed(drive.render()) == ["c1", "c9"]


async def test_the_frontier_reached_on_the_old_branch_is_kept_when_it_lies_on_the_new_one() -> None:
    host, engine, drive = make()
    await drive.prompt("small work", 100)
    await drive.tool_turn(110, [("c1", "tiny")])  # too small to summarise: the frontier moves past it
    await drive.final(200)
    frontier = engine.flusher.frontier
    assert frontier is not None and frontier.outcome == "skipped-trivial"
    await _back_before_the_flush(host, engine)
    assert engine.flusher.frontier == frontier
    assert [data for data in host.custom(FRONTIER)] == [frontier.to_json()]


async def test_switching_to_the_branch_that_holds_the_work_writes_nothing() -> None:
    host, engine, _ = await _read_both()
    count = len(host.entries)
    await engine.on_session_tree()
    assert len(host.entries) == count


def _kinds(host: MemoryHost) -> list[Any]:
    return [e.get("customType") for e in expanded(host.entries) if e.get("customType") in (SUMMARY, INDEX)]


async def test_each_summary_is_written_before_the_records_that_stub_its_outputs() -> None:
    host, engine, _ = await _read_both({"index_copies": True})
    keep = _position(host, "assistant", 200) + 1
    _go_back_to(host, keep)
    await engine.on_session_tree()
    assert [e.get("customType") for e in expanded(host.entries[keep:])][:2] == [SUMMARY, INDEX]


async def test_a_read_stale_only_on_the_old_branch_is_shown_whole_on_the_new_one() -> None:
    host, engine, drive = make({"superseded_reads": True})
    await drive.prompt("fix r1.py", 100)
    await drive.tool_turn(200, [("r1", big("r1"))])
    await drive.edit(300, "r1.py")
    await drive.final(400)
    assert [r.key for r in engine.index.records() if r.superseded_by] == ["r1@201"]
    _go_back_to(host, _position(host, "toolResult", 201) + 1)  # the edit is not on the new branch
    await engine.on_session_tree()
    [output] = [m for m in drive.render() if m.get("role") == "toolResult"]
    assert output["content"][0]["text"] == big("r1"), "whether a read is stale depends on the branch"


async def test_a_carried_summary_stands_for_the_records_of_its_outputs_as_a_flushs_does() -> None:
    """No index record is carried for outputs a carried summary names by call id and result time: a
    rebuild indexes them at the summary, as it does a flush's."""
    host, engine, drive = await _read_both()
    await _back_before_the_flush(host, engine)
    [summary] = [e for e in host.entries if e.get("customType") == SUMMARY]
    assert summary["details"]["indexed"] is True and host.custom(INDEX) == []
    reloaded = CondenseEngine(host, engine.config)
    reloaded.on_session_start()
    assert reloaded.render(host.messages()) == drive.render()
    assert [reloaded.query([ref]) for ref in ("t1", "t2")] == [engine.query([ref]) for ref in ("t1", "t2")]


async def test_a_host_that_reads_entries_by_id_gets_the_chains_named_where_the_branch_left_behind_holds_them(
        ) -> None:
    """Pi's `/tree` tells the leaf left behind: the chain record stays there and the new branch names it
    (the compressed chains of a long session were a third of what `/tree` and a flush added to pi-large)."""
    host, engine, drive = await _read_both({"chain_compression": {"rolling_window": 0}})
    [chain] = host.custom(CHAIN)
    before, left = drive.render(), host.entries[-1]["id"]
    _go_back_to(host, _position(host, "assistant", 200) + 1)
    await engine.on_session_tree(left)
    assert host.custom(CHAIN) == [] and [c.block_id for c in engine.chains] == ["b1"]
    [carried] = host.custom(CARRIED)
    assert host.memory.entry(carried["entry"]) is not None and carried["entry"] not in [e["id"] for e in host.entries]
    assert drive.render() == before
    assert list(records_of(host.entries, CHAIN, host.entry)) == [chain]
    assert [mark.block for mark in chain_marks(host.entries, host.entry).values()] == ["b1"], "the transcript's mark"
    assert [view.block for view in prune_tree(engine, host.entries).chains] == ["b1"], "/pruner tree's row"
    reloaded = CondenseEngine(host, engine.config)
    reloaded.on_session_start()
    assert reloaded.render(host.messages()) == before
    assert [reloaded.query([ref]) for ref in ("t1", "t2", "b1")] == [engine.query([ref]) for ref in ("t1", "t2", "b1")]
    alone = CondenseEngine(MemoryHost(), engine.config)  # a host that cannot read them: the chain is not there
    alone.host.entries[:] = host.entries  # type: ignore[attr-defined]
    alone.on_session_start()
    assert len(alone.chains) == 0


def _read(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """What the model reads of each message (two runs differ in the times their summaries were written)."""
    return [(m["role"], json.dumps(m["content"])) for m in messages]


async def _folded_then_back(left: bool) -> tuple[MemoryHost, CondenseEngine, Driver]:
    """Four requests, the oldest folded out of view (f1, then f2), then `/tree` back to the third's end."""
    host, engine, drive = make({"fold_keep_turns": 1, "fold_min_chars": 1})
    for n in range(4):
        await drive.prompt(f"request {n}", 1000 * (n + 1))
        await drive.tool_turn(1000 * (n + 1) + 10, [(f"r{n}", big(f"r{n}"))])
        await drive.final(1000 * (n + 1) + 500)
    leaf = host.entries[-1]["id"]
    _go_back_to(host, _position(host, "assistant", 3500) + 1)
    await engine.on_session_tree(leaf if left else None)
    return host, engine, drive


async def test_a_fold_carried_is_named_where_the_branch_left_behind_holds_it() -> None:
    host, engine, drive = await _folded_then_back(left=True)
    copied, _, copied_drive = await _folded_then_back(left=False)
    assert host.custom(FOLD) == [] and len(copied.custom(FOLD)) == 2
    assert [len(carried["records"]) for carried in host.custom(CARRIED)] == [1, 1, 1], "a chain, f1 and f2"
    assert [f.ref for f in engine.history_fold.folds] == ["f1", "f2"]
    assert _read(drive.render()) == _read(copied_drive.render()), "as with copies"
    reloaded = CondenseEngine(host, engine.config)
    reloaded.on_session_start()
    assert reloaded.render(host.messages()) == drive.render()
    assert [reloaded.folded_transcript(ref) for ref in ("f1", "f2")] == [
        engine.folded_transcript(ref) for ref in ("f1", "f2")]
