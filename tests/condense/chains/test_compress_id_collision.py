"""Scenarios of src/id-collision.integration.test.ts: the incident shape, end to end.

Two closed chains ([user 1000, bash_18, reply 1200] and [user 2000, bash_23 answered at 2150, reply
2200]), then a LIVE turn at 3000 that reuses bash_23 next to gauntlet_setting_24. The index is primed
the way a flush primes it, both chains are compressed with K = 0, and the context is rendered by the
pipeline the engine runs (stubs -> chain compression -> orphan sweep, which must find nothing).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from condense.capture import capture_unindexed
from condense.chains import ChainRegistry, compress_eligible, detect_chains
from condense.index import ToolCallIndexer
from condense.records import INDEX, SUMMARY, SummaryRef, ToolCallRecord
from tests.support.chains import (
    Session,
    call,
    calls,
    final,
    nothing_protected,
    render,
    result,
    synthetics_of,
    text_of,
    user,
)

Messages = list[dict[str, Any]]
Keyer = Callable[[ToolCallRecord], str]


def build_session() -> Messages:
    live_turn = calls(3100, call("bash_23", args={"cmd": "bash_23"}),
                      call("gauntlet_setting_24", args={"cmd": "gauntlet_setting_24"}))
    return [
        user(1000, "1"), calls(1100, call("bash_18", args={"cmd": "bash_18"})),
        result(1150, "bash_18", "OUT 18"), final(1200, "done 1"),
        user(2000, "2"), calls(2100, call("bash_23", args={"cmd": "bash_23"})),
        result(2150, "bash_23", "OUT 23 first"), final(2200, "done 2"),
        user(3000, "3"), live_turn,
        result(3150, "bash_23", "LIVE 23"), result(3160, "gauntlet_setting_24", "LIVE 24"),
    ]


@dataclass
class Primed:
    index: ToolCallIndexer
    registry: ChainRegistry
    session: Session
    refs: dict[str, SummaryRef]


def by_occurrence(record: ToolCallRecord) -> str:
    return record.key


def by_bare_id(record: ToolCallRecord) -> str:
    """The 2.6.0 bug: summary bodies registered under bare ids while every lookup uses occurrences."""
    return record.tool_call_id


async def prime(messages: Messages, keyer: Keyer = by_occurrence) -> Primed:
    """Summarise the two older batches the way a flush does (refs, index records, summary body), then
    compress their chains."""
    index, registry, session = ToolCallIndexer(), ChainRegistry(), Session()
    refs: dict[str, SummaryRef] = {}
    for turn, (call_id, stamp, result_stamp, text) in enumerate(
            [("bash_18", 1000, 1150, "OUT 18"), ("bash_23", 2000, 2150, "OUT 23 first")]):
        record = ToolCallRecord(call_id, "bash", {"cmd": call_id}, text, False, turn, stamp, result_stamp)
        [ref] = index.allocate_summary_refs([record])
        index.register_summary_refs([ref])
        index.add_batch([record], session.append)
        index.register_summary_body([keyer(record)], f"summary of {call_id}")
        refs[call_id] = ref
    await compress_eligible(detect_chains(messages), 0, messages=messages, registry=registry, index=index,
                            append=session.append, compressed_at=9000)
    return Primed(index, registry, session, refs)


def bodies(messages: Messages) -> list[str]:
    return [text_of(m) for m in synthetics_of(messages)]


async def test_render_keeps_the_live_turn_drops_both_chain_interiors_leaves_no_orphan() -> None:
    messages = build_session()
    primed = await prime(messages)
    out = render(messages, primed.index, primed.registry)
    live_real = [m for m in out if m["timestamp"] >= 3000 and m not in synthetics_of(out)]
    assert len(live_real) == 4
    assert text_of(next(m for m in out if m["timestamp"] == 3150)) == "LIVE 23"
    assert text_of(next(m for m in out if m["timestamp"] == 3160)) == "LIVE 24"
    assert not any(m["timestamp"] in (1150, 2150) for m in out)
    first, second = bodies(out)
    assert "summary of bash_18" in first and "summary of bash_23" not in first
    assert "summary of bash_23" in second and "summary of bash_18" not in second


async def test_live_flush_occurrence_key_contract_chains_compress_with_non_empty_per_chain_distinct_bodies() -> None:
    messages = build_session()
    primed = await prime(messages)
    assert [entry.body_source for entry in primed.registry] == [None, None]
    assert bodies(render(messages, primed.index, primed.registry)) == [
        '<compressed-chain id="b1" tools="t1">\nsummary of bash_18\n</compressed-chain>',
        '<compressed-chain id="b2" tools="t2">\nsummary of bash_23\n</compressed-chain>',
    ]


async def test_live_flush_bare_id_keying_bug_chains_compress_deterministically_instead_of_stranding() -> None:
    messages = build_session()
    primed = await prime(messages, by_bare_id)
    texts = bodies(render(messages, primed.index, primed.registry))
    assert len(texts) == 2
    for text in texts:
        assert "Deterministic chain compression" in text
        assert re.search(r"Refs: t\d+", text)
    assert primed.session.types.count(INDEX) == 2  # the records were already indexed: nothing backfilled


async def test_re_rendering_the_same_session_is_deep_equal() -> None:
    messages = build_session()
    primed = await prime(messages)
    first = render(messages, primed.index, primed.registry)
    second = render(first, primed.index, primed.registry)
    assert second == first


def test_g4_c2_a_live_collision_batch_is_captured_not_filtered_as_summarized_and_separately_addressable_after_summarization(  # noqa: E501
) -> None:
    index = ToolCallIndexer()
    first = ToolCallRecord("bash_23", "bash", {}, "OUT 23 first", False, 0, 2000, 2150)
    index.add_batch([first], lambda *_: None)
    assert index.is_summarized("bash_23@2150")
    branch = [{"type": "message", "message": m}
              for m in (user(3000, "3"), calls(3100, "bash_23"), result(3150, "bash_23", "LIVE 23"))]
    [batch] = capture_unindexed(branch, index.is_summarized, nothing_protected)
    [live] = batch.tool_calls
    assert (live.tool_call_id, live.result_timestamp, live.result_text) == ("bash_23", 3150, "LIVE 23")
    index.add_batch(batch.tool_calls, lambda *_: None)
    assert index.get_record("bash_23@2150").result_text == "OUT 23 first"  # type: ignore[union-attr]
    assert index.get_record("bash_23@3150").result_text == "LIVE 23"  # type: ignore[union-attr]
    assert index.is_summarized("bash_23@3150")


async def test_a_restart_shaped_rebuild_reproduces_both_tn_refs_and_non_empty_synthetics() -> None:
    primed = await prime(build_session())
    branch = list(primed.session.entries)  # the index and chain entries the session holds
    for call_id in ("bash_18", "bash_23"):
        branch.append({"type": "custom_message", "customType": SUMMARY, "content": f"summary of {call_id}",
                       "display": False, "details": {"toolCallRefs": [primed.refs[call_id].to_json()]}})
    index, registry = ToolCallIndexer(), ChainRegistry()
    index.rebuild(branch)
    registry.rebuild(branch)
    texts_by_ref = {ref.short_id: index.get_record(ref.short_id) for ref in primed.refs.values()}
    assert {ref: r.result_text if r else None for ref, r in texts_by_ref.items()} == {
        primed.refs["bash_18"].short_id: "OUT 18", primed.refs["bash_23"].short_id: "OUT 23 first"}
    assert registry.entries() == primed.registry.entries()
    assert registry.issue_block_id() == "b3"
    texts = bodies(render(build_session(), index, registry))
    assert len(texts) == 2
    assert "summary of bash_18" in texts[0] and "summary of bash_23" in texts[1]
