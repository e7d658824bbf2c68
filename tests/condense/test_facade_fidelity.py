"""The library facade prunes exactly as condense does inside pi-tui.

pi-tui runs a real conversation (real loop, real tools, litellm, the local fake provider); an agent
holding the same conversation as OpenAI messages hands it to an OpenAICondenser turn by turn. The
history the facade gives back must be the very request pi-tui sent, summaries and stubs included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from condense import OpenAICondenser, to_openai
from condense.config import CondenseConfig
from pi_tui.agent.condense_host import install
from pi_tui.agent.host import AgentHost
from pi_tui.agent.loop import AgentConfig
from pi_tui.ai.litellm_client import LiteLLMClient, warm_up
from pi_tui.ai.types import ModelSpec
from pi_tui.session.store import Session
from pi_tui.tools import make_tools
from tests.support.fake_openai import FakeOpenAI, call, text_reply, tool_reply
from tests.support.typed import plain

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")]

CONFIG = {"chain_compression": {"rolling_window": 1}}


async def pi_tui_requests(server: FakeOpenAI, cwd: Path, prompts: list[str]) -> tuple[Path, list[dict[str, Any]]]:
    """Run `prompts` through pi-tui with condense on; the session file and every request it sent."""
    warm_up()
    model = ModelSpec(provider="openai", id="fake-model", base_url=server.base_url)
    host = AgentHost(Session.create(cwd, cwd / "sessions"), LiteLLMClient(),
                     AgentConfig(model, "You are a test.", cwd), make_tools(["read"]))
    install(host, CondenseConfig.model_validate({"summarizer_model": "extractive", **CONFIG}),
            lambda spec: LiteLLMClient())
    await host.start()
    for prompt in prompts:
        await host.prompt(prompt)
    assert host.session.path is not None
    return host.session.path, server.requests


def on_the_wire(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """As litellm sends them: an assistant message's `content: None` is left out."""
    return [{k: v for k, v in m.items() if not (k == "content" and v is None)} for m in messages]


async def test_the_facade_renders_the_request_pi_tui_sent(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    for n in range(4):
        (tmp_path / f"m{n}.py").write_text(f"# module {n}\n" + "value = compute(value)  # step\n" * 150)
    reads = [tool_reply(call("read", {"path": f"m{n}.py"}, f"c{n}")) for n in range(4)]
    fake_openai.push(*reads[:2], text_reply("first task done"), *reads[2:], text_reply("second task done"),
                     text_reply("third answer"))
    path, requests = await pi_tui_requests(fake_openai, tmp_path, ["task one", "task two", "and now?"])
    conversation = [m for m in Session.open(path).messages() if m["role"] != "custom"]

    condenser = OpenAICondenser(config=CONFIG)
    sent = 0
    for message in conversation:  # one at a time, as an agent loop produces them
        if message["role"] == "assistant":  # pi-tui made a request here: the facade must give the same history
            assert on_the_wire(condenser.messages()) == requests[sent]["messages"][1:], f"request {sent}"
            sent += 1
        await condenser.add(to_openai(plain([message])))
    assert sent == len(requests) == 7
    assert "compressed-chain" in str(requests[-1]["messages"]), "chain compression was exercised"
