"""What the model reads of a message, the one reckoning every size and estimate is built on."""

from __future__ import annotations

from condense.messages import model_parts
from tests.support.memory_host import assistant, call


def test_a_call_whose_text_was_no_json_object_is_read_as_that_text() -> None:
    """pi-tui sends such a call back as the model wrote it (see pi_tui/ai/tool_arguments.py)."""
    raw = '{"path": "notes.md", "content": "' + "x" * 500
    message = assistant(1, {**call("c1", "write"), "arguments": {}, "rawArguments": raw})
    assert [part.text for part in model_parts(message)] == [raw]
    assert [part.text for part in model_parts(assistant(1, call("c1", path="a.py")))] == ['{"path": "a.py"}']
