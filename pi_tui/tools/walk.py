"""Walking a project tree the way `rg` and `fd` do, for when they are not installed.

The search tools must not drown the model in `node_modules/` or build output, so the walk skips
`.git` and whatever `.gitignore` files say (the ones in the tree, plus those above it up to the
repository root), and includes hidden files. Patterns mean what they mean to git (pathspec reads
them: `**`, `!` negation, trailing `/` for directories, leading or inner `/` to anchor, a deeper
file overriding a shallower one). No global excludes and no `.git/info/exclude`, like `fd` outside
a repository. As with `rg DIR`, a directory searched explicitly is searched even if it is ignored:
only paths below the search root are judged. Symlinks are listed but never followed, so a link loop
cannot hang a search.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import re2
from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore import GitIgnorePatternError
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from pi_tui.tools.base import ToolError


def _class_to_regex(body: str) -> str:
    if body[:1] in ("!", "^"):
        body = "^" + body[1:]
    return "[" + body.replace("\\", "\\\\") + "]"


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*" if i + 2 == n else "[^/]*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[" and (end := pattern.find("]", i + 2)) != -1:
            out.append(_class_to_regex(pattern[i + 1 : end]))
            i = end + 1
        elif char == "{" and (end := pattern.find("}", i)) != -1:
            options = pattern[i + 1 : end].split(",")
            out.append("(?:" + "|".join(_translate(option) for option in options) + ")")
            i = end + 1
        elif char == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


_QUIET = re2.Options()
_QUIET.log_errors = False  # RE2 would print a bad pattern's error to stderr, over the TUI; the caller reports it


def glob_regex(pattern: str) -> re2._Regexp:
    """Compile a glob for whole-string matching: `*`, `?` and `[...]` stay inside one path segment,
    `**` spans directories (`**/` also matches none), `{a,b}` picks one of several. RE2 matches in
    linear time: a pattern like `a*a*a*a*a*a*a*b` would keep a backtracking regex busy for days."""
    return re2.compile(rf"(?s:{_translate(pattern)})\z", _QUIET)


@dataclass(frozen=True)
class GlobMatcher:
    """A user's glob: without `/` it matches a name at any depth (like `fd` and `rg --glob`), with `/`
    it matches the whole path relative to the search root."""

    regex: re2._Regexp
    whole_path: bool

    @classmethod
    def parse(cls, pattern: str) -> GlobMatcher:
        if pattern.startswith("./"):
            pattern = pattern[2:]
        try:
            return cls(glob_regex(pattern), "/" in pattern)
        except re2.error as exc:
            reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
            raise ToolError(f"Invalid glob '{pattern}': {reason}") from None

    def matches(self, rel_path: str) -> bool:
        subject = rel_path if self.whole_path else rel_path.rsplit("/", 1)[-1]
        return self.regex.match(subject) is not None


def _spec(lines: list[str]) -> GitIgnoreSpec:
    """Compiled for RE2, which matches in linear time: a backtracking regex can take hours on a
    pattern like `a*a*a*a*a*a*a*b`, and a search must not hang on someone's `.gitignore`. A line that
    cannot be compiled (`!` alone, a trailing `\\`) is dropped on its own, as git drops a pattern it
    cannot parse; the rest still count."""
    try:
        return GitIgnoreSpec.from_lines(lines, backend="re2")
    except (GitIgnorePatternError, re2.error):
        return GitIgnoreSpec.from_lines([line for line in lines if _compiles(line)], backend="re2")


def _compiles(line: str) -> bool:
    try:
        GitIgnoreSpec.from_lines([line], backend="re2")
    except (GitIgnorePatternError, re2.error):
        return False
    return True


@dataclass(frozen=True)
class GitIgnore:
    """The rules of one `.gitignore`, matched as git matches them (by pathspec). `base` is its
    directory relative to the walk root ("" for the root and above); `prefix` is the root's path
    relative to a `.gitignore` found above the root."""

    spec: GitIgnoreSpec
    base: str = ""
    prefix: str = ""

    @classmethod
    def load(cls, file: Path, base: str = "", prefix: str = "") -> GitIgnore | None:
        try:
            lines = file.read_text("utf-8", errors="replace").splitlines()
        except OSError:
            return None
        spec = _spec(lines)
        return cls(spec, base, prefix) if any(rule.include is not None for rule in spec.patterns) else None

    def verdict(self, rel_path: str, is_dir: bool) -> bool | None:
        """True if ignored, False if re-included by `!`, None if no rule here speaks about it."""
        if self.base:
            if not rel_path.startswith(self.base + "/"):
                return None
            rel_path = rel_path[len(self.base) + 1 :]
        local = self.prefix + rel_path
        return self.spec.check_file(local + "/" if is_dir else local).include


def is_ignored(rules: list[GitIgnore], rel_path: str, is_dir: bool) -> bool:
    """The last rule that speaks about `rel_path` decides, as in git (skill discovery reads it too)."""
    ignored = False
    for ignore in rules:
        verdict = ignore.verdict(rel_path, is_dir)
        if verdict is not None:
            ignored = verdict
    return ignored


def _ignoring_rule(patterns: list[GitIgnoreSpecPattern], directory: str) -> int | None:
    hit = GitIgnoreSpec(patterns, backend="re2").check_file(directory)
    return hit.index if hit.include else None


def _sparing_the_root(ignore: GitIgnore) -> GitIgnore:
    """The rules of a `.gitignore` above the root, less those that ignore the root or a directory between:
    git (and pathspec) would ignore everything below such a directory, but `rg DIR` still searches it."""
    patterns = list(ignore.spec.patterns)
    parts = ignore.prefix.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        while (index := _ignoring_rule(patterns, "/".join(parts[:depth]) + "/")) is not None:
            del patterns[index]
    return replace(ignore, spec=GitIgnoreSpec(patterns, backend="re2")) if len(patterns) < len(ignore.spec) else ignore


def _rules_above(root: Path) -> list[GitIgnore]:
    """`.gitignore` files between the repository root (the nearest directory holding `.git`) and `root`."""
    found: list[GitIgnore] = []
    parts: list[str] = []
    directory = root
    while not (directory / ".git").exists() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
        ignore = GitIgnore.load(directory / ".gitignore", prefix="/".join(parts) + "/")
        if ignore is not None:
            found.insert(0, _sparing_the_root(ignore))
    return found if (directory / ".git").exists() else []


class Entry(NamedTuple):
    rel: str  # POSIX path relative to the walk root
    path: Path
    is_dir: bool
    is_symlink: bool


def _never() -> bool:
    return False


class _Level(NamedTuple):
    rel: str  # the directory, relative to the walk root
    rules: list[GitIgnore]  # every .gitignore that applies inside it
    children: Iterator[os.DirEntry[str]]


def _open_level(directory: str, rel: str, rules: list[GitIgnore]) -> _Level:
    if rel:
        nested = GitIgnore.load(Path(directory) / ".gitignore", base=rel)
        rules = [*rules, nested] if nested else rules
    try:
        with os.scandir(directory) as scan:
            children = sorted(scan, key=lambda child: child.name)
    except OSError:
        children = []
    return _Level(rel, rules, iter(children))


def walk(root: Path, should_stop: Callable[[], bool] = _never) -> Iterator[Entry]:
    """Every entry under `root` that git would not ignore, depth first with each directory's entries
    sorted by name: the order of `rg --sort path`."""
    own = GitIgnore.load(root / ".gitignore")
    stack = [_open_level(str(root), "", [*_rules_above(root), *([own] if own else [])])]
    while stack and not should_stop():
        level = stack[-1]
        child = next(level.children, None)
        if child is None:
            stack.pop()
            continue
        if child.name == ".git":
            continue
        rel = f"{level.rel}/{child.name}" if level.rel else child.name
        is_dir = child.is_dir(follow_symlinks=False)
        if is_ignored(level.rules, rel, is_dir):
            continue
        yield Entry(rel, Path(child.path), is_dir, child.is_symlink())
        if is_dir:
            stack.append(_open_level(child.path, rel, level.rules))
