"""The library facades: an agent that holds OpenAI- or Anthropic-shaped messages hands over each turn,
gets back a pruned history in its own shape, and answers the model's `context_tree_query` calls."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from condense import AnthropicCondenser, CondenseError, OpenAICondenser
from condense import __all__ as public_names
from condense.query import QueryError
from condense.records import SUMMARY
from condense.tool_pairing import NO_RESULT_TEXT
from tests.support.fake_openai import validate_request
from tests.support.typed import plain

OUTPUT = "def handler(event):\n" + "    return process(event)  # line\n" * 120


def output(n: int) -> str:
    return f"# file {n}\n{OUTPUT}"


def openai_turn(n: int) -> list[dict[str, Any]]:
    call = {"id": f"call_{n}", "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": f"src/m{n}.py"})}}
    return [{"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{n}", "content": output(n)}]


def anthropic_turn(n: int) -> list[dict[str, Any]]:
    use = {"type": "tool_use", "id": f"toolu_{n}", "name": "read", "input": {"path": f"src/m{n}.py"}}
    return [{"role": "assistant", "content": [use]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": output(n)}]}]


async def openai_run(condenser: OpenAICondenser, turns: int = 3) -> None:
    await condenser.add([{"role": "user", "content": "fix the handler"}])
    for n in range(turns):
        await condenser.add(openai_turn(n))
    await condenser.add([{"role": "assistant", "content": "Fixed."}])


async def anthropic_run(condenser: AnthropicCondenser, turns: int = 3) -> None:
    await condenser.add([{"role": "user", "content": "fix the handler"}])
    for n in range(turns):
        await condenser.add(anthropic_turn(n))
    await condenser.add([{"role": "assistant", "content": [{"type": "text", "text": "Fixed."}]}])


# The rolling window keeps the newest finished task raw, so its outputs show as stubs followed by the
# summaries (the default window of 0 compresses the task into one block at once, as docs/LIBRARY.md shows).
STUBS = {"chain_compression": {"rolling_window": 3}}


def texts(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


async def test_openai_history_is_flushed_by_the_final_reply_and_rendered_pruned() -> None:
    condenser = OpenAICondenser(config=STUBS)
    await openai_run(condenser)
    request = condenser.messages()
    tools = [m["content"] for m in request if m["role"] == "tool"]
    assert len(tools) == 3 and all("context_tree_query" in t and OUTPUT not in t for t in tools)
    assert [m["role"] for m in request][-5:] == ["tool", "assistant", "user", "user", "user"]
    final = next(i for i, m in enumerate(request) if m.get("content") == "Fixed.")
    summaries = request[final + 1:]
    assert [("Summarized tool refs" in texts(m), f"`t{n + 1}`" in texts(m)) for n, m in enumerate(summaries)] \
        == [(True, True)] * 3
    await condenser.add([{"role": "user", "content": "and the tests?"}])
    after = condenser.messages()
    assert after[:len(request)] == request  # the prefix a provider cached stays byte-identical
    assert after[-1] == {"role": "user", "content": "and the tests?"}


async def test_openai_query_tool_answers_with_the_original_output() -> None:
    condenser = OpenAICondenser()
    await openai_run(condenser)
    tool = condenser.tool
    assert tool["type"] == "function" and tool["function"]["name"] == "context_tree_query"
    assert tool["function"]["parameters"]["required"] == ["toolCallIds"]
    call = {"id": "q1", "type": "function",
            "function": {"name": "context_tree_query", "arguments": json.dumps({"toolCallIds": ["t2"]})}}
    answer = condenser.answer(call)
    assert answer["role"] == "tool" and answer["tool_call_id"] == "q1"
    assert "## toolRef: t2" in answer["content"] and output(1) in answer["content"]
    bad = plain([condenser.answer({**call, "function": {"name": "context_tree_query", "arguments": "{oops"}})])[0]
    assert bad["content"].startswith("context_tree_query: pass") and "\n" not in bad["content"]
    await condenser.add([{"role": "assistant", "content": None, "tool_calls": [call]}, answer])
    assert condenser.messages()[-1] == answer  # a recovery stays in view: it is what the model asked for


async def test_the_query_tool_pages_through_an_output_for_the_model_and_the_agent() -> None:
    condenser = AnthropicCondenser()
    await anthropic_run(condenser)
    use = {"type": "tool_use", "id": "q1", "name": "context_tree_query",
           "input": {"toolCallIds": ["t2"], "offset": 3, "limit": 1}}
    assert str(condenser.answer(use)["content"]).endswith(
        '    return process(event)  # line\n[Output truncated: lines 3-3 of 122 shown. Continue with '
        'context_tree_query({"toolCallIds": ["t2"], "offset": 4, "limit": 1})]')
    assert condenser.query(["t2"], pattern="# FILE").endswith('1: # file 1\n[1 of 122 lines contains "# FILE"]')
    refused = str(condenser.answer({**use, "input": {"toolCallIds": ["t2"], "offset": 0}})["content"])
    assert refused.endswith("(offset: input should be greater than or equal to 1 (got 0))")
    with pytest.raises(QueryError, match="pattern"):
        condenser.query(["t2"], pattern="")
    assert issubclass(QueryError, CondenseError) and issubclass(QueryError, ValueError)


async def test_anthropic_history_is_flushed_and_rendered_with_results_and_summaries_as_user_content() -> None:
    condenser = AnthropicCondenser(config=STUBS)
    await anthropic_run(condenser)
    await condenser.add([{"role": "user", "content": "and the tests?"}])
    request = plain(condenser.messages())
    assert [m["role"] for m in request] == ["user"] + ["assistant", "user"] * 4
    results = [b for m in request if isinstance(m["content"], list) for b in m["content"]
               if b["type"] == "tool_result"]
    assert len(results) == 3 and all("context_tree_query" in r["content"] for r in results)
    last = request[-1]["content"]
    assert ["Summarized tool refs" in b["text"] for b in last] == [True, True, True, False]
    assert last[-1] == {"type": "text", "text": "and the tests?"}
    tool = condenser.tool
    assert tool["name"] == "context_tree_query" and tool["input_schema"]["required"] == ["toolCallIds"]
    answer = condenser.answer({"type": "tool_use", "id": "toolu_q", "name": "context_tree_query",
                               "input": {"toolCallIds": ["t3"]}})
    assert answer["type"] == "tool_result" and answer["tool_use_id"] == "toolu_q"
    assert output(2) in answer["content"]


async def test_results_handed_over_apart_from_their_call_prune_the_same() -> None:
    together, apart = OpenAICondenser(), OpenAICondenser()
    await openai_run(together)
    await apart.add([{"role": "user", "content": "fix the handler"}])
    for n in range(3):
        call, result = openai_turn(n)
        await apart.add([call])
        await apart.add([result])
    await apart.add([{"role": "assistant", "content": "Fixed."}])
    assert apart.messages() == together.messages()


async def test_summaries_come_from_the_agents_function_sync_or_async() -> None:
    prompts: list[str] = []

    def write(prompt: str) -> str:
        prompts.append(prompt)
        return "[[1:read]] read a handler module"

    async def write_async(prompt: str) -> str:
        return write(prompt)

    for summarize in (write, write_async):
        condenser = OpenAICondenser(summarizer=summarize, config=STUBS)
        await openai_run(condenser, turns=1)
        assert "return process(event)" in prompts[-1]
        assert "read a handler module" in texts(condenser.messages()[-1])


async def test_a_failing_summariser_leaves_the_output_whole_and_says_why() -> None:
    def broken(prompt: str) -> str:
        raise ConnectionError("summariser unreachable")

    condenser = OpenAICondenser(summarizer=broken)
    await openai_run(condenser, turns=1)
    assert [m["content"] for m in condenser.messages() if m["role"] == "tool"] == [output(0)]
    assert any("summariser unreachable" in text for _, text in condenser.host.notices)


async def test_a_store_folder_keeps_the_pruned_state_across_a_restart(tmp_path: Path) -> None:
    first = OpenAICondenser(tmp_path / "agent-state")
    await openai_run(first)
    request = first.messages()
    first.close()  # one writer per store: the agent that restarts has ended the first
    again = OpenAICondenser(tmp_path / "agent-state")
    assert again.messages() == request
    assert output(0) in again.query(["t1"])
    await again.add([{"role": "user", "content": "more"}])
    assert len(list((tmp_path / "agent-state").glob("*.jsonl"))) == 1


async def test_an_oversized_output_spills_beside_the_store(tmp_path: Path) -> None:
    condenser = OpenAICondenser(tmp_path / "state", config={"spill_threshold": 2000})
    await condenser.add([{"role": "user", "content": "read the log"}])
    await condenser.add(openai_turn(0))
    blobs = list((tmp_path / "state").glob("*-blobs/*.txt"))
    assert len(blobs) == 1 and blobs[0].read_text() == output(0)
    assert "Spilled" in plain(condenser.messages())[-1]["content"]


async def test_a_spilled_output_is_found_from_another_folder_and_after_the_store_moved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store named relative to the agent's folder, read back from elsewhere, then moved whole."""
    monkeypatch.chdir(tmp_path)
    with OpenAICondenser("state", config={"spill_threshold": 2000}) as condenser:
        await condenser.add([{"role": "user", "content": "read the log"}])
        await condenser.add(openai_turn(0))
    monkeypatch.chdir(tmp_path.parent)
    assert output(0) in OpenAICondenser(tmp_path / "state").query(["call_0"])
    (tmp_path / "state").rename(tmp_path / "moved")
    assert output(0) in OpenAICondenser(tmp_path / "moved").query(["call_0"])


async def test_pruning_off_returns_the_history_as_handed_over() -> None:
    condenser = OpenAICondenser(config={"enabled": False})
    await openai_run(condenser)
    sent = [{"role": "user", "content": "fix the handler"}, *[m for n in range(3) for m in openai_turn(n)],
            {"role": "assistant", "content": "Fixed."}]
    assert condenser.messages() == sent


def test_a_bad_setting_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r'^condense: config spill_threshold: [^\n]*"big"\)$'):
        OpenAICondenser(tmp_path / "state", config={"spill_threshold": "big"})
    assert not (tmp_path / "state").exists()


def test_a_model_name_as_summariser_is_refused_with_the_way_to_use_one(tmp_path: Path) -> None:
    """The facade imports no model client: docs/LIBRARY.md sends a litellm model through the engine's
    litellm_summarizer (the [litellm] extra), and the refusal says the same before anything is written."""
    with pytest.raises(ValueError, match=r"condense\.litellm_summary\.litellm_summarizer\('openai/gpt-4o'\)"
                                         r" \(pip install 'condense-engine\[litellm\]'\)$"):
        OpenAICondenser(tmp_path / "state", summarizer="openai/gpt-4o")
    assert not (tmp_path / "state").exists()


def test_every_public_name_says_what_it_is_for() -> None:
    import condense

    objects = {name: getattr(condense, name) for name in public_names}
    undocumented = [name for name, obj in objects.items() if (inspect.isclass(obj) or inspect.isfunction(obj))
                    and not (obj.__doc__ or "").strip()]
    assert undocumented == []
    assert condense.__version__ and (Path(condense.__file__).parent / "py.typed").exists()


def test_summary_entries_are_pi_custom_messages(tmp_path: Path) -> None:
    """The summaries a flush writes are the same `custom_message` entries pi-tui writes."""
    import asyncio

    condenser = OpenAICondenser(tmp_path / "s")
    asyncio.run(openai_run(condenser, turns=1))
    kinds = [(e["type"], e.get("customType")) for e in condenser.host.entries]
    assert ("custom_message", SUMMARY) in kinds


async def test_on_demand_pruning_waits_for_flush_and_shrink_prunes_everything_for_a_retry() -> None:
    condenser = OpenAICondenser(config={"prune_on": "on-demand"})
    await openai_run(condenser, turns=2)
    whole = condenser.messages()
    assert [m["content"] for m in whole if m["role"] == "tool"] == [output(0), output(1)]
    assert await condenser.shrink() is True
    shrunk = texts(condenser.messages())
    assert len(shrunk) < len(texts(whole)) // 2 and "compressed-chain" in shrunk
    assert output(1) in condenser.query(["t2"])


async def test_flush_summarises_pending_work_on_request() -> None:
    condenser = OpenAICondenser(config={"prune_on": "on-demand"})
    await condenser.add([{"role": "user", "content": "go"}, *openai_turn(0)])
    await condenser.flush()
    assert "context_tree_query" in plain(condenser.messages())[2]["content"]


async def test_a_batch_with_a_message_pi_cannot_hold_is_refused_whole(tmp_path: Path) -> None:
    condenser = OpenAICondenser(tmp_path / "state")
    await condenser.add([{"role": "user", "content": "hi"}])
    before = (next((tmp_path / "state").glob("*.jsonl"))).read_text()
    with pytest.raises(ValueError, match="data: URL"):
        await condenser.add([*openai_turn(0), {"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}])
    assert next((tmp_path / "state").glob("*.jsonl")).read_text() == before
    assert condenser.messages() == [{"role": "user", "content": "hi"}]


async def test_reported_usage_near_the_window_flushes_after_a_tool_turn_as_pi_tui_does() -> None:
    """The budget trigger reads the provider's usage, as pi-tui's agent does: a tool turn that brings
    the context past the threshold is summarised before the model is asked again."""
    condenser = OpenAICondenser(context_window=10_000)
    await condenser.add([{"role": "user", "content": "go"}])
    await condenser.add(openai_turn(0), usage={"prompt_tokens": 7000, "completion_tokens": 30})
    await condenser.add(openai_turn(1), usage={"prompt_tokens": 7900, "completion_tokens": 30})
    request = condenser.messages()
    assert [m["content"] for m in request if m["role"] == "tool"] != [output(0), output(1)]
    assert "Summarized tool refs" in texts(request)
    assert any("budget reached" in text for _, text in condenser.host.notices)


async def test_a_history_holding_summaries_renders_each_request_from_the_last() -> None:
    """Summaries are custom messages rebuilt from their log entries; being the same objects every time,
    the next request extends the last render instead of rendering the whole history again."""
    condenser = OpenAICondenser(config=STUBS)
    await openai_run(condenser)
    assert SUMMARY in texts(condenser.host.messages())
    condenser.messages()
    await condenser.add([{"role": "user", "content": "and the tests?"}])
    condenser.messages()
    assert condenser.engine.last_render_kind == "incremental"


async def test_a_store_reopened_with_pending_work_is_pruned_before_its_next_request(tmp_path: Path) -> None:
    first = OpenAICondenser(tmp_path / "agent-state", config={"prune_on": "on-demand"})
    await openai_run(first, turns=2)
    assert [m["content"] for m in first.messages() if m["role"] == "tool"] == [output(0), output(1)], \
        "on demand: nothing pruned yet"
    first.close()
    again = OpenAICondenser(tmp_path / "agent-state")
    await again.add([{"role": "user", "content": "and now the tests"}])
    request = again.messages()
    assert not {output(0), output(1)} & {m["content"] for m in request if isinstance(m.get("content"), str)}, \
        "no request since the store opened: the cache is cold, so the pending work is pruned first"
    assert output(0) in again.query(["t1"])


# An agent killed between a tool call and its result: the call is in the store, its result never is.
KILLED_MID_TOOL = """
import os, signal, sys
from condense import AnthropicCondenser, OpenAICondenser
from tests.condense.test_facade import anthropic_turn, openai_turn
shape, store = sys.argv[1], sys.argv[2]
agent = (OpenAICondenser if shape == "openai" else AnthropicCondenser)(store)
agent.add_sync([{"role": "user", "content": "fix the handler"}])
agent.add_sync((openai_turn if shape == "openai" else anthropic_turn)(0)[:1])
os.kill(os.getpid(), signal.SIGKILL)
"""


def killed_mid_tool(store: Path, shape: str) -> None:
    done = subprocess.run([sys.executable, "-c", KILLED_MID_TOOL, shape, str(store)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == -9, done.stderr


def test_a_call_whose_result_a_crash_lost_is_answered_so_every_later_request_is_accepted(tmp_path: Path) -> None:
    """Without an answer every later request holds an unanswered call, which every provider refuses (400)."""
    killed_mid_tool(tmp_path / "store", "openai")
    with OpenAICondenser(tmp_path / "store") as agent:
        agent.add_sync([{"role": "user", "content": "are you still there?"}])
        request = agent.messages()
        validate_request({"model": "m", "messages": [{"role": "system", "content": "agent"}, *request]})
        assert [m["role"] for m in request] == ["user", "assistant", "tool", "user"]
        assert request[2] == {"role": "tool", "tool_call_id": "call_0", "content": NO_RESULT_TEXT}


def test_an_anthropic_call_whose_result_a_crash_lost_is_answered_in_the_next_user_message(tmp_path: Path) -> None:
    killed_mid_tool(tmp_path / "store", "anthropic")
    with AnthropicCondenser(tmp_path / "store") as agent:
        agent.add_sync([{"role": "user", "content": "are you still there?"}])
        request = plain(agent.messages())
        assert [m["role"] for m in request] == ["user", "assistant", "user"]
        answer, prompt = request[2]["content"]
        assert answer == {"type": "tool_result", "tool_use_id": "toolu_0", "is_error": True, "content": NO_RESULT_TEXT}
        assert prompt == {"type": "text", "text": "are you still there?"}
