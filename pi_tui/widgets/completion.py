"""Completion for the editor: slash commands (with their descriptions), their arguments, `@` paths.

`Completer.suggest` looks only at the text before the cursor and returns where the completed token
starts plus the candidates; the editor decides when to show them. File paths come from the same
gitignore-aware walk the search tools use, capped, and cached for a few seconds.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

MAX_SUGGESTIONS = 30
MAX_FILES = 5000
FILE_CACHE_SECONDS = 5.0

_SLASH = re.compile(r"^/(\S*)$")
_ARGUMENT = re.compile(r"^/(\S+) (\S*)$")
_AT = re.compile(r"(?:^|\s)@(\S*)$")
T = TypeVar("T")


@dataclass(frozen=True)
class Suggestion:
    insert: str  # replaces the text from the token start to the cursor
    label: str
    description: str = ""


def ranked(items: Iterable[T], query: str, text_of: Callable[[T], str]) -> list[T]:
    """The items whose text matches `query` (case aside): prefix matches first, then substring, then
    in-order-letters (fuzzy) matches, the tightest first (`son45` finds `claude-sonnet-4-5` before a
    name whose letters lie far apart), each otherwise in the given order. The editor's completion and
    the pickers' search rank alike, so a name is found the same way wherever it is typed."""
    q = query.lower()
    pattern = re.compile(".*?".join(map(re.escape, q)))
    starts: list[T] = []
    contains: list[T] = []
    fuzzy: list[tuple[int, int, T]] = []  # (span of the letters, order given, item)
    for index, item in enumerate(items):
        text = text_of(item).lower()
        if text.startswith(q):
            starts.append(item)
        elif q in text:
            contains.append(item)
        elif match := pattern.search(text):
            fuzzy.append((match.end() - match.start(), index, item))
    return starts + contains + [item for _, _, item in sorted(fuzzy, key=lambda found: found[:2])]


def _ranked(query: str, names: list[str]) -> list[str]:
    return ranked(names, query, str)[:MAX_SUGGESTIONS]


class Completer:
    def __init__(self, commands: Callable[[], dict[str, str]], arguments: Callable[[str], dict[str, str]],
                 cwd: Callable[[], Path]) -> None:
        self._commands = commands  # name -> description
        self._arguments = arguments  # command name -> {argument: description}
        self._cwd = cwd
        self._files: list[str] = []
        self._files_root: Path | None = None
        self._files_time = 0.0

    @property
    def cwd(self) -> Path:
        """The folder paths are completed in (the session's)."""
        return self._cwd()

    def suggest(self, before_cursor: str, first_line: bool) -> tuple[int, list[Suggestion]]:
        if first_line and (match := _SLASH.match(before_cursor)):
            commands = self._commands()
            names = _ranked(match[1], sorted(commands))
            return 0, [Suggestion(f"/{name} ", f"/{name}", commands[name]) for name in names]
        if first_line and (match := _ARGUMENT.match(before_cursor)):
            options = self._arguments(match[1])
            start = len(before_cursor) - len(match[2])
            names = _ranked(match[2], list(options))
            return start, [Suggestion(f"{name} ", name, options[name]) for name in names]
        if match := _AT.search(before_cursor):
            start = len(before_cursor) - len(match[1]) - 1
            return start, [Suggestion(f"@{path}" + ("" if path.endswith("/") else " "), f"@{path}")
                           for path in self._paths(match[1])]
        return 0, []

    def _paths(self, query: str) -> list[str]:
        """The paths `@query` may complete to. A query that names a folder (`pkg/`, as Tab leaves it) lists
        what is inside it, its own entries first, as Pi's menu does: not the folder, which Tab would take
        again."""
        if query.endswith("/"):
            folder = query.lower()
            inside = [path for path in self.files() if path.lower().startswith(folder) and len(path) > len(folder)]
            if inside:
                return sorted(inside, key=lambda path: path[len(folder):].rstrip("/").count("/"))[:MAX_SUGGESTIONS]
        return _ranked(query, self.files())

    def files(self) -> list[str]:
        root = self._cwd()
        now = time.monotonic()
        if root != self._files_root or now - self._files_time > FILE_CACHE_SECONDS:
            self._files = list(self._walk(root))
            self._files_root, self._files_time = root, now
        return self._files

    @staticmethod
    def _walk(root: Path) -> Iterator[str]:
        from pi_tui.tools.walk import walk  # the tools package is the runtime's: not on the first frame's path

        for count, entry in enumerate(walk(root)):
            if count >= MAX_FILES:
                return
            yield entry.rel + ("/" if entry.is_dir else "")


class CompletionMenu(OptionList):
    """The suggestions, just above the editor; the editor drives it (it never takes the focus). One row
    each, cut with an ellipsis: a wrapped description would read as an item of its own."""

    DEFAULT_CSS = """
    CompletionMenu { height: auto; max-height: 10; border: none; padding: 0 1; background: $surface;
                     text-wrap: nowrap; text-overflow: ellipsis; }
    CompletionMenu > .option-list--option-highlighted { background: $primary 30%; }
    """

    can_focus = False

    def __init__(self) -> None:
        super().__init__(id="completion")
        self.suggestions: list[Suggestion] = []
        self.start = 0
        self.display = False

    def show(self, start: int, suggestions: list[Suggestion]) -> None:
        self.start = start
        self.suggestions = suggestions
        self.clear_options()
        if not suggestions:
            self.display = False
            return
        width = max(len(s.label) for s in suggestions) + 2
        self.add_options([Option(Content.assemble(s.label.ljust(width), (s.description, "$muted")))
                          for s in suggestions])
        self.highlighted = 0
        self.display = True

    def hide(self) -> None:
        self.suggestions = []
        self.display = False

    @property
    def is_open(self) -> bool:
        return bool(self.display and self.suggestions)

    def move(self, step: int) -> None:
        if self.suggestions:
            current = self.highlighted or 0
            self.highlighted = (current + step) % len(self.suggestions)

    def chosen(self) -> Suggestion | None:
        if not self.suggestions:
            return None
        return self.suggestions[self.highlighted or 0]
