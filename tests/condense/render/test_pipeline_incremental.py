"""The incremental render gives the model exactly what the full render would, at every request of every
corpus session, while doing less work: most requests reuse the previous one's render."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from condense.chains import ChainDetector, ChainEntry, detect_chains
from condense.chains.render import ChainPhase
from condense.config import CondenseConfig
from condense.index import ToolCallIndexer
from condense.measure import estimate_tokens
from condense.messages import AgentMessage
from condense.records import ToolCallRecord
from condense.render.args_purge import ArgsPurgeMemo
from condense.render.orphans import OrphanScan
from condense.render.pipeline import IncrementalRender, RenderOptions, prune_messages
from condense.render.stub import StubMemo
from pi_tui.modes.replay import Replayer, output_session
from pi_tui.session.store import Session
from tests.conftest import corpus_path
from tests.support import chains
from tests.support.log_handlers import condense_errors
from tests.support.memory_host import make, stubbed
from tests.support.typed import plain

# Whole corpus sessions replayed through condense: these share one worker under xdist, not the CPU.
pytestmark = pytest.mark.xdist_group("serial")

ALL_CORPUS = ("pi-large-session.jsonl", "pi-before-compaction.jsonl", "pi-compact-hooks.jsonl",
              "pi-compaction-check.jsonl")


PURGING_ARGS = ("pi-before-compaction.jsonl", "pi-compact-hooks.jsonl")  # where the argument purge shrinks some


@pytest.mark.parametrize(("name", "purge_args"), [*((name, False) for name in ALL_CORPUS),
                                                 *((name, True) for name in PURGING_ARGS)])
def test_every_request_of_a_corpus_session_renders_as_the_full_render(name: str, purge_args: bool,
                                                                      tmp_path: Path) -> None:
    """With the opt-in argument purge too: it once made every request a full render."""
    corpus_file = corpus_path(name)
    source = Session.open(corpus_file)
    replayer: Replayer | None = None
    compared = reused = 0

    def on_render(messages: list[Any], rendered: list[Any]) -> None:
        nonlocal compared, reused
        assert replayer is not None
        full = replayer.engine.full_render(messages)
        assert json.dumps(rendered) == json.dumps(full), f"request {replayer.requests} of {corpus_file.name}"
        assert (rendered is messages) == (full is messages)
        # the context estimate (budget trigger) and reclaim figure are counted as the render grows
        assert replayer.engine.rendered_tokens() == estimate_tokens(full)
        compared += 1
        reused += replayer.engine.last_render_kind != "full"

    config = CondenseConfig(summarizer_model="extractive", purge_summarized_args=purge_args)
    replayer = Replayer(source, output_session(source, tmp_path / "out.jsonl"), config, 200_000, on_render)
    replayer.engine.check_renders = True  # and every render a flush makes on its way (after a flush: a splice)
    with condense_errors() as errors:
        report = asyncio.run(replayer.run())
    assert errors == []
    assert compared == report.requests > 200
    assert report.summaries > 0
    assert reused > compared * 0.9, f"only {reused} of {compared} requests reused the previous render"


def test_chain_detection_of_a_growing_branch_equals_a_full_detection() -> None:
    messages = plain(Session.open(corpus_path("pi-large-session.jsonl")).messages())
    synthetic: dict[str, Any] = {
        "role": "user", "content": [{"type": "text", "text": '<compressed-chain id="b1" tools="">x'}], "timestamp": 5}
    messages.insert(len(messages) // 2, synthetic)  # never a chain start: the walk does not restart there
    detector = ChainDetector()
    for end in range(1, len(messages) + 1, 7):
        prefix = messages[:end]
        assert detector.detect(prefix, None, "v1") == detect_chains(prefix), f"first {end} messages"
    protect_bash = lambda name, args: name == "bash"  # noqa: E731
    changed = detector.detect(messages, protect_bash, "v2")  # a new protection rule: nothing is reused
    assert changed == detect_chains(messages, protect_bash) != detect_chains(messages)


def test_a_result_that_a_flush_only_aliases_to_an_earlier_output_is_stubbed_at_the_next_request() -> None:
    """A byte-identical output is summarised by a dedup alias, which adds no index record: the render
    after that flush must still see the change (it once kept serving the raw output)."""
    host, engine, driver = make({"summarizer_model": "extractive", "min_batch_chars": 0,
                                 "chain_compression": {"enabled": False}})
    output = "the same long file content\n" * 20

    async def run() -> None:
        await driver.prompt("read it", 1)
        await driver.tool_turn(10, [("a", output)])
        await driver.final(20)  # flush: `a` summarised
        await driver.prompt("read it again", 30)
        await driver.tool_turn(40, [("b", output)])
        assert "context_tree_query" not in json.dumps(driver.render()[-1])  # `b` raw: not flushed yet
        await driver.final(50)  # flush: `b` becomes an alias of `a`

    asyncio.run(run())
    messages = host.messages()
    assert json.dumps(engine.render(messages)) == json.dumps(engine.full_render(messages))
    assert stubbed(engine.render(messages)) == ["a", "b"]


def test_a_message_list_that_the_host_grows_in_place_renders_as_the_full_render() -> None:
    """The live agent hands the engine its own list and appends to it afterwards: what a render keeps
    of that list must not grow with it."""
    host, engine, driver = make({"summarizer_model": "extractive", "min_batch_chars": 0})
    live: list[AgentMessage] = []
    outputs = [f"output {n}\n" * 30 for n in range(6)]

    def request() -> None:
        live.extend(host.messages()[len(live):])
        rendered = engine.render(live)
        assert json.dumps(rendered) == json.dumps(engine.full_render(list(live)))

    async def run() -> None:
        for task in range(3):
            await driver.prompt(f"task {task}", task * 100)
            request()
            await driver.tool_turn(task * 100 + 10, [(f"c{task}", outputs[task])])
            request()
            await driver.final(task * 100 + 50)  # a flush: the next render refreshes
            request()

    asyncio.run(run())
    assert stubbed(engine.render(live)) == ["c0", "c1", "c2"]


def test_a_refresh_that_stubs_one_early_result_patches_it_and_walks_no_later_message(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A flush that stubs an early output (a read superseded by a later edit) changes one message of the
    request: the render after it puts that one in and leaves the rest as it was, instead of running
    phases 3 and 4 again over everything after it."""
    early = [chains.user(1), chains.calls(2, "early"), chains.result(3, "early", "x" * 500), chains.final(4)]
    messages = early + _chain(10, "c1") + [m for turn in range(100, 400, 10) for m in _chain(turn, f"k{turn}")]
    walked: list[int] = []
    renderer, out = _refreshed(messages, chains.entry("b1", 10, ["c1"], 13), "early", monkeypatch, walked)

    assert renderer.kind == "refresh"
    assert sum(walked) == 0, f"phases 3 and 4 walked {sum(walked)} messages of {len(messages)} again"
    assert stubbed(out) == ["early"]


def test_a_result_stubbed_inside_a_range_that_relocates_it_renders_that_range_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A compressed chain shows its protected outputs inside its own message: stubbing one of them
    changes that message, although the result itself is dropped with the range."""
    messages = [*_chain(10, "c1"), *_chain(20, "k1")]
    entry = chains.entry("b1", 10, ["c1"], 13, protected_tool_call_ids=("c1",))
    renderer, out = _refreshed(messages, entry, "c1", monkeypatch, [])

    assert renderer.kind == "refresh"
    assert "context_tree_query" in chains.text_of(chains.synthetics_of(out)[0])


def test_an_orphan_result_stubbed_by_a_flush_stays_swept(monkeypatch: pytest.MonkeyPatch) -> None:
    """An output no call vouches for is swept from every request: stubbing it changes nothing in view,
    and no message near where it was."""
    orphan = [chains.user(1), chains.result(2, "lost", "x" * 500), chains.final(3)]
    messages = [*orphan, *_chain(10, "c1"), *_chain(20, "k1")]
    renderer, out = _refreshed(messages, chains.entry("b1", 10, ["c1"], 13), "lost", monkeypatch, [])

    assert renderer.kind == "refresh"
    assert "lost" not in json.dumps(out)


def test_a_range_whose_final_reply_a_flush_shrinks_renders_that_range_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain's final reply stays in view: when stubbing the output of a call it made shrinks that call's
    arguments (phase 1b), the range shows the shrunk reply."""
    write = chains.call("w1", "write", {"path": "a.py", "content": "y" * 500})
    messages = [chains.user(10), chains.calls(11, "c1"), chains.result(12, "c1"), chains.calls(13, write),
                chains.result(14, "w1"), *_chain(20, "k1")]
    renderer, out = _refreshed(messages, chains.entry("b1", 10, ["c1"], 13), "w1", monkeypatch, [], ArgsPurgeMemo())

    assert renderer.kind == "refresh"
    assert "y" * 500 not in json.dumps(out)


def _chain(start: int, call_id: str) -> list[dict[str, Any]]:
    return [chains.user(start), chains.calls(start + 1, call_id), chains.result(start + 2, call_id),
            chains.final(start + 3)]


def _refreshed(messages: list[Any], entry: ChainEntry, stubbed_id: str, monkeypatch: pytest.MonkeyPatch,
               walked: list[int], args_memo: ArgsPurgeMemo | None = None) -> tuple[IncrementalRender, list[Any]]:
    """`messages` rendered with `entry` compressed, then again after a flush that stubs the result of
    `stubbed_id` (`walked`: how many messages phases 3 and 4 walked on the way); that render, which
    must be the full render's."""
    index = ToolCallIndexer()
    options = RenderOptions(chains.nothing_protected, 0, True, 2, 500, lambda swept: None,
                            ChainPhase(chains.registry_of(entry), index, strip_final_thinking=False), StubMemo(),
                            (0, "settings"), args_memo)
    renderer = IncrementalRender()
    renderer.render(messages, index, options, "before the flush")
    position = next(i for i, m in enumerate(messages) if m.get("toolCallId") == stubbed_id)
    stamp = messages[position]["timestamp"]
    index.add_batch([ToolCallRecord(stubbed_id, "read", {"path": "a.py"}, "x", False, 1, stamp, stamp,
                                    superseded_by="edit")], lambda kind, data: None)
    refreshed = replace(options, version=(1, "settings"))
    monkeypatch.setattr(OrphanScan, "feed", _counting(OrphanScan.feed, walked))
    monkeypatch.setattr(ChainPhase, "_emit", _counting_emit(ChainPhase._emit, walked))
    out = renderer.render(messages, index, refreshed, "after the flush")
    monkeypatch.undo()
    assert json.dumps(out) == json.dumps(prune_messages(messages, index, replace(refreshed, memo=None)))
    return renderer, out


def _counting(feed: Callable[..., list[int]], walked: list[int]) -> Callable[..., list[int]]:
    def counted(scan: OrphanScan, messages: list[Any], offset: int = 0) -> list[int]:
        walked.append(len(messages))
        return feed(scan, messages, offset)
    return counted


def _counting_emit(emit: Callable[..., tuple[list[Any], bool]], walked: list[int],
                   ) -> Callable[..., tuple[list[Any], bool]]:
    def counted(phase: ChainPhase, messages: list[Any], begin: int, *rest: Any) -> tuple[list[Any], bool]:
        walked.append(len(messages) - begin)
        return emit(phase, messages, begin, *rest)
    return counted
