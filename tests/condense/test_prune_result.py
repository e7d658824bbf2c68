"""What `add()` and `flush()` say they pruned: the refs the model can query, the chains compressed, the
folds, the spilled outputs, and how much smaller the next request is; and the notices of the call."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from condense import Condenser, OpenAICondenser, PruneResult
from condense.measure import model_chars
from tests.condense.test_facade import openai_run, openai_turn, output


def pi_turn(n: int, text: str | None = None) -> list[dict[str, Any]]:
    call = {"type": "toolCall", "id": f"call_{n}", "name": "read", "arguments": {"path": f"m{n}.py"}}
    return [{"role": "assistant", "content": [call], "stopReason": "toolUse", "timestamp": 10 * n + 1},
            {"role": "toolResult", "toolCallId": f"call_{n}", "toolName": "read", "isError": False,
             "content": [{"type": "text", "text": text or output(n)}], "timestamp": 10 * n + 2}]


async def test_an_add_that_flushes_says_what_it_pruned_and_what_the_next_request_saves() -> None:
    condenser = Condenser()
    nothing = await condenser.add([{"role": "user", "content": "fix the handler", "timestamp": 0}])
    assert nothing == PruneResult() and not nothing.pruned
    for n in range(3):
        await condenser.add(pi_turn(n))
    before = condenser.messages()
    final = {"role": "assistant", "content": [{"type": "text", "text": "Fixed."}], "stopReason": "stop",
             "timestamp": 100}
    result = await condenser.add([final])
    after = condenser.messages()
    assert result.refs == ("t1", "t2", "t3") and result.outputs == 3 and result.chains == ("b1",)
    assert result.summaries == 3 and result.pruned
    assert result.saved_chars == model_chars([*before, final]) - model_chars(after) > 0
    assert result.saved_tokens == round(result.saved_chars / 4)


async def test_a_duplicate_output_counts_among_the_outputs_pruned() -> None:
    condenser = Condenser(config={"chain_compression": {"rolling_window": 3}})
    results = [await condenser.add([{"role": "user", "content": "look twice", "timestamp": 0},
                                    *pi_turn(0, output(7)), *pi_turn(1, output(7))]),
               await condenser.add([{"role": "assistant", "content": [{"type": "text", "text": "Same."}],
                                     "timestamp": 100}])]
    assert [r.outputs for r in results] == [1, 1] and [r.refs for r in results] == [("t1",), ()]


async def test_flush_says_what_it_pruned() -> None:
    condenser = OpenAICondenser(config={"prune_on": "on-demand"})
    await openai_run(condenser, turns=2)
    result = await condenser.flush()
    assert result.refs == ("t1", "t2") and result.saved_chars > 0


async def test_a_spilled_output_is_named_among_the_pruned(tmp_path: Path) -> None:
    condenser = OpenAICondenser(tmp_path / "state", config={"spill_threshold": 2000})
    await condenser.add([{"role": "user", "content": "read the log"}])
    result = await condenser.add(openai_turn(0))
    assert result.spilled == result.refs and len(result.refs) == 1 and result.saved_chars > 0


async def test_a_fold_is_named_among_the_pruned() -> None:
    condenser = OpenAICondenser(config={"fold_keep_turns": 1, "fold_min_chars": 100})
    folds: list[str] = []
    for task in range(3):
        await condenser.add([{"role": "user", "content": f"task {task}"}, *openai_turn(task)])
        folds += (await condenser.add([{"role": "assistant", "content": f"done {task}"}])).folds
    assert folds == ["f1"]
    assert "f1" in json.dumps(condenser.messages())


async def test_notices_reach_the_callback_the_logger_and_the_result_and_the_kept_list_is_bounded(
        caplog: pytest.LogCaptureFixture) -> None:
    heard: list[tuple[str, str]] = []

    def broken(prompt: str) -> str:
        raise ConnectionError("summariser unreachable")

    condenser = OpenAICondenser(summarizer=broken, on_notice=lambda level, text: heard.append((level, text)))
    await condenser.add([{"role": "user", "content": "fix the handler"}, *openai_turn(0)])
    with caplog.at_level(logging.INFO, logger="condense"):
        result = await condenser.add([{"role": "assistant", "content": "Fixed."}])
    failed = ("error", "pruner: summarization failed: ConnectionError: summariser unreachable")
    assert failed in result.notices and failed in heard
    assert ("condense", logging.ERROR, failed[1]) in caplog.record_tuples
    for n in range(150):
        condenser.host.notify(f"notice {n}")
    assert len(condenser.host.notices) == 100 and condenser.host.notices[-1] == ("info", "notice 149")
    assert len(heard) > 150  # the callback heard every one
