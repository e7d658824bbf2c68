"""Provider faults through the real litellm HTTP path: the local fake server misbehaves on purpose.

The main model: rate-limit storms longer than the retry budget, 5xx errors, a stream cut inside a tool
call, a chunk of invalid JSON and a stalled stream each end in a retry and, when retries run out, in one
clear line; the session file stays valid and every later request is one a strict provider accepts.
The summariser (its own model on a second fake server, via OPENAI_API_BASE): its faults fall back to
the session model; when both are down the work stays pending (no index record without its summary) and
the next flush summarises it exactly once. An abort during a flush leaves nothing half-written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.record_bursts import expanded
from condense.records import INDEX, SUMMARY
from pi_tui.agent.condense_host import install
from pi_tui.agent.events import AutoRetryStartEvent
from pi_tui.agent.host import AgentHost
from pi_tui.agent.loop import AgentConfig, RetryPolicy
from pi_tui.ai.litellm_client import LiteLLMClient, warm_up
from pi_tui.ai.types import ModelSpec
from pi_tui.cli import main
from pi_tui.session.store import Session
from pi_tui.tools import make_tools
from tests.reliability.consistency import check_ledger, check_session
from tests.support.fake_openai import (
    FakeOpenAI,
    Reply,
    call,
    rate_limited,
    server_error,
    text_reply,
    tool_reply,
)
from tests.support.typed import plain
from tests.support.waiting import until

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")]

SAFETY = 60  # seconds: a net for hangs, never a performance assertion
RETRIES = 2
SUMMARY_TEXT = "[[1:read]] the file is 300 lines of the same text"


@pytest.fixture(scope="module", autouse=True)
def _litellm_imported() -> None:
    warm_up()


@pytest.fixture
def summariser(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """A second provider for `openai/summ-model`, reached the way a user would point litellm at it."""
    with FakeOpenAI(stall_timeout=10) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-summariser")
        monkeypatch.setenv("OPENAI_API_BASE", server.base_url)
        yield server


class Notes:
    def __init__(self) -> None:
        self.notices: list[tuple[str, str]] = []
        self.retries: list[AutoRetryStartEvent] = []

    def notify(self, text: str, level: str = "info") -> None:
        self.notices.append((level, text))

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        return None

    def said(self, level: str, fragment: str) -> bool:
        return any(lvl == level and fragment in text for lvl, text in self.notices)


async def agent(server: FakeOpenAI, cwd: Path, idle_ms: int = 300_000,
                **condense: Any) -> tuple[AgentHost, Notes, CondenseEngine]:
    model = ModelSpec(provider="openai", id="main-model", base_url=server.base_url)
    notes = Notes()
    retry = RetryPolicy(True, RETRIES, 1, 5, stream_idle_timeout_ms=idle_ms)
    config = AgentConfig(model, "You are a test.", cwd, retry=retry)
    host = AgentHost(Session.create(cwd, cwd / "sessions"), LiteLLMClient(), config,
                     make_tools(["read", "bash"]), notes)
    host.bus.on("auto_retry_start", notes.retries.append)
    settings = CondenseConfig.model_validate({"summarizer_model": "extractive", **condense})
    engine = install(host, settings, lambda spec: LiteLLMClient())
    await host.start()
    return host, notes, engine


async def prompt(host: AgentHost, text: str) -> list[dict[str, Any]]:
    return plain(await asyncio.wait_for(host.prompt(text), SAFETY))


def one_line(text: str) -> bool:
    return bool(text) and "\n" not in text and "Traceback" not in text


def assert_valid(host: AgentHost, server: FakeOpenAI) -> None:
    assert server.rejections == [], f"the strict provider refused a request: {server.rejections}"
    assert host.session.path is not None
    check_session(host.session.path)


# ----- the main model -----------------------------------------------------------------------------

@pytest.mark.parametrize("fault", [rate_limited, server_error], ids=["429", "500"])
async def test_a_storm_longer_than_the_retry_budget_ends_in_one_clear_line(
        fake_openai: FakeOpenAI, tmp_path: Path, fault: Any) -> None:
    fake_openai.push(*(fault() for _ in range(RETRIES + 2)))
    host, notes, _ = await agent(fake_openai, tmp_path)
    added = await prompt(host, "hello")
    last = added[-1]
    assert last["stopReason"] == "error" and one_line(last["errorMessage"])
    assert len(notes.retries) == RETRIES and len(fake_openai.requests) == RETRIES + 1
    assert fake_openai.pending == 1, "no request beyond the budget"
    assert_valid(host, fake_openai)
    fake_openai.push(text_reply("back again"))
    again = await prompt(host, "try once more")
    assert again[-1]["content"][0]["text"] == "back again"
    assert_valid(host, fake_openai)


def _stream_faults() -> list[Any]:
    read = call("read", {"path": "notes.txt", "offset": 1, "limit": 40}, "cut_1")
    return [
        pytest.param(tool_reply(read, cut_after=4), id="cut-mid-tool-call"),
        pytest.param(Reply(text="half an answer that breaks", invalid_json_at=3), id="invalid-json-chunk"),
        pytest.param(server_error(503), id="503"),
    ]


@pytest.mark.parametrize("fault", _stream_faults())
async def test_a_broken_stream_is_retried_and_nothing_half_done_reaches_the_session(
        fake_openai: FakeOpenAI, tmp_path: Path, fault: Reply) -> None:
    (tmp_path / "notes.txt").write_text("a note\n" * 50)
    fake_openai.push(fault, tool_reply(call("read", {"path": "notes.txt"}, "ok_1")), text_reply("done"))
    host, notes, _ = await agent(fake_openai, tmp_path)
    added = await prompt(host, "read notes.txt")
    assert added[-1]["content"][0]["text"] == "done" and len(notes.retries) == 1
    results = [m for m in added if m["role"] == "toolResult"]
    assert [r["toolCallId"] for r in results] == ["ok_1"], "the cut call never ran"
    assert not any(m.get("stopReason") == "error" for m in added), "a retried failure leaves the conversation"
    recorded = host.session.messages()  # and stays in the session file, as in Pi
    errored = [m for m in recorded if m["role"] == "assistant" and m["stopReason"] == "error"]
    assert len(errored) == 1 and one_line(errored[0]["errorMessage"])
    assert_valid(host, fake_openai)


async def test_a_stalled_stream_times_out_and_is_retried(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.push(Reply(text="this reply stalls after a word or two", stall_after=2),
                     text_reply("recovered"))
    host, notes, _ = await agent(fake_openai, tmp_path, idle_ms=1000)
    added = await prompt(host, "hello")
    assert added[-1]["content"][0]["text"] == "recovered"
    assert len(notes.retries) == 1 and "timed out" in notes.retries[0]["errorMessage"].lower()
    assert_valid(host, fake_openai)


def test_print_mode_says_a_provider_failure_in_one_line_and_saves_a_valid_session(
        fake_openai: FakeOpenAI, isolated_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (isolated_home / "settings.toml").write_text(f"[retry]\nmax_retries = {RETRIES}\nbase_delay_ms = 1\n")
    fake_openai.push(*(rate_limited() for _ in range(RETRIES + 1)))
    code = main(["-p", "hi", "--model", "openai/main-model", "--base-url", fake_openai.base_url])
    err = capsys.readouterr().err
    assert code == 1
    lines = err.splitlines()
    assert all(line.startswith("pi-tui: ") for line in lines) and "Traceback" not in err
    assert len([line for line in lines if line.startswith("pi-tui: error:")]) == 1
    assert len([line for line in lines if "(retry " in line]) == RETRIES
    (path,) = (isolated_home / "sessions").rglob("*.jsonl")
    check_session(path)
    assert Session.open(path).messages()[-1].get("stopReason") == "error"


# ----- the summariser -----------------------------------------------------------------------------

def _big_file(cwd: Path) -> None:
    (cwd / "big.txt").write_text("line of a big file\n" * 300)


def _pruner_entries(host: AgentHost) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The summaries on file, and what indexes their outputs: index records, and each summary that stands
    for its outputs' record (`"indexed": true`)."""
    assert host.session.path is not None
    entries = list(expanded(Session.open(host.session.path).entries))
    summaries = [e for e in entries if e.get("customType") == SUMMARY]
    return (summaries, [e for e in entries if e.get("customType") == INDEX]
            + [e for e in summaries if e["details"].get("indexed") is True])


SUMMARISER_FAULTS = [
    pytest.param(Reply(text="never finishes", stall_after=1), id="stall"),
    pytest.param(server_error(500), id="500"),
    pytest.param(Reply(text="[[1:read]] a summary cut short", cut_after=3), id="cut"),
    pytest.param(Reply(text="[[1:read]] broken", invalid_json_at=2), id="invalid-json"),
    pytest.param(rate_limited(), id="429"),
]


@pytest.mark.parametrize("fault", SUMMARISER_FAULTS)
async def test_a_failing_summariser_falls_back_to_the_session_model(
        fake_openai: FakeOpenAI, summariser: FakeOpenAI, tmp_path: Path, fault: Reply) -> None:
    _big_file(tmp_path)
    summariser.push(fault)
    fake_openai.push(tool_reply(call("read", {"path": "big.txt"}, "c1")), text_reply("read it"),
                     text_reply(SUMMARY_TEXT + " (by the session model)"))
    host, notes, _ = await agent(fake_openai, tmp_path, summarizer_model="openai/summ-model",
                                 summarizer_idle_timeout_ms=500)
    await prompt(host, "read big.txt")
    assert len(summariser.requests) == 1 and len(fake_openai.requests) == 3
    summaries, indexes = _pruner_entries(host)
    assert len(summaries) == 1 and "(by the session model)" in summaries[0]["content"]
    assert len(indexes) == 1
    assert notes.said("warning", "using session model openai/main-model")
    assert_valid(host, fake_openai)


async def test_with_both_models_down_the_work_stays_pending_and_the_next_flush_summarises_it_once(
        fake_openai: FakeOpenAI, summariser: FakeOpenAI, tmp_path: Path) -> None:
    _big_file(tmp_path)
    summariser.push(server_error(500))
    fake_openai.push(tool_reply(call("read", {"path": "big.txt"}, "c1")), text_reply("read it"),
                     server_error(500))
    host, notes, engine = await agent(fake_openai, tmp_path, summarizer_model="openai/summ-model")
    await prompt(host, "read big.txt")
    assert _pruner_entries(host) == ([], []), "no summary, and no index record that would stub the output"
    assert notes.said("warning", "stays pending")
    assert_valid(host, fake_openai)
    # both recover; the session model is tried first until the cooldown lets the summariser be probed
    fake_openai.push(text_reply("second answer"), text_reply(SUMMARY_TEXT + " (later)"))
    summariser.push(text_reply(SUMMARY_TEXT + " (later)"))
    await prompt(host, "and now?")
    summaries, indexes = _pruner_entries(host)
    assert len(summaries) == 1 and "(later)" in summaries[0]["content"] and len(indexes) == 1
    assert check_ledger(Session.open(host.session.path)) == 1  # type: ignore[arg-type]
    assert (await engine.flush("manual")).summarized == 0, "nothing left to summarise twice"
    assert_valid(host, fake_openai)


async def test_abort_during_a_flush_leaves_nothing_half_written(
        fake_openai: FakeOpenAI, summariser: FakeOpenAI, tmp_path: Path) -> None:
    _big_file(tmp_path)
    summariser.push(Reply(text=SUMMARY_TEXT + " slowly" * 40, chunk_size=8, delay=0.1))
    fake_openai.push(tool_reply(call("read", {"path": "big.txt"}, "c1")), text_reply("read it"))
    host, notes, engine = await agent(fake_openai, tmp_path, summarizer_model="openai/summ-model")
    running = asyncio.ensure_future(prompt(host, "read big.txt"))
    await until(lambda: summariser.chunks_sent >= 2, "the summary to start streaming", SAFETY)
    host.abort()
    await running
    assert _pruner_entries(host) == ([], []), "an aborted flush writes neither a summary nor an index record"
    assert not notes.said("error", "summarization failed"), "an abort is not reported as a failure"
    assert_valid(host, fake_openai)
    summariser.push(text_reply(SUMMARY_TEXT))
    assert (await asyncio.wait_for(engine.flush("manual"), SAFETY)).summarized == 1
    summaries, indexes = _pruner_entries(host)
    assert len(summaries) == 1 and len(indexes) == 1
    assert [ref["toolCallId"] for ref in summaries[0]["details"]["toolCallRefs"]] == ["c1"]
    assert_valid(host, fake_openai)
