"""Typed agents on the openai and anthropic SDKs (docs/examples/) use condense without glue: `mypy --strict`
accepts the SDK's objects going into `add` and `answer`, and `messages()` and `tool` going straight into the
SDK's request; the openai one runs against the local OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fake_openai import FakeOpenAI, call, text_reply, tool_reply

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
AGENTS = ("openai_agent.py", "anthropic_agent.py")


@pytest.fixture(scope="module")
def mypy_report(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One strict mypy run over both agents (a cold run reads both SDKs' types once)."""
    cache = tmp_path_factory.mktemp("mypy-cache")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache),
                           *(str(EXAMPLES / agent) for agent in AGENTS)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    return done.stdout + done.stderr


def errors_in(report: str, agent: str) -> list[str]:
    return [line for line in report.splitlines() if re.match(rf"docs/examples/{re.escape(agent)}:\d+: error", line)]


@pytest.mark.xdist_group("typed-agents")
def test_a_typed_openai_agent_passes_mypy_strict(mypy_report: str) -> None:
    assert errors_in(mypy_report, "openai_agent.py") == [], mypy_report
    assert "Success: no issues found in 2 source files" in mypy_report, mypy_report


@pytest.mark.xdist_group("typed-agents")
def test_a_typed_anthropic_agent_passes_mypy_strict(mypy_report: str) -> None:
    assert errors_in(mypy_report, "anthropic_agent.py") == [], mypy_report
    assert "Success: no issues found in 2 source files" in mypy_report, mypy_report


def test_the_typed_openai_agent_runs_against_an_openai_compatible_server(tmp_path: Path) -> None:
    """The SDK's own client sends condense's requests; the server refuses any a provider would refuse."""
    for name in ("alpha", "beta"):
        (tmp_path / f"{name}.txt").write_text(f"The {name} service listens on port {len(name) * 1000}.\n" * 60)
    with FakeOpenAI() as server:
        server.push(tool_reply(call("read", {"path": "alpha.txt"}, "c1")),
                    tool_reply(call("read", {"path": "beta.txt"}, "c2")),
                    text_reply("alpha: 5000, beta: 4000"),
                    tool_reply(call("context_tree_query", {"toolCallIds": ["t1"]}, "q1")),
                    text_reply("The alpha service listens on port 5000."))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-test")
        done = subprocess.run([sys.executable, str(EXAMPLES / "openai_agent.py"), "Which ports?", "Quote alpha."],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == ["alpha: 5000, beta: 4000", "The alpha service listens on port 5000."]
        assert server.pending == 0 and server.rejections == []
    second_task = server.requests[3]["messages"]
    assert "compressed-chain" in json.dumps(second_task) and not [m for m in second_task if m["role"] == "tool"]
    recovered = server.requests[4]["messages"][-1]
    assert recovered["role"] == "tool" and "The alpha service listens on port 5000." in recovered["content"]
