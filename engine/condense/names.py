"""The names an output gives, kept in view after the output itself is pruned.

A model that later writes code or a command from what a tool told it needs the exact spelling of
names: a function, a type, an event, a flag, a path. A summary in prose keeps the gist and drops most
of them, and fetching the output back costs a round trip. So each summary ends with one line per
pruned output naming the identifiers it used most, the ones later work most often writes again; the
line is built here, the same for a model's summary and the extractive one, and a chain that merges
summaries carries these lines over unchanged.

An identifier is a run of letters, digits and `_ . / - : $`, six characters or more, holding a digit,
one of those marks, or a camelCase hump (`HookRunner`, `agent_end`, `src/app.ts`, `node:url`); the
same rule `pi-tui whatif` uses to find which tool-given names a model went on to use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

MIN_CHARS = 6
NAME_CHARS = 80  # a longer token is data (a hash, a blob), not a name a model writes again
SCAN_CHARS = 65_536  # of a longer output only its head is ranked: each distinct name is counted through the text
NAMES_PREFIX = "- Names in "  # a list item: it stays a line of its own under a summary rendered as Markdown

_RUN = re.compile(r"[A-Za-z0-9_./:$-]+")
_MARKS = frozenset("_./-:$")
_CAMEL = re.compile(r"[a-z][A-Z]")


def identifier_tokens(text: str) -> Iterable[str]:
    """Every identifier-like token of `text`, in order, repeats included (sentence punctuation
    stripped from the end)."""
    for run in _RUN.findall(text):
        token = run.rstrip(".:-")
        if len(token) < MIN_CHARS or not any(c.isalnum() for c in token):
            continue
        if any(c.isdigit() for c in token) or _MARKS.intersection(token) or _CAMEL.search(token):
            yield token


def identifiers(text: str) -> set[str]:
    """The distinct identifier-like tokens of `text`."""
    return set(identifier_tokens(text))


def top_names(text: str, limit: int, shown: str = "") -> list[str]:
    """At most `limit` identifiers of `text` that `shown` does not already hold, most used first (ties
    in order of first use): the names the output is about, before those it mentions once. A use inside
    a longer token counts (`HookRunner` in `HookRunner.count`). Counting walks the text once per distinct
    name, so a long output is ranked by its first `SCAN_CHARS` characters (a 10 MB output of distinct
    words took minutes, on the request path)."""
    if limit <= 0:
        return []
    text = text[:SCAN_CHARS]
    distinct = dict.fromkeys(token for token in identifier_tokens(text) if len(token) <= NAME_CHARS)
    counts = {token: text.count(token) for token in distinct}
    ranked = sorted(distinct, key=lambda token: -counts[token])  # stable: first use breaks ties
    return [token for token in ranked if token not in shown][:limit]


def names_line(ref: str, names: Sequence[str]) -> str:
    """Names bare, not in backticks: two characters a name in every request that carries it, for no
    better spelling (measured: 1.6% dearer on pi-compact-hooks)."""
    return f"{NAMES_PREFIX}`{ref}`: " + ", ".join(names)


def is_names_line(line: str) -> bool:
    return line.startswith(NAMES_PREFIX)


def names_lines(outputs: Sequence[tuple[str, str]], limit: int, shown: str) -> list[str]:
    """One line per (ref, output text) naming what `shown` (the summary so far) leaves out; an output
    adds nothing new gets no line, and a name is listed once, under the first output that uses it."""
    lines: list[str] = []
    for ref, text in outputs:
        names = top_names(text, limit, shown)
        if names:
            line = names_line(ref, names)
            lines.append(line)
            shown += "\n" + line
    return lines


def carried_names(texts: Iterable[str]) -> list[str]:
    """The names lines of summaries being merged: a merge keeps them as they are, since a model
    asked to merge prose would drop exactly these."""
    return [line for text in texts for line in text.split("\n") if is_names_line(line)]
