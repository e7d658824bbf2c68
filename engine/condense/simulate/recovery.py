"""Did pruning lose anything? Every tool output missing from the final context must come back whole
from `context_tree_query`.

Checked for real: the recovery tool is asked for each missing output by its occurrence key and its
answer is compared with the original text. An answer cut by the tool's own size limit counts when it
is the head of the original followed by the tool's truncation line, as the model would then page on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from condense.messages import content_text
from condense.occurrence import message_key, numbered

Query = Callable[[str], str]  # occurrence key -> the tool's answer
_TRUNCATION = re.compile(r"\n\[Output truncated: [^\n]*\]\Z")


class Recovery(BaseModel):
    pruned: int  # outputs no longer verbatim in the final context
    recoverable: int  # ... of which the recovery tool returns the original
    truncated: int  # ... of which only under the tool's size limit

    @property
    def share(self) -> float | None:
        return self.recoverable / self.pruned if self.pruned else None


def _answer_body(answer: str) -> str | None:
    """The output part of a `## toolRef:` block (its header lines end at the first blank line)."""
    if not answer.startswith("## toolRef:") or "\n\n" not in answer:
        return None
    return answer.split("\n\n", 1)[1]


def returns_original(original: str, answer: str) -> tuple[bool, bool]:
    """(recovered, truncated) for one answer of the recovery tool."""
    body = _answer_body(answer)
    if body is None:
        return False, False
    if body == original:
        return True, False
    cut = _TRUNCATION.search(body)
    if cut is not None and original.startswith(body[: cut.start()]):
        return True, True
    return False, False


def _verbatim(context: Sequence[Mapping[str, Any]]) -> set[tuple[str, str]]:
    return {(message_key(m), content_text(m.get("content") or []))
            for m in context if m.get("role") == "toolResult"}


def check_recovery(history: Sequence[Mapping[str, Any]], final_context: Sequence[Mapping[str, Any]],
                   query: Query | None) -> Recovery:
    """`history`: every message of the branch; `final_context`: what the next request would carry. A result
    repeating an earlier one's id and time is asked for by its own key (`condense.occurrence`)."""
    verbatim = _verbatim(numbered(list(final_context)))
    pruned = recoverable = truncated = 0
    for message in numbered(list(history)):
        if message.get("role") != "toolResult":
            continue
        key, text = message_key(message), content_text(message.get("content") or [])
        if (key, text) in verbatim:
            continue
        pruned += 1
        if query is None:
            continue
        recovered, cut = returns_original(text, query(key))
        recoverable += recovered
        truncated += cut
    return Recovery(pruned=pruned, recoverable=recoverable, truncated=truncated)
