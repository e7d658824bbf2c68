"""A condense summary folds to one line that counts as users count: turns from 1, and a count that agrees
with its noun ("1 tool")."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tui.conversation.folds import fold_label
from pi_tui.conversation.model import Item


def summary(details: dict[str, Any]) -> Item:
    return Item("summary", {"role": "custom", "customType": "context-prune-summary", "content": "- `t1` ...",
                            "display": False, "details": details, "timestamp": 1})


@pytest.mark.parametrize(("details", "label"), [
    ({"turnIndex": 0, "toolCallRefs": [{"shortId": "t1"}]}, "[pruner] Turn 1 summary (1 tool)"),
    ({"turnIndex": 4, "toolCallRefs": [{"shortId": "t1"}, {"shortId": "t2"}]}, "[pruner] Turn 5 summary (2 tools)"),
    ({}, "[pruner] Turn ? summary (0 tools)"),
])
def test_a_summary_folds_to_its_turn_counted_from_one(details: dict[str, Any], label: str) -> None:
    assert fold_label(summary(details)) == label
