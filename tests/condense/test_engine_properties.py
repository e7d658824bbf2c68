"""Property tests: random histories through the real engine keep the context valid and lose nothing.

Each generated history mixes prompts, tool turns with reused ids, errors, protected tools, oversized
(spilled) outputs, aborted turns, barrier messages, flushes and chain compressions in random order, with
superseded reads on or off (a call's path follows its id, so re-reads and edits of one file recur).
For every history the rendered context has no tool result without its call (and the orphan sweep never
had to act), renders identically twice, is unchanged when rendered again from its own output, and every
output that is no longer verbatim is returned byte for byte by context_tree_query. A request is rendered
after every step, and each of these incremental renders is byte-identical to the full render, as is
every render a flush makes on its way (the engine's own check, `check_renders`, finds no difference).
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from condense.config import ChainCompressionConfig, CondenseConfig
from condense.engine import CondenseEngine
from condense.messages import tool_calls
from condense.records import QUERY_TOOL
from tests.support.log_handlers import condense_errors
from tests.support.memory_host import MemoryHost, assistant, call, result, user
from tests.support.typed import plain

# The profile's count (tests/conftest.py), unless tests/reliability/test_load.py asks for benchmark scale.
EXAMPLES = int(os.environ.get("CONDENSE_PROPERTY_EXAMPLES", settings().max_examples))
IDS = ["a", "b", "c", "bash_1", "bash_2"]  # a small pool: ids are reused across turns
SIZES = {"small": 40, "big": 1500, "huge": 300}  # huge: over the test's spill threshold of 250

call_spec = st.tuples(st.sampled_from(IDS), st.sampled_from(["read", "bash", "todo", "edit"]),
                      st.sampled_from(list(SIZES)), st.booleans())
turn_calls = st.lists(call_spec, min_size=1, max_size=3, unique_by=lambda c: c[0])
action = st.one_of(
    st.tuples(st.just("task"), st.lists(turn_calls, min_size=1, max_size=3)),  # prompt, tool turns, final reply
    st.just(("prompt",)),
    st.tuples(st.just("tools"), turn_calls),
    st.just(("final",)),
    st.just(("aborted",)),
    st.just(("barrier",)),
    st.just(("flush",)),
    st.just(("compact",)),
)
# steps that the render must follow incrementally, but after which rendering the render's own output
# is not a no-op (its synthetic chain messages count as user turns for the grace window)
render_action = st.one_of(
    action,
    st.just(("recover",)),  # a context_tree_query turn: its result stays verbatim for the grace window
    st.just(("stale-prompt",)),  # a user message at an earlier prompt's timestamp: chain ranges turn ambiguous
)


class History:
    def __init__(self, engine: CondenseEngine, host: MemoryHost) -> None:
        self.engine = engine
        self.host = host
        self.ts = 1000
        self.turn = 0
        self.text_of: dict[tuple[str, int], str] = {}
        self.prompt_times: list[int] = []
        self.requests = 0

    def tick(self) -> int:
        self.ts += 10
        return self.ts

    async def play(self, step: tuple[Any, ...]) -> None:
        kind = step[0]
        if kind == "task":
            await self.play(("prompt",))
            for calls in step[1]:
                await self._tools(calls)
            await self.play(("final",))
        elif kind == "prompt":
            self.prompt_times.append(self.tick())
            self.host.add_message(user("do something", self.ts))
        elif kind == "stale-prompt" and self.prompt_times:
            self.host.add_message(user("again", self.prompt_times[0]))
        elif kind == "recover":
            await self._tools([("q", QUERY_TOOL, "big", False)])
        elif kind == "tools":
            await self._tools(step[1])
        elif kind == "final":
            self.request()
            message = assistant(self.tick(), text="done")
            self.host.add_message(message)
            await self.engine.on_message_end(message)
            await self.engine.on_turn_end(message, [], self.turn)
            self.turn += 1
        elif kind == "aborted":
            message = {**assistant(self.tick()), "stopReason": "aborted"}
            self.host.add_message(message)
            await self.engine.on_message_end(message)
            self.turn += 1
        elif kind == "barrier":
            self.host.add_message({"role": "bashExecution", "command": "ls", "output": "x", "exitCode": 0,
                                   "cancelled": False, "truncated": False, "timestamp": self.tick()})
        elif kind == "flush":
            await self.engine.flush("manual")
        elif kind == "compact" and hasattr(self.engine, "compact"):
            await self.engine.compact()

    def request(self) -> None:
        """A model request: the engine's render (reusing the previous one) equals the full render."""
        messages = self.host.messages()
        rendered = self.engine.render(messages)
        full = self.engine.full_render(messages)
        assert json.dumps(rendered) == json.dumps(full), f"request {self.requests} differs from a full render"
        assert (rendered is messages) == (full is messages)
        self.requests += 1

    async def _tools(self, calls: list[tuple[str, str, str, bool]]) -> None:
        self.request()
        # a failed call carries a long argument, which the error purge shrinks once it cools down
        message = assistant(self.tick(), *(call(cid, name, path=f"{cid}.py", body="w" * 600) if error
                                           else call(cid, name) for cid, name, _, error in calls))
        self.host.add_message(message)
        results = []
        for cid, name, size, error in calls:
            ts = self.tick()
            text = f"{name} {cid} at {ts}: " + "z" * SIZES[size]
            self.text_of[(cid, ts)] = text
            results.append(result(cid, text, ts, name, error))
            self.host.add_message(results[-1])
        await self.engine.on_turn_end(message, results, self.turn)
        self.turn += 1


def open_calls_ok(messages: list[dict[str, Any]]) -> bool:
    """Independent of the sweep: every result answers a call of the latest assistant, no barrier between."""
    open_ids: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            open_ids = {c["id"] for c in tool_calls(message)}
        elif role == "toolResult":
            if message["toolCallId"] not in open_ids:
                return False
            open_ids.discard(message["toolCallId"])
        else:
            open_ids = set()
    return True


def check(history: History) -> None:
    engine, host = history.engine, history.host
    messages = host.messages()
    rendered = engine.render(messages)
    stubs = sum(1 for m in plain(rendered)
                if m.get("role") == "toolResult" and "context_tree_query" in str(m["content"]))
    event(f"stubbed results: {min(stubs, 3)}{'+' if stubs >= 3 else ''}")
    event(f"spilled: {any('Spilled' in str(m.get('content')) for m in plain(rendered))}")
    event(f"compressed chains: {sum('<compressed-chain' in str(m.get('content')) for m in plain(rendered)) > 0}")
    event(f"superseded reads: {any('[Superseded read' in str(m.get('content')) for m in plain(rendered))}")
    assert open_calls_ok(plain(rendered))
    assert engine.diagnostics.counts()["orphan-sweep"] == 0, "the sweep is a net, never a crutch"
    assert json.dumps(engine.render(messages)) == json.dumps(rendered)
    assert json.dumps(engine.render(rendered)) == json.dumps(rendered)
    # verbatim: as a tool result, or relocated into a compressed chain as a protected output
    visible = "\n".join(str(b.get("text", "")) for m in plain(rendered) for b in m.get("content") or []
                        if isinstance(b, dict))
    for key, original in history.text_of.items():
        if original in visible:
            continue
        text, _ = engine.query([f"{key[0]}@{key[1]}"])
        assert original in text, f"{key} is neither verbatim nor recoverable"


def played(steps: list[tuple[Any, ...]], blobs: Path, superseded_reads: bool = True,
           purge_args: bool = False) -> History:
    """The steps played through a real engine; every model request on the way is checked (`request`)."""
    host = MemoryHost(blobs=blobs, answer=lambda prompt: None)
    config = CondenseConfig(summarizer_model="extractive", min_batch_chars=100, spill_threshold=250,
                            protected_tools=["todo"], recovery_grace_turns=1,
                            chain_compression=ChainCompressionConfig(rolling_window=1),
                            superseded_reads=superseded_reads, purge_summarized_args=purge_args)
    engine = CondenseEngine(host, config)
    engine.check_renders = True  # every render, a flush's own too, against the full render
    engine.on_session_start()
    history = History(engine, host)
    host.add_message(user("start", history.tick()))

    async def run() -> None:
        for step in steps:
            await history.play(step)

    with condense_errors() as errors:
        asyncio.run(run())
    assert errors == [], errors[0]
    return history


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(render_action, min_size=1, max_size=25), st.booleans())
def test_every_incremental_render_equals_the_full_render(steps: list[tuple[Any, ...]], purge_args: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        history = played(steps, Path(tmp) / "blobs", purge_args=purge_args)
        event(f"requests: {min(history.requests, 10)}{'+' if history.requests >= 10 else ''}")
        history.request()


@settings(max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(action, min_size=1, max_size=25), st.booleans())
def test_random_histories_keep_the_context_valid_and_lose_nothing(steps: list[tuple[Any, ...]],
                                                                  superseded_reads: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        history = played(steps, Path(tmp) / "blobs", superseded_reads)
        engine = history.engine
        check(history)
        engine.on_session_start()  # a reload rebuilds the same state from the entries
        check(history)


@pytest.mark.slow
def test_random_histories_at_benchmark_scale() -> None:
    """`pytest -m slow` with CONDENSE_PROPERTY_EXAMPLES=20000 runs the same property at benchmark scale."""
    test_random_histories_keep_the_context_valid_and_lose_nothing()
