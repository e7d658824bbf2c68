"""A library agent's work in OpenAI's chat-completions shape, as it hands it to a Condenser: the store
tests run whole tasks through a real store folder with it."""

from __future__ import annotations

import json
from typing import Any

OUTPUT = "def load(path):\n" + "    return parse(read(path))  # one line of the file\n" * 30


def read_task(n: int, output: str = OUTPUT) -> list[dict[str, Any]]:
    """One finished task: a question, a read of `m<n>.py`, its output (`# m<n>` then `output`), the answer."""
    call = {"id": f"call_{n}", "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": f"m{n}.py"})}}
    return [{"role": "user", "content": f"what does m{n}.py do?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{n}", "content": f"# m{n}\n{output}"},
            {"role": "assistant", "content": f"m{n}.py loads a file."}]
