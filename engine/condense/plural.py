"""A count and its noun in agreement ("1 summary", "3 summaries"), for every line condense and pi-tui
show: a count written beside a fixed plural read "1 summaries" and "(1 entries)"."""

from __future__ import annotations


def plural(noun: str) -> str:
    """English's regular plural of the nouns these lines count (summary, batch, output, entry)."""
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "o", "u"):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def counted(count: int, noun: str, many: str | None = None) -> str:
    """`count` and `noun`, the noun plural unless the count is one; `many` for an irregular plural."""
    return f"{count} {noun if count == 1 else many or plural(noun)}"
