"""Index records that refer to their output's own entry instead of copying it: a pruned session file grows
by a few percent, and every output still comes back, from the entry, after a reload."""

from __future__ import annotations

import json
from typing import Any

from condense.capture import Turn
from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.index import MISSING_OUTPUT, ToolCallIndexer
from condense.records import INDEX, ToolCallRecord
from tests.support.memory_host import (
    SCENARIO_SETTINGS,
    SMALL_OUTPUT,
    MemoryHost,
    assistant,
    call,
    make,
    result,
    user,
)
from tests.support.session_checks import index_records

OUTPUT = "def total(cart):\n    return sum(line.price for line in cart)\n" * 200  # 12,000 characters


def _message(message: Any) -> dict[str, Any]:
    return {"type": "message", "message": message}


def _branch() -> list[dict[str, Any]]:
    """A user message, one read, its output: what the session holds before condense writes anything."""
    return [_message(user("read cart.py", 100)), _message(assistant(110, call("c1", path="cart.py"))),
            _message(result("c1", OUTPUT, 111))]


def _record() -> ToolCallRecord:
    return ToolCallRecord("c1", "read", {"path": "cart.py"}, OUTPUT, False, 0, 110, 111)


def _persisted(copies: bool) -> dict[str, Any]:
    entries: list[tuple[str, Any]] = []
    ToolCallIndexer(copies=copies).add_batch([_record()], lambda kind, data: entries.append((kind, data)))
    [(kind, data)] = entries
    assert kind == INDEX
    return {"type": "custom", "customType": INDEX, "data": data}


def test_a_reference_record_copies_neither_output_nor_arguments_and_a_rebuild_reads_both_back() -> None:
    entry = _persisted(copies=False)
    [stored] = entry["data"]["toolCalls"]
    assert "resultText" not in stored and "args" not in stored
    assert len(json.dumps(entry)) < 300
    index = ToolCallIndexer()
    index.rebuild([*_branch(), entry])
    record = index.get_record("c1@111")
    assert record is not None and record.result_text == OUTPUT and record.args == {"path": "cart.py"}
    assert index.lookup_by_content("read", OUTPUT) == "c1@111", "still the original a repeat is deduplicated to"


def test_with_copies_a_record_is_pi_condenses_own_and_loads_without_the_branch() -> None:
    entry = _persisted(copies=True)
    assert entry["data"]["toolCalls"] == [_record().to_json()]
    assert entry["data"]["toolCalls"][0]["resultText"] == OUTPUT
    index = ToolCallIndexer()
    index.rebuild([entry])
    record = index.get_record("t1") or index.get_record("c1@111")
    assert record is not None and record.result_text == OUTPUT


def test_a_spilled_reference_keeps_its_text_in_the_sidecar_and_reads_its_arguments_back() -> None:
    spilled = _record().with_changes(result_text="", spill_path="/blobs/c1.txt", spill_bytes=12_000,
                                     result_preview="def total", content_hash="abc")
    entries: list[tuple[str, Any]] = []
    ToolCallIndexer(copies=False).add_batch([spilled], lambda kind, data: entries.append((kind, data)))
    index = ToolCallIndexer()
    index.rebuild([*_branch(), {"type": "custom", "customType": INDEX, "data": entries[0][1]}])
    record = index.get_record("c1@111")
    assert record is not None
    assert (record.result_text, record.spill_path, record.args) == ("", "/blobs/c1.txt", {"path": "cart.py"})


def test_a_reference_whose_output_is_not_on_the_branch_says_so_and_is_no_dedup_original() -> None:
    index = ToolCallIndexer()
    index.rebuild([_persisted(copies=False)])
    record = index.get_record("c1@111")
    assert record is not None and record.result_text == MISSING_OUTPUT
    assert index.lookup_by_content("read", MISSING_OUTPUT) is None


async def _flushed(config: dict[str, Any]) -> tuple[MemoryHost, CondenseEngine]:
    host, engine, drive = make(config)
    await drive.prompt("read cart.py", 100)
    await drive.tool_turn(110, [("c1", OUTPUT)])
    await drive.final(200)
    assert host.custom("context-prune-summary"), "the output was summarised"
    return host, engine


def _texts(host: MemoryHost) -> list[Any]:
    return [record.get("resultText") for records in index_records(host.entries) for record in records]


def _index_bytes(host: MemoryHost) -> int:
    return sum(len(json.dumps(data)) for data in host.custom(INDEX))


async def test_a_pruned_session_holds_no_second_copy_of_its_outputs_and_recovers_them_after_a_reload() -> None:
    host, _ = await _flushed({})
    assert _texts(host) == [], "its summary stands for its record"
    assert _index_bytes(host) < len(OUTPUT) / 20
    reloaded = CondenseEngine(host, CondenseConfig.model_validate(SCENARIO_SETTINGS))
    reloaded.on_session_start()
    text, _ = reloaded.query(["t1"])
    assert text.endswith("\n\n" + OUTPUT)


async def test_index_copies_writes_the_outputs_for_pi_condense_and_an_old_file_recovers_the_same() -> None:
    copied, _ = await _flushed({"index_copies": True})
    assert _texts(copied) == [OUTPUT], "pi-condense reads the text from the record"
    referred, _ = await _flushed({})
    assert _index_bytes(copied) > _index_bytes(referred) + len(OUTPUT)
    # index_copies is off now: the old file still loads
    reloaded = CondenseEngine(copied, CondenseConfig.model_validate(SCENARIO_SETTINGS))
    reloaded.on_session_start()
    assert reloaded.query(["t1"])[0].endswith("\n\n" + OUTPUT)


async def test_reopening_a_session_of_many_compressed_chains_walks_its_turns_once(monkeypatch: Any) -> None:
    """A chain no summary covers indexes its outputs by its own entry (outputs too small to summarise), and a
    rebuild reads them back from the branch: one
    walk of the branch's turns for all of them (a walk per chain made reopening a long session quadratic)."""
    host, _, drive = make({"chain_compression": {"rolling_window": 0}})
    chains = 12
    for n in range(chains):
        await drive.round(n, SMALL_OUTPUT + str(n))
    assert len(host.custom("context-prune-chain")) == chains
    walks = 0
    answered = Turn.answered

    def counted(turn: Turn) -> Any:
        nonlocal walks
        walks += 1
        return answered(turn)

    monkeypatch.setattr(Turn, "answered", counted)
    reloaded = CondenseEngine(host, CondenseConfig.model_validate(SCENARIO_SETTINGS))
    reloaded.on_session_start()
    assert walks <= 3 * chains, f"{walks} walks of a turn for {chains} turns"
    assert all(reloaded.query([f"t{n + 1}"])[0].endswith(SMALL_OUTPUT + str(n)) for n in range(chains))
