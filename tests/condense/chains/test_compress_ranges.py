"""Scenarios of src/range-compression.integration.test.ts: the real index, block ids and registry,
`compress_eligible` with K = 0 (as `/pruner compact` runs it), and the render pipeline
(stubs -> chain compression -> orphan sweep, which must find nothing to do)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from condense.chains import ChainEntry, ChainRegistry, CompressResult, compress_eligible, detect_chains
from condense.index import ToolCallIndexer
from condense.protect import is_protected
from condense.query import run_query
from condense.records import CHAIN, INDEX, ToolCallRecord
from condense.spill import spill_record
from condense.summarize import Summarizer
from tests.support.chains import (
    Session,
    SummarizerConfig,
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
from tests.support.memory_host import MemoryHost

Messages = list[dict[str, Any]]
IsProtected = Callable[[str, dict[str, Any]], bool]


@dataclass
class Engine:
    """The pieces of the engine that chain compression touches, over one in-memory session."""

    session: Session = field(default_factory=Session)
    index: ToolCallIndexer = field(default_factory=ToolCallIndexer)
    registry: ChainRegistry = field(default_factory=ChainRegistry)

    def summarize(self, outputs: Sequence[tuple[str, int, str]], body: str) -> None:
        """What a flush leaves for one summarised batch of (call id, result timestamp, output)."""
        records = [ToolCallRecord(i, "bash", {}, text, False, 0, stamp, stamp) for i, stamp, text in outputs]
        refs = self.index.allocate_summary_refs(records)
        self.index.add_batch(records, self.session.append)
        self.index.register_summary_refs(refs)
        self.index.register_summary_body([r.key for r in records], body)

    async def compress(self, messages: Messages, is_protected: IsProtected = nothing_protected,
                       **options: Any) -> CompressResult:
        return await compress_eligible(detect_chains(messages, is_protected), 0, messages=messages,
                                       registry=self.registry, index=self.index, append=self.session.append,
                                       compressed_at=999, **options)

    def render(self, messages: Messages, is_protected: IsProtected = nothing_protected) -> Messages:
        return render(messages, self.index, self.registry, strip_final_thinking=True,
                      is_protected=is_protected)


def two_batch_chain(start: int = 100, ids: tuple[str, str] = ("tc1", "tc2")) -> Messages:
    return [
        user(start, "go"),
        calls(start + 100, ids[0]), result(start + 110, ids[0], f"raw {ids[0]}"),
        calls(start + 200, ids[1]), result(start + 210, ids[1], f"raw {ids[1]}"),
        final(start + 300),
    ]


def protected_by_name(*names: str) -> IsProtected:
    return partial(is_protected, protected_tools=set(names), protected_paths=[])


def only_synthetic(messages: Messages) -> str:
    [synthetic] = synthetics_of(messages)
    return text_of(synthetic)


async def test_fused_range_summary_flows_compress_eligible_registry_render() -> None:
    engine, messages = Engine(), two_batch_chain()
    engine.summarize([("tc1", 210, "raw tc1")], "summary of batch 1")
    engine.summarize([("tc2", 310, "raw tc2")], "summary of batch 2")
    host = MemoryHost(answer=lambda prompt: "FUSED COHESIVE SUMMARY")
    outcome = await engine.compress(messages, fuser=Summarizer(host, SummarizerConfig()))
    assert len(host.prompts) == 1 and "summary of batch 1\n\nsummary of batch 2" in host.prompts[0]
    assert outcome.entries[0].range_summary_text == "FUSED COHESIVE SUMMARY"
    assert engine.registry.entries()[0].range_summary_text == "FUSED COHESIVE SUMMARY"
    out = engine.render(messages)
    text = only_synthetic(out)
    assert "FUSED COHESIVE SUMMARY" in text and "summary of batch 1" not in text
    assert 'tools="t1,t2"' in text
    assert [m for m in out if m["role"] == "toolResult"] == []


async def test_protected_tool_output_is_relocated_into_synthetic_block() -> None:
    engine = Engine()
    messages = [user(100, "go"), calls(200, call("tc1", "read"), call("tc-todo", "todowrite")),
                result(210, "tc1", "FILE", name="read"),
                result(220, "tc-todo", "PLAN-STATE-XYZ", name="todowrite"), final(300)]
    engine.summarize([("tc1", 210, "FILE")], "summary of the read")
    protect = protected_by_name("todowrite")
    [entry] = (await engine.compress(messages, protect)).entries
    [persisted] = engine.session.of(CHAIN)
    assert persisted["protectedToolCallIds"] == ["tc-todo"]
    assert ChainEntry.from_json(persisted) == entry
    text = only_synthetic(engine.render(messages, protect))
    assert '<protected-output tool="todowrite">\nPLAN-STATE-XYZ\n</protected-output>' in text
    assert 'tools="t1"' in text  # a protected output is never indexed, so it has no ref


async def test_path_protected_output_is_relocated_via_detect_chains_predicate() -> None:
    engine = Engine()
    protect = partial(is_protected, protected_tools=set(), protected_paths=["**/skills/**/*.md"])
    messages = [user(100, "go"),
                calls(200, call("tc-skill", "read", {"path": "/h/skills/x/SKILL.md"}),
                      call("tc-src", "read", {"path": "/h/src/app.py"})),
                result(210, "tc-skill", "SKILL BODY", name="read"),
                result(220, "tc-src", "app-source-code", name="read"), final(300)]
    engine.summarize([("tc-src", 220, "app-source-code")], "the app source was read")
    await engine.compress(messages, protect)
    text = only_synthetic(engine.render(messages, protect))
    assert '<protected-output tool="read">\nSKILL BODY\n</protected-output>' in text
    assert "app-source-code" not in text


async def test_falls_back_to_per_batch_concat_when_fuse_range_is_absent() -> None:
    engine, messages = Engine(), two_batch_chain()
    engine.summarize([("tc1", 210, "raw tc1")], "batch one body")
    engine.summarize([("tc2", 310, "raw tc2")], "batch two body")
    await engine.compress(messages)
    assert only_synthetic(engine.render(messages)) == (
        '<compressed-chain id="b1" tools="t1,t2">\nbatch one body\n\nbatch two body\n</compressed-chain>')


async def covered_chain_a(engine: Engine) -> Messages:
    messages = two_batch_chain(100, ("a1", "a2"))
    engine.summarize([("a1", 210, "raw a1"), ("a2", 310, "raw a2")], "summary of A")
    return messages


async def test_mixed_flush_one_covered_one_uncovered_chain_compress_in_a_single_compress_eligible_call() -> None:
    engine = Engine()
    messages = [*await covered_chain_a(engine), *two_batch_chain(1000, ("b1", "b2"))]
    covered, uncovered = (await engine.compress(messages)).entries
    assert covered.body_source is None
    assert uncovered.body_source == "deterministic"
    out = engine.render(messages)
    assert len(synthetics_of(out)) == 2
    alone = Engine()
    chain_a = await covered_chain_a(alone)
    [reference] = (await alone.compress(chain_a)).entries
    assert covered.to_json() == reference.to_json()
    assert text_of(synthetics_of(out)[0]) == only_synthetic(alone.render(chain_a))


async def test_recovery_through_backfill_an_uncovered_chains_raw_output_is_recoverable_via_its_tn_ref(
        tmp_path: Path) -> None:
    engine = Engine()
    big = "line of a big output\n" * 50
    messages = [user(100, "go"), calls(200, "tc1", "tc2"), result(210, "tc1", "small output"),
                result(220, "tc2", big), final(300)]
    spill = partial(spill_record, threshold=500, preview_bytes=40, blobs_dir=tmp_path)
    [entry] = (await engine.compress(messages, spill=spill)).entries
    small_ref, big_ref = entry.tool_refs
    small_text, _ = run_query(engine.index, [small_ref])
    big_text, _ = run_query(engine.index, [big_ref])
    assert "small output" in small_text
    assert big in big_text  # read back from the sidecar
    [backfill] = engine.session.of(INDEX)
    spilled = backfill["toolCalls"][1]
    assert spilled["resultText"] == "" and Path(spilled["spillPath"]).is_file()
    assert "small output" not in text_of(synthetics_of(engine.render(messages))[0])


async def test_restart_mid_failure_window_index_entry_persists_even_when_the_chain_entry_append_fails_and_converges_on_retry(  # noqa: E501
) -> None:
    messages = two_batch_chain()
    first = Engine(session=Session(fail_on={CHAIN}))
    with pytest.raises(OSError):
        await first.compress(messages)
    assert first.session.types == [INDEX]
    [backfill] = first.session.of(INDEX)
    round_one_refs = [ref["shortId"] for ref in backfill["refs"]]
    assert len(first.registry) == 0
    restarted = Engine(session=Session(entries=list(first.session.entries)))
    restarted.index.rebuild(restarted.session.entries)
    restarted.registry.rebuild(restarted.session.entries)
    [entry] = (await restarted.compress(messages)).entries
    assert restarted.session.types == [INDEX, CHAIN]  # one index entry in all
    assert list(entry.tool_refs) == round_one_refs
    assert entry.block_id == "b1"


async def test_multi_chain_compact_three_uncovered_chains_compress_in_one_compress_eligible_call() -> None:
    engine = Engine()
    messages = [*two_batch_chain(100, ("a1", "a2")), *two_batch_chain(1000, ("b1", "b2")),
                *two_batch_chain(2000, ("c1", "c2"))]
    entries = (await engine.compress(messages)).entries
    assert [(e.block_id, e.body_source) for e in entries] == [
        ("b1", "deterministic"), ("b2", "deterministic"), ("b3", "deterministic")]
    assert [e.tool_refs for e in entries] == [("t1", "t2"), ("t3", "t4"), ("t5", "t6")]
    out = engine.render(messages)
    assert len(synthetics_of(out)) == 3
    assert [m for m in out if m["role"] in ("toolResult",)] == []


async def test_fully_deduped_chain_backfilled_via_index_membership_filter_not_is_summarized_compressed_pre_existing_alias_entries_still_resolve(  # noqa: E501
) -> None:
    engine = Engine()
    engine.summarize([("origA", 50, "same A"), ("origB", 60, "same B")], "summary of the originals")
    # the chain's outputs were deduplicated to the originals: aliases only, no summary of their own
    engine.index.register_duplicate("dup1@210", "origA@50", engine.session.append)
    engine.index.register_duplicate("dup2@310", "origB@60", engine.session.append)
    engine.index.register_duplicate("dup3@999", "origA@50", engine.session.append)  # unrelated alias
    messages = [user(100, "go"), calls(200, "dup1"), result(210, "dup1", "same A"),
                calls(300, "dup2"), result(310, "dup2", "same B"), final(400)]
    [entry] = (await engine.compress(messages)).entries
    assert entry.body_source == "deterministic"
    [backfill] = [data for data in engine.session.of(INDEX) if data.get("backfilled")]
    assert [r["toolCallId"] for r in backfill["toolCalls"]] == ["dup1", "dup2"]
    assert "dup1@210" in engine.index and "dup2@310" in engine.index
    assert engine.index.get_record("dup3@999").tool_call_id == "origA"  # type: ignore[union-attr]
    assert engine.index.lookup_by_content("bash", "same A") == "origA@50"
    assert engine.index.lookup_by_content("bash", "same B") == "origB@60"
    rebuilt = ToolCallIndexer()
    rebuilt.rebuild(engine.session.entries)
    assert rebuilt.lookup_by_content("bash", "same A") == "origA@50"
    assert len(synthetics_of(engine.render(messages))) == 1


async def test_protected_member_in_an_uncovered_chain_excluded_from_backfill_index_refs_relocated_verbatim_at_render_unprotected_middle_dropped(  # noqa: E501
) -> None:
    engine = Engine()
    protect = protected_by_name("todowrite")
    messages = [user(100, "go"), calls(200, "c1", call("c2", "todowrite")),
                result(210, "c1", "UNPROTECTED OUT"), result(220, "c2", "PLAN", name="todowrite"), final(300)]
    [entry] = (await engine.compress(messages, protect)).entries
    [backfill] = engine.session.of(INDEX)
    assert [r["toolCallId"] for r in backfill["toolCalls"]] == ["c1"]
    assert [r["toolCallId"] for r in backfill["refs"]] == ["c1"]
    assert entry.tool_refs == ("t1",)
    out = engine.render(messages, protect)
    text = only_synthetic(out)
    assert '<protected-output tool="todowrite">\nPLAN\n</protected-output>' in text
    assert "UNPROTECTED OUT" not in text
    assert not any(m["role"] in ("toolResult", "assistant") and m["timestamp"] < 300 for m in out)


# ----- our rule beyond pi-condense 2.9.1: nothing a compression drops is left unrecoverable -------------


async def test_a_partly_covered_chain_indexes_its_unsummarised_outputs_before_it_compresses() -> None:
    engine, messages = Engine(), two_batch_chain()
    engine.summarize([("tc1", 210, "raw tc1")], "summary of batch 1")  # tc2's batch was skipped as trivial
    [entry] = (await engine.compress(messages)).entries
    assert entry.body_source is None and entry.tool_refs == ("t1", "t2")
    backfill = engine.session.of(INDEX)[-1]
    assert backfill["backfilled"] is True and [r["toolCallId"] for r in backfill["toolCalls"]] == ["tc2"]
    assert engine.session.types[-2:] == [INDEX, CHAIN]
    recovered, _ = run_query(engine.index, ["t2"])
    assert "raw tc2" in recovered
    assert only_synthetic(engine.render(messages)) == (
        '<compressed-chain id="b1" tools="t1,t2">\nsummary of batch 1\n</compressed-chain>')


async def test_a_partly_covered_chain_stays_raw_when_its_outputs_cannot_be_indexed() -> None:
    engine, messages = Engine(), two_batch_chain()
    engine.summarize([("tc1", 210, "raw tc1")], "summary of batch 1")
    engine.session.fail_on.add(INDEX)
    outcome = await engine.compress(messages)
    assert outcome.entries == [] and [s.reason for s in outcome.skipped] == ["no-summary"]
    assert CHAIN not in engine.session.types and "tc2@310" not in engine.index
