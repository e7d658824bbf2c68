"""condense inside the live agent: real loop, real litellm, the local fake provider, a real session file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from condense.config import CondenseConfig
from condense.query import QUERY_TOOL_DESCRIPTION, QUERY_TOOL_PARAMETERS
from condense.record_bursts import expanded
from pi_tui.agent.condense_host import install
from pi_tui.agent.host import AgentHost
from pi_tui.agent.loop import AgentConfig
from pi_tui.ai.litellm_client import LiteLLMClient, warm_up
from pi_tui.ai.types import ModelSpec
from pi_tui.session.store import Session
from pi_tui.tools import make_tools
from tests.support.fake_openai import (
    FakeOpenAI,
    Reply,
    call,
    context_overflow,
    error_reply,
    text_reply,
    tool_reply,
)
from tests.support.typed import plain as dicts
from tests.support.typed import present

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")]


@pytest.fixture(scope="module", autouse=True)
def _litellm_imported() -> None:
    warm_up()


class Notes:
    def __init__(self) -> None:
        self.notices: list[tuple[str, str]] = []
        self.status: dict[str, str | None] = {}

    def notify(self, text: str, level: str = "info") -> None:
        self.notices.append((level, text))

    def set_status(self, key: str, text: str | None) -> None:
        self.status[key] = text

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        return None


async def agent(server: FakeOpenAI, cwd: Path, **config: Any) -> tuple[AgentHost, Notes]:
    model = ModelSpec(provider="openai", id="fake-model", base_url=server.base_url)
    notes = Notes()
    host = AgentHost(Session.create(cwd, cwd / "sessions"), LiteLLMClient(),
                     AgentConfig(model, "You are a test.", cwd), make_tools(["read", "bash"]), notes)
    install(host, CondenseConfig.model_validate({"summarizer_model": "extractive", **config}),
            lambda spec: LiteLLMClient())
    await host.start()
    return host, notes


def tool_texts(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_final_reply_flushes_and_the_next_request_carries_stubs_and_the_summary(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("line of a big file\n" * 300)
    fake_openai.push(tool_reply(call("read", {"path": "big.txt"}, "c1")), text_reply("read it"),
                     text_reply("next answer"))
    host, notes = await agent(fake_openai, tmp_path, chain_compression={"rolling_window": 3})  # chain kept raw
    await host.prompt("read big.txt")
    assert present(notes.status["condense"]).startswith("│ prune: ON · reads ")  # measured as the flush ends
    await host.prompt("and now?")
    last = fake_openai.requests[-1]
    assert "context_tree_query" in tool_texts(last)[0] and "`t1`" in tool_texts(last)[0]
    users = [m["content"] for m in last["messages"] if m["role"] == "user"]
    assert any("Summarized tool refs" in json.dumps(u) for u in users)
    assert "context_tree_query" in [t["function"]["name"] for t in last["tools"]]
    assert present(notes.status["condense"]).startswith("│ prune: ON · ")
    entries = list(expanded(Session.open(present(host.session.path)).entries))
    [summary] = [e for e in entries if e.get("customType") == "context-prune-summary"]
    assert summary["details"]["indexed"] is True, "the summary stands for its output's index record"


async def test_tree_to_an_earlier_entry_keeps_the_summary_a_later_flush_wrote(fake_openai: FakeOpenAI,
                                                                              tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("line of a big file\n" * 300)
    fake_openai.push(tool_reply(call("read", {"path": "big.txt"}, "c1")), text_reply("read it"),
                     text_reply("other answer"))
    host, _ = await agent(fake_openai, tmp_path, chain_compression={"rolling_window": 3})
    await host.prompt("read big.txt")
    entries = host.session.branch_entries()
    [reply] = [e["id"] for e in entries if e.get("message", {}).get("stopReason") == "stop"]
    assert entries[-1]["id"] != reply, "the final reply's flush wrote after it"
    await host.navigate(reply)  # back to the reply, before the summary its flush wrote
    await host.prompt("and now?")
    assert "`t1`" in tool_texts(fake_openai.requests[-1])[0], "still a stub with its ref"
    summaries = [e for e in host.session.branch_entries() if e.get("customType") == "context-prune-summary"]
    assert [[r["shortId"] for r in e["details"]["toolCallRefs"]] for e in summaries] == [["t1"]]


async def test_the_model_recovers_an_original_with_context_tree_query(fake_openai: FakeOpenAI,
                                                                      tmp_path: Path) -> None:
    body = "secret value 42\n" + "filler\n" * 400
    (tmp_path / "data.txt").write_text(body)
    fake_openai.push(tool_reply(call("read", {"path": "data.txt"}, "c1")), text_reply("ok"),
                     tool_reply(call("context_tree_query", {"toolCallIds": ["t1"]}, "q1")), text_reply("found it"))
    host, _ = await agent(fake_openai, tmp_path)
    await host.prompt("read data.txt")
    await host.prompt("what was the secret?")
    recovered = tool_texts(fake_openai.requests[-1])[-1]
    assert recovered.startswith("## toolRef: t1\nTool: read") and "secret value 42" in recovered


async def test_the_model_pages_through_an_original_and_is_offered_the_library_s_definition(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    (tmp_path / "data.txt").write_text("".join(f"row {n}\n" for n in range(1, 1001)))
    fake_openai.push(tool_reply(call("read", {"path": "data.txt"}, "c1")), text_reply("ok"),
                     tool_reply(call("context_tree_query", {"toolCallIds": ["t1"], "offset": 500, "limit": 2}, "q1")),
                     tool_reply(call("context_tree_query", {"toolCallIds": ["t1"], "pattern": "ROW 999"}, "q2")),
                     tool_reply(call("context_tree_query", {"toolCallIds": ["t1"], "offset": 0}, "q3")),
                     tool_reply(call("context_tree_query", {"toolCallIds": ["t1"], "offset": True}, "q4")),
                     text_reply("found it"))
    host, _ = await agent(fake_openai, tmp_path)
    await host.prompt("read data.txt")
    await host.prompt("what is on row 500?")
    last = fake_openai.requests[-1]
    [tool] = [t["function"] for t in last["tools"] if t["function"]["name"] == "context_tree_query"]
    assert tool["parameters"] == QUERY_TOOL_PARAMETERS and tool["description"] == QUERY_TOOL_DESCRIPTION
    page, found, refused, not_a_number = (text.split("\n\n", 1)[-1] for text in tool_texts(last)[-4:])
    assert page == ('row 500\nrow 501\n[Output truncated: lines 500-501 of 1000 shown. Continue with '
                    'context_tree_query({"toolCallIds": ["t1"], "offset": 502, "limit": 2})]')
    assert found == '999: row 999\n[1 of 1000 lines contains "ROW 999"]'
    assert refused == ('Validation failed for tool "context_tree_query": offset: Input should be greater than or'
                       " equal to 1")
    assert not_a_number == ('Validation failed for tool "context_tree_query": offset: Input should be a number, not'
                            " true or false")  # `true` was read as 1


async def test_context_overflow_prunes_everything_then_retries_once(fake_openai: FakeOpenAI,
                                                                   tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x" * 5000)
    fake_openai.push(tool_reply(call("read", {"path": "big.txt"}, "c1")), text_reply("first"),
                     context_overflow(), text_reply("fits now"))
    host, _ = await agent(fake_openai, tmp_path, prune_on="on-demand")
    await host.prompt("read")
    added = await host.prompt("more")
    assert dicts(added)[-1]["content"][0]["text"] == "fits now"
    overflowed, retried = fake_openai.requests[-2], fake_openai.requests[-1]
    assert len(json.dumps(retried)) < len(json.dumps(overflowed)) - 4000
    assert tool_texts(retried) == [], "the closed first task was compressed as a whole (like /pruner compact)"
    assert '<compressed-chain id=\\"b1\\" tools=\\"t1\\">' in json.dumps(retried)
    # nothing is added after the prompt: the retry still ends with it, and no summary follows it on the branch
    assert retried["messages"][-1] == {"role": "user", "content": [{"type": "text", "text": "more"}]}
    prompt = next(i for i, e in enumerate(host.session.branch_entries())
                  if e.get("type") == "message" and e["message"]["content"] == [{"type": "text", "text": "more"}])
    assert not [e for e in host.session.branch_entries()[prompt:] if e.get("type") == "custom_message"]


async def test_a_second_overflow_is_said_plainly_and_the_session_stays_valid(fake_openai: FakeOpenAI,
                                                                            tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x" * 5000)
    fake_openai.push(tool_reply(call("read", {"path": "big.txt"}, "c1")), text_reply("first"),
                     context_overflow(), context_overflow())
    host, notes = await agent(fake_openai, tmp_path, prune_on="on-demand")
    await host.prompt("read")
    added = await host.prompt("more")
    assert added[-1].get("stopReason") == "error"
    assert len(fake_openai.requests) == 4, "exactly one retry after pruning"
    plain = [text for level, text in notes.notices if level == "error"]
    assert len(plain) == 1 and "still over the model's context window" in plain[0]
    reloaded = Session.open(present(host.session.path))
    assert reloaded.warnings == [] and reloaded.messages()[-1].get("stopReason") == "error"


async def test_an_overflow_with_pruning_off_calls_no_summariser(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x" * 5000)
    fake_openai.push(tool_reply(call("read", {"path": "big.txt"}, "c1")), context_overflow())
    host, _ = await agent(fake_openai, tmp_path, enabled=False, summarizer_model="openai/fake-model")
    added = await host.prompt("read")
    assert added[-1].get("stopReason") == "error" and len(fake_openai.requests) == 2
    assert not [e for e in host.session.branch_entries() if str(e.get("customType")).startswith("context-prune")]


async def test_overflow_with_nothing_to_prune_does_not_retry(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(context_overflow())
    host, _ = await agent(fake_openai, tmp_path)
    added = await host.prompt("hello")
    assert added[-1].get("stopReason") == "error"
    assert len(fake_openai.requests) == 1


async def test_a_rejected_key_stops_pruner_now_at_the_first_batch_and_keeps_all_work_pending(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    for name in "abc":
        (tmp_path / f"{name}.txt").write_text(f"line of {name}\n" * 300)
    fake_openai.push(*(tool_reply(call("read", {"path": f"{n}.txt"}, f"c{n}")) for n in "abc"), text_reply("read"))
    host, notes = await agent(fake_openai, tmp_path, summarizer_model="default", prune_on="on-demand")
    await host.prompt("read a, b and c")
    asked = len(fake_openai.requests)
    fake_openai.push(error_reply(401, "Incorrect API key provided", kind="invalid_request_error",
                                 code="invalid_api_key"))
    await present(host.commands["pruner"].handler("now"))
    assert len(fake_openai.requests) == asked + 1  # one summariser call, not one per batch
    errors = [text for level, text in notes.notices if level in ("error", "warning")]
    assert len(errors) == 1 and "Incorrect API key provided" in errors[0] and "3 batches" in errors[0]
    kinds = [e.get("customType") for e in expanded(host.session.entries)]
    assert "context-prune-summary" not in kinds and "context-prune-index" not in kinds
    fake_openai.push(*(text_reply(f"- read {n}.txt") for n in "abc"))  # the key works again
    await present(host.commands["pruner"].handler("now"))
    kinds = [e.get("customType") for e in host.session.entries]
    assert kinds.count("context-prune-summary") == 3  # nothing was lost: every batch was still pending


def rejected_key() -> Reply:
    return error_reply(401, "Incorrect API key provided", kind="invalid_request_error", code="invalid_api_key")


async def read_three_files(server: FakeOpenAI, cwd: Path, *then: Reply, **config: Any) -> tuple[AgentHost, Notes]:
    """A run of three tool turns, the summariser being the session's model; `then` answers what follows."""
    for name in "abc":
        (cwd / f"{name}.txt").write_text(f"line of {name}\n" * 300)
    server.push(*(tool_reply(call("read", {"path": f"{n}.txt"}, f"c{n}")) for n in "abc"), text_reply("read"),
                *then)
    host, notes = await agent(server, cwd, summarizer_model="default", **config)
    await host.prompt("read a, b and c")
    return host, notes


async def test_a_rejected_key_stops_the_final_reply_flush_at_one_summariser_call(fake_openai: FakeOpenAI,
                                                                                  tmp_path: Path) -> None:
    # the run's final reply flushes its three tool turns
    host, notes = await read_three_files(fake_openai, tmp_path, *(rejected_key() for _ in range(3)))
    assert len(fake_openai.requests) == 5, "four turns, then one summariser call, not one per batch"
    errors = [text for level, text in notes.notices if level in ("error", "warning")]
    assert len(errors) == 1 and "Incorrect API key provided" in errors[0] and "3 batches" in errors[0]
    assert "context-prune-summary" not in [e.get("customType") for e in host.session.entries]


async def test_a_rejected_key_stops_a_rearmed_flush_at_one_summariser_call(fake_openai: FakeOpenAI,
                                                                           tmp_path: Path) -> None:
    first, _ = await read_three_files(fake_openai, tmp_path, prune_on="on-demand")
    assert first.session.path is not None
    # reopened with a small window: the pending work rearms a flush at the next turn's end
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url, context_window=3000)
    notes = Notes()
    host = AgentHost(Session.open(first.session.path), LiteLLMClient(), AgentConfig(model, "You are a test.", tmp_path),
                     make_tools(["read"]), notes)
    engine = install(host, CondenseConfig.model_validate({"summarizer_model": "default"}),
                     lambda spec: LiteLLMClient())
    await host.start()
    assert engine.rearmed
    asked = len(fake_openai.requests)
    fake_openai.push(*(rejected_key() for _ in range(4)))
    added = await host.prompt("hello")
    assert added[-1].get("stopReason") == "error"
    assert len(fake_openai.requests) == asked + 2, "the turn, then one summariser call, not one per batch"
    assert any("summarization stopped" in text and "3 batches" in text for _, text in notes.notices)


async def test_a_resumed_session_with_pending_work_is_flushed_before_its_first_request(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    first, _ = await read_three_files(fake_openai, tmp_path, prune_on="on-demand")  # nothing flushed
    assert first.session.path is not None
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url)
    host = AgentHost(Session.open(first.session.path), LiteLLMClient(), AgentConfig(model, "You are a test.", tmp_path),
                     make_tools(["read"]), Notes())
    install(host, CondenseConfig.model_validate({"summarizer_model": "extractive"}), lambda spec: LiteLLMClient())
    await host.start()
    fake_openai.push(text_reply("hello again"))
    await host.prompt("hello")
    sent = json.dumps(fake_openai.requests[-1]["messages"])
    assert sent.count("line of a") < 10 and sent.count("line of c") < 10, \
        "the cache is cold after a reopen: the pending reads were pruned before the request, not sent whole"
    assert "t1" in sent and "t3" in sent, "their refs stand in for them"
