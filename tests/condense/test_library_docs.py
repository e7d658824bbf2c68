"""docs/LIBRARY.md's examples run as written: the offline one as is, and the litellm one against the local fake
provider (tests/condense/test_distribution.py runs the offline one where the engine is installed alone)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from condense.config import CondenseConfig
from tests.support.fake_openai import FakeOpenAI, call, text_reply, tool_reply
from tests.support.library_doc import DOC, check_offline_output, python_blocks, run_block


def test_the_first_example_runs_offline_as_written(tmp_path: Path) -> None:
    check_offline_output(run_block(python_blocks()[0], tmp_path))


def test_the_litellm_example_drives_a_real_model_and_summariser(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.push(tool_reply(call("read", {"path": "alpha.txt"}, "c1")),
                    tool_reply(call("read", {"path": "beta.txt"}, "c2")),
                    text_reply("alpha: 5000, beta: 4000"),
                    text_reply("[[1:read]] alpha.txt: the alpha service listens on port 5000"),
                    text_reply("[[1:read]] beta.txt: the beta service listens on port 4000"),
                    text_reply("Read alpha.txt and beta.txt: the services listen on ports 5000 and 4000."),
                    tool_reply(call("context_tree_query", {"toolCallIds": ["t1"]}, "q1")),
                    text_reply("The alpha service listens on port 5000."),
                    text_reply("[[1:context_tree_query]] recovered alpha.txt"))
        done = run_block(python_blocks()[1], tmp_path, OPENAI_API_BASE=server.base_url, OPENAI_API_KEY="sk-test",
                         LITELLM_LOCAL_MODEL_COST_MAP="True")
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == ["alpha: 5000, beta: 4000", "The alpha service listens on port 5000."]
        assert server.pending == 0 and server.rejections == []
    # two summaries for the first task, then the one that fuses them into the task's compressed block, then
    # the summary of the recovered output
    summarizer_calls = [r for r in server.requests if len(r["messages"]) == 1]
    assert len(summarizer_calls) == 4 and "merging several" in summarizer_calls[2]["messages"][0]["content"]
    second_task = [r for r in server.requests if len(r["messages"]) > 1][3:]
    first = second_task[0]
    # the first task is one compressed block now: no raw tool message, the model's summaries inside
    assert not [m for m in first["messages"] if m["role"] == "tool"]
    sent = json.dumps(first["messages"])
    assert "compressed-chain" in sent and "the services listen on ports 5000 and 4000" in sent
    assert "context_tree_query" in [t["function"]["name"] for t in first["tools"]]
    recovered = second_task[1]["messages"][-1]
    assert recovered["role"] == "tool" and "The alpha service listens on port 5000." in recovered["content"]


def documented(name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}\b", DOC.read_text(encoding="utf-8")) is not None


def test_every_public_name_of_condense_is_documented() -> None:
    import condense

    assert [name for name in condense.__all__ if not documented(name)] == []


def test_every_setting_is_documented() -> None:
    """The budget triggers, `keep_recent`, `summary_names`, spilling, timeouts: what an agent author tunes."""
    assert [name for name in CondenseConfig.model_fields if not documented(name)] == []
