"""A pruned session file grows by a small share of its size, not by a second copy of its outputs: on a copy
of pi-large-session, `/pruner now` as pi-tui's agent runs it (benchmarks/session_growth.py prints every
corpus session), then `/tree` to an earlier user message and a flush there. The growth is measured over
the file as opened: the corpus file is Pi's version 1, which opening migrates (as Pi does) to version 3."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from condense.config import CondenseConfig
from pi_tui.agent.condense_host import install
from pi_tui.agent.host import AgentHost
from pi_tui.agent.loop import AgentConfig
from pi_tui.ai.litellm_client import LiteLLMClient
from pi_tui.ai.types import ModelSpec
from pi_tui.modes.offline import offline_engine
from pi_tui.session.store import Session
from pi_tui.tools import make_tools
from tests.conftest import corpus_path
from tests.pi_tui.agent.test_condense_host_compaction import Quiet
from tests.support.fake_openai import FakeOpenAI
from tests.support.typed import present

pytestmark = [pytest.mark.xdist_group("serial"), pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")]


async def test_pruning_then_switching_branch_grows_the_file_by_a_small_share(
        fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    path = tmp_path / "large.jsonl"
    shutil.copyfile(corpus_path("pi-large-session.jsonl"), path)
    Session.open(path).save_as(tmp_path / "opened.jsonl")
    size = (tmp_path / "opened.jsonl").stat().st_size
    model = ModelSpec(provider="openai", id="fake-model", base_url=fake_openai.base_url)
    host = AgentHost(Session.open(path), LiteLLMClient(), AgentConfig(model, "You are a test.", tmp_path),
                     make_tools(["read"]), Quiet())
    engine = install(host, CondenseConfig.model_validate({"summarizer_model": "extractive"}),
                     lambda spec: LiteLLMClient())
    await host.start()
    await present(host.commands["pruner"].handler("now"))
    assert len(engine.index) > 300, "the session's outputs were pruned"
    # +4.04% (+3.97% before small tasks stayed raw, chain_compression.min_chars: their records are kept apart)
    assert path.stat().st_size <= size * 1.045, "was +5.3% with an index record per summary and per chain"
    users = [e["id"] for e in host.session.branch_entries()
             if e.get("type") == "message" and e["message"].get("role") == "user"]
    await host.navigate(users[len(users) * 3 // 4])
    await present(host.commands["pruner"].handler("now"))
    assert path.stat().st_size <= size * 1.06, "was +8.7% with the chains carried as copies"
    reopened = install(AgentHost(Session.open(path), LiteLLMClient(), AgentConfig(model, "x", tmp_path),
                                 make_tools(["read"]), Quiet()),
                       CondenseConfig.model_validate({"summarizer_model": "extractive"}), lambda spec: LiteLLMClient())
    reopened.on_session_start()
    assert reopened.render(host.agent.messages) == engine.render(host.agent.messages)
    refs = [ref for record in engine.index.records() if (ref := engine.index.get_short_ref(record.key))]
    assert len(refs) > 250 and all(reopened.query([ref]) == engine.query([ref]) for ref in refs)
    offline, _ = offline_engine(Session.open(path), CondenseConfig.model_validate({"summarizer_model": "extractive"}))
    blocks = [chain.block_id for chain in engine.chains]  # most of them named where the branch left behind holds them
    assert len(blocks) > 40 and all(offline.query([ref]) == engine.query([ref]) for ref in [*refs, *blocks])
