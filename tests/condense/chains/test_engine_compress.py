"""The engine's chain compression over a growing session: a flush asks whether a reload would find a chain's
outputs again (`ChainOutputs`), on a walk of the branch kept from flush to flush, so a long session's flushes
read only what grew (a fresh walk per flush made replaying 16,000 messages quadratic); and what it says."""

from __future__ import annotations

import json
from typing import Any

import pytest

from condense.chains import derive, detect
from tests.support.memory_host import SMALL_OUTPUT, make


async def test_the_flushes_of_a_growing_session_read_each_entry_of_its_branch_a_few_times_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    read = 0
    walk = detect.branch_messages

    def counted(entries: Any) -> list[dict[str, Any]]:
        nonlocal read
        read += len(entries)
        return walk(entries)

    monkeypatch.setattr(detect, "branch_messages", counted)
    monkeypatch.setattr(derive, "branch_messages", counted)
    host, _, drive = make({"chain_compression": {"rolling_window": 0}})
    chains = 30
    for n in range(chains):
        await drive.round(n, SMALL_OUTPUT + str(n))
    assert len(host.custom("context-prune-chain")) == chains
    assert read <= 4 * len(host.entries), f"{read} entries read for a branch of {len(host.entries)}"


async def test_compressing_many_chains_at_once_says_so_in_a_short_line() -> None:
    """`/pruner now` on a long session compresses a thousand chains: the notice names the first and the
    last block, not all of them (a toast of 1,183 ids covered two thirds of the screen)."""
    host, engine, drive = make({"chain_compression": {"rolling_window": 100}})
    for n in range(5):
        await drive.round(n, SMALL_OUTPUT + str(n))
    assert await engine.compress(0) == ["b1", "b2", "b3", "b4", "b5"]
    assert ("info", "pruner: compressed 5 chains (b1 to b5)") in host.notices


async def test_a_task_too_small_to_gain_from_compression_stays_as_it_is() -> None:
    """One short read: its `<compressed-chain>` block would be bigger than the call and output it drops,
    and the model would lose the file it read a turn ago. A task of more stays compressed as before."""
    host, _, drive = make({"chain_compression": {"rolling_window": 0, "min_chars": 500}})
    await drive.round(0, "x = 1\n")
    await drive.round(1, SMALL_OUTPUT * 10)
    [entry] = host.custom("context-prune-chain")
    assert entry["startUserTimestamp"] == 1100, "only the second task, of 1,200 characters, is compressed"
    rendered = json.dumps(drive.render())
    assert '"x = 1\\n"' in rendered and rendered.count("<compressed-chain") == 1


async def test_a_small_task_left_raw_is_compressed_once_the_minimum_is_lowered() -> None:
    host, engine, drive = make({"chain_compression": {"rolling_window": 0, "min_chars": 500}})
    await drive.round(0, "x = 1\n")
    assert not host.custom("context-prune-chain")
    chains = engine.config.chain_compression.model_copy(update={"min_chars": 0})
    engine.set_config(engine.config.model_copy(update={"chain_compression": chains}))
    assert await engine.compress(0) == ["b1"]
