"""Hand-written Codex rollouts (`~/.codex/sessions/.../rollout-<ts>-<uuid>.jsonl`), line by line as
openai/codex writes them (`{timestamp, type, payload}`), for the reader's tests and the CLI's.

There is no real rollout in the corpus; these lines follow codex-rs's serde shapes (docs/WHATIF.md names
the source read), shortened to what each conversion rule needs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

MODEL = "gpt-5-codex"
SESSION_ID = "0199a213-81c0-7800-8aa1-bbab2a035a53"
AGENTS = "<user_instructions>\n\n# AGENTS.md\nRun `pytest -q` before you say it is done.\n\n</user_instructions>"
ENVIRONMENT = ("<environment_context>\n  <cwd>/home/ana/parser</cwd>\n  <approval_policy>on-request</approval_policy>\n"
               "  <sandbox_mode>workspace-write</sandbox_mode>\n  <shell>bash</shell>\n</environment_context>")
ASK = "fix the failing test in tests/test_parse.py"
SUMMARY_PREFIX = ("Another language model started to solve this problem and produced a summary of its thinking"
                  " process.")
SUMMARY = "We fixed tokenize() in src/parse.py: it dropped the last token; tests pass."
PYTEST_FAILED = json.dumps({"output": "F.\nFAILED tests/test_parse.py::test_tail - assert ['a'] == ['a', 'b']\n"
                                      "1 failed, 1 passed in 0.08s\n",
                            "metadata": {"exit_code": 1, "duration_seconds": 0.8}})
PATCH = "*** Begin Patch\n*** Update File: src/parse.py\n@@\n-    return tokens[:-1]\n+    return tokens\n*** End Patch"


def line(second: int, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": f"2025-10-02T09:00:{second:02d}.000Z", "type": kind, "payload": payload}


def item(second: int, payload: dict[str, Any]) -> dict[str, Any]:
    return line(second, "response_item", payload)


def message(second: int, role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return item(second, {"type": "message", "role": role, "content": [{"type": kind, "text": text}]})


def session_meta() -> dict[str, Any]:
    return line(0, "session_meta", {"id": SESSION_ID, "timestamp": "2025-10-02T09:00:00.000Z",
                                    "cwd": "/home/ana/parser", "originator": "codex_cli_rs", "cli_version": "0.46.0",
                                    "instructions": None, "source": "cli", "model_provider": "openai",
                                    "git": {"commit_hash": "4f1c2d0", "branch": "main"}})


def turn_context(second: int) -> dict[str, Any]:
    return line(second, "turn_context", {"cwd": "/home/ana/parser", "approval_policy": "on-request",
                                         "sandbox_policy": {"mode": "workspace-write"}, "model": MODEL,
                                         "effort": "medium", "summary": "auto"})


def token_count(second: int, prompt: int, cached: int, output: int, total: int) -> dict[str, Any]:
    """A response's count: `total` stands for the session's running sum, which a repeated count repeats."""
    last = {"input_tokens": prompt, "cached_input_tokens": cached, "output_tokens": output,
            "reasoning_output_tokens": output // 2, "total_tokens": prompt + output}
    return line(second, "event_msg", {"type": "token_count", "info": {
        "total_token_usage": {**last, "total_tokens": total}, "last_token_usage": last,
        "model_context_window": 272000}, "rate_limits": {"primary": {"used_percent": 3.0}}})


def reasoning(second: int, summary: str) -> dict[str, Any]:
    return item(second, {"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}],
                         "content": None, "encrypted_content": "gAAAAABo3q-ENCRYPTED"})


def shell_call(second: int, call_id: str, command: str) -> dict[str, Any]:
    arguments = json.dumps({"command": ["bash", "-lc", command], "workdir": "/home/ana/parser"})
    return item(second, {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": call_id})


def output(second: int, call_id: str, text: str) -> dict[str, Any]:
    return item(second, {"type": "function_call_output", "call_id": call_id, "output": text})


def rollout_lines() -> list[dict[str, Any] | str]:
    """A session as Codex 0.46 writes it: injected context, a turn that runs pytest (it fails), patches
    with a freeform tool and answers; a repeated count; a broken line; a second turn; a local compaction
    (its summarising request counted, its items never written); and a reply after it."""
    return [
        session_meta(),
        message(1, "user", AGENTS),
        message(1, "user", ENVIRONMENT),
        turn_context(2),
        message(2, "user", ASK),
        line(2, "event_msg", {"type": "user_message", "message": ASK, "images": []}),
        reasoning(4, "**Running the tests**"),
        shell_call(5, "call_1", "pytest -q"),
        token_count(5, 5_000, 4_000, 120, 5_120),
        output(7, "call_1", PYTEST_FAILED),
        turn_context(8),
        message(10, "assistant", "tokenize() drops the last token; patching it."),
        item(11, {"type": "custom_tool_call", "status": "completed", "call_id": "call_2", "name": "apply_patch",
                  "input": PATCH}),
        token_count(11, 5_600, 5_000, 200, 10_920),
        item(12, {"type": "custom_tool_call_output", "call_id": "call_2",
                  "output": "Success. Updated the following files:\nM src/parse.py\n"}),
        turn_context(13),
        message(15, "assistant", "Fixed: tokenize() kept every token but the last."),
        token_count(15, 6_000, 5_500, 60, 16_980),
        token_count(15, 6_000, 5_500, 60, 16_980),
        "{\"timestamp\":\"2025-10-02T09:00:16.000Z\",\"type\":\"event_msg\",\"payl",
        turn_context(20),
        message(20, "user", "now add a test for an empty input"),
        reasoning(22, "**Writing the test**"),
        shell_call(23, "call_3", "printf 'def test_empty(): assert tokenize(\"\") == []' >> tests/test_parse.py"),
        token_count(23, 6_400, 6_000, 90, 23_470),
        output(24, "call_3", json.dumps({"output": "", "metadata": {"exit_code": 0, "duration_seconds": 0.01}})),
        turn_context(30),
        token_count(31, 6_500, 0, 400, 30_370),
        line(31, "compacted", {"message": f"{SUMMARY_PREFIX}\n{SUMMARY}"}),
        line(31, "event_msg", {"type": "context_compacted"}),
        message(33, "assistant", "The test is in; pytest passes."),
        token_count(33, 2_000, 0, 30, 32_400),
    ]


def write_rollout(folder: Path, lines: Sequence[dict[str, Any] | str] | None = None) -> Path:
    """The lines under Codex's own file name, one JSON object (or a torn line, as given) a line."""
    path = folder / f"rollout-2025-10-02T09-00-00-{SESSION_ID}.jsonl"
    rows = rollout_lines() if lines is None else lines
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return path
