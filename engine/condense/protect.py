"""Protected calls: outputs the user wants verbatim forever (by tool name, or by a glob on `args.path`).

The glob contract is the design's: the whole path must match (after `\\` becomes `/`); `*` and `?` stay
inside one path segment; `**` crosses segments and `**/` also matches zero directories; every other
character is itself; case matters.

Globs are not translated to a Python regex: `re` backtracks, and a pattern such as `**/**/**/**/x` run
against a long path that does not match would take time polynomial in the path length per pattern,
inside the render path. Instead each pattern becomes a small automaton whose states are positions in the
pattern, simulated over the path one character at a time with the transitions memoised (a lazy DFA):
the cost is linear in the path for any pattern.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from enum import Enum
from functools import lru_cache
from typing import Any

_MEMO_LIMIT = 4096  # transitions kept per pattern: bounds memory; forgetting only costs recomputation


class _Kind(Enum):
    LITERAL = "literal"
    ONE = "?"  # one character, not "/"
    SEGMENT = "*"  # any run of characters without "/"
    ANY = "**"  # any run of characters
    DIRS = "**/"  # nothing, or any run of characters ending in "/"


_WILDCARDS = (_Kind.DIRS, _Kind.ANY, _Kind.SEGMENT, _Kind.ONE)  # longest spelling first
# States reachable from a token without reading anything, as offsets: past it (it may match nothing),
# and for `**/` also into its run.
_SKIPS = {_Kind.SEGMENT: (2,), _Kind.ANY: (2,), _Kind.DIRS: (2, 1)}

_Token = tuple[_Kind, str]
_State = frozenset[int]


def _tokens(pattern: str) -> tuple[_Token, ...]:
    tokens: list[_Token] = []
    i = 0
    while i < len(pattern):
        kind = next((k for k in _WILDCARDS if pattern.startswith(k.value, i)), None)
        if kind is None:
            tokens.append((_Kind.LITERAL, pattern[i]))
            i += 1
        else:
            tokens.append((kind, ""))
            i += len(kind.value)
    return tuple(tokens)


class Glob:
    """One compiled pattern. Automaton state `2*i` waits before token `i`; `2*i + 1` is inside a `**/`
    token `i`, having consumed some characters and waiting for the `/` that may end it."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens = _tokens(pattern)
        self._accept = 2 * len(self._tokens)
        self._alphabet = {char for kind, char in self._tokens if kind is _Kind.LITERAL} | {"/"}
        self._start = self._closure([0])
        self._memo: dict[tuple[_State, str], _State] = {}

    def matches(self, path: str) -> bool:
        state = self._start
        for char in path.replace("\\", "/"):
            state = self._step(state, char if char in self._alphabet else "")
            if not state:
                return False
        return self._accept in state

    def _closure(self, states: Iterable[int]) -> _State:
        """Add the states reachable without reading a character (skipping empty-matching tokens)."""
        found = set(states)
        pending = list(found)
        while pending:
            state = pending.pop()
            if state % 2 or state == self._accept:
                continue
            for offset in _SKIPS.get(self._tokens[state // 2][0], ()):
                nxt = state + offset
                if nxt not in found:
                    found.add(nxt)
                    pending.append(nxt)
        return frozenset(found)

    def _step(self, state: _State, char: str) -> _State:
        """`char` is "" for any character that is neither "/" nor a literal of the pattern."""
        key = (state, char)
        cached = self._memo.get(key)
        if cached is None:
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            cached = self._memo[key] = self._closure(n for s in state for n in self._moves(s, char))
        return cached

    def _moves(self, state: int, char: str) -> tuple[int, ...]:
        if state == self._accept:
            return ()
        if state % 2:  # inside `**/`: the run goes on, and a "/" may also end it
            return (state, state + 1) if char == "/" else (state,)
        kind, literal = self._tokens[state // 2]
        if kind is _Kind.LITERAL:
            return (state + 2,) if char == literal else ()
        if kind is _Kind.ONE:
            return (state + 2,) if char != "/" else ()
        if kind is _Kind.SEGMENT:
            return (state,) if char != "/" else ()
        return (state,) if kind is _Kind.ANY else ()


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> Glob:
    """Compiled once per pattern: protection is re-checked for every stubbed record on every render."""
    return Glob(pattern)


def is_protected(
    tool_name: str, args: Any, protected_tools: Collection[str], protected_paths: Iterable[str]
) -> bool:
    """A call is protected by its tool's name, or by a string `path` argument matching any glob."""
    if tool_name in protected_tools:
        return True
    path = args.get("path") if isinstance(args, Mapping) else None
    return isinstance(path, str) and _path_protected(path, tuple(protected_paths))


@lru_cache(maxsize=65536)
def _path_protected(path: str, patterns: tuple[str, ...]) -> bool:
    """Memoised: every render re-checks the same few hundred paths against the same patterns."""
    return any(compile_glob(pattern).matches(path) for pattern in patterns)
