"""A count and its noun agree in every line condense and pi-tui show ("1 summary", "2 summaries")."""

from __future__ import annotations

import pytest

from condense.plural import counted


@pytest.mark.parametrize(("count", "noun", "said"), [
    (1, "summary", "1 summary"), (2, "summary", "2 summaries"), (0, "entry", "0 entries"),
    (1, "entry", "1 entry"), (3, "batch", "3 batches"), (1, "batch", "1 batch"), (5, "tool output", "5 tool outputs"),
    (2, "day", "2 days"), (1_234, "line", "1234 lines"),
])
def test_a_count_and_its_noun_agree(count: int, noun: str, said: str) -> None:
    assert counted(count, noun) == said


def test_an_irregular_plural_is_given() -> None:
    assert counted(2, "child", "children") == "2 children" and counted(1, "child", "children") == "1 child"
