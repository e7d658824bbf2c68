"""condense in a session Pi compacted: `/pruner now` on a copy of a real compacted session summarises only
what the context Pi builds still holds, and the compaction's summary stays first in the request."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from condense.config import CondenseConfig
from condense.records import SUMMARY
from pi_tui.agent.condense_host import install
from pi_tui.agent.host import AgentHost
from pi_tui.agent.loop import AgentConfig
from pi_tui.ai.litellm_client import LiteLLMClient
from pi_tui.ai.types import ModelSpec
from pi_tui.session.store import Session
from pi_tui.tools import make_tools
from tests.conftest import corpus_path
from tests.support.fake_openai import FakeOpenAI
from tests.support.session_checks import index_records
from tests.support.typed import present

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")]


class Quiet:
    def notify(self, text: str, level: str = "info") -> None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        return None


def before_cut(entries: list[dict[str, Any]]) -> set[str]:
    """The tool call ids whose results the compaction left out of the context."""
    compaction = next(e for e in reversed(entries) if e.get("type") == "compaction")
    ids = [e.get("id") for e in entries]
    kept = ids.index(compaction["firstKeptEntryId"])
    return {e["message"]["toolCallId"] for e in entries[:kept]
            if e.get("type") == "message" and e["message"].get("role") == "toolResult"}


async def test_pruner_now_in_a_compacted_session_leaves_what_the_compaction_replaced(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    path = tmp_path / "compacted.jsonl"
    shutil.copyfile(corpus_path("pi-compaction-check.jsonl"), path)
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url)
    host = AgentHost(Session.open(path), LiteLLMClient(), AgentConfig(model, "You are a test.", tmp_path),
                     make_tools(["read"]), Quiet())
    engine = install(host, CondenseConfig.model_validate({"summarizer_model": "extractive", "fold_min_chars": 1}),
                     lambda spec: LiteLLMClient())
    await host.start()
    await present(host.commands["pruner"].handler("now"))
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    left_out = before_cut(entries)
    summarised = {ref["toolCallId"] for e in entries if e.get("customType") == SUMMARY
                  for ref in e["details"]["toolCallRefs"]}
    indexed = {record["toolCallId"] for records in index_records(entries) for record in records}
    chained = {call_id for chain in engine.chains for call_id in chain.dropped_tool_call_ids}
    assert summarised, "the outputs the context holds are summarised"
    assert not (summarised | indexed | chained) & left_out
    assert engine.render(host.agent.messages)[0]["role"] == "compactionSummary"
