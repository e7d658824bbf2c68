"""Protected tools and path globs (`src/protected.test.ts`), plus the linear-time guarantee of the matcher.

The reference compiles globs to a JavaScript regex (`globToRegExp`); ours compiles them to an automaton
(`compile_glob`), because a backtracking regex can hang the render path on an unlucky pattern. The glob
scenarios below drive `compile_glob(...).matches`.
"""

from __future__ import annotations

import re
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from condense.protect import compile_glob, is_protected

PROTECTED_TOOLS = ["todowrite"]
PROTECTED_PATHS = ["**/skills/**/*.md"]


def matches(pattern: str, path: str) -> bool:
    return compile_glob(pattern).matches(path)


# ----------------------------------------------------------------------------------- the globs


def test_double_star_crosses_path_segments() -> None:
    assert matches("**/skills/**/*.md", "/Users/x/.agents/skills/release/SKILL.md")
    assert matches("**/skills/**/*.md", "a/skills/b/c/notes.md")


def test_double_star_slash_matches_zero_directories() -> None:
    assert matches("**/SKILL.md", "SKILL.md")
    assert matches("**/skills/**/*.md", "skills/foo.md")


def test_star_and_question_mark_are_segment_local() -> None:
    assert not matches("skills/*.md", "skills/a/b.md")
    assert matches("skills/?.md", "skills/a.md")
    assert not matches("skills/?.md", "skills//x.md")


def test_regex_metacharacters_in_pattern_are_literals() -> None:
    assert matches("a+b/(c).md", "a+b/(c).md")
    assert not matches("a+b/(c).md", "aab/c.md")
    assert not matches("a.md", "aXmd")
    assert matches("[x]|^$.md", "[x]|^$.md")
    assert not matches("[x].md", "x.md")


def test_full_path_anchored_match() -> None:
    assert not matches("skills/a.md", "xskills/a.md")
    assert not matches("skills/a.md", "skills/a.md.bak")


def test_case_sensitive() -> None:
    assert not matches("**/SKILL.md", "a/skill.md")


def test_a_pattern_is_compiled_once() -> None:
    assert compile_glob("**/docs/*.md") is compile_glob("**/docs/*.md")


def test_a_pathological_pattern_does_not_backtrack() -> None:
    """`**/**/**/**/**/**/x` against a long path that ends in `y`: a backtracking regex explores a number
    of splits polynomial in the path length per `**` (days here); the automaton reads the path once."""
    path = "a/" * 20_000 + "y"
    answers: list[bool] = []
    worker = threading.Thread(
        target=lambda: answers.extend(
            [matches("**/**/**/**/**/**/x", path), matches("*a*a*a*a*a*a*b", "a" * 40_000)]
        ),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=20)  # a safety net for a noisy machine, not a speed assertion
    assert answers == [False, False]
    assert matches("**/**/**/**/**/**/x", "a/" * 20_000 + "x")


# ------------------------------------------------------------------------------- is_protected


def test_matches_by_tool_name_regardless_of_args() -> None:
    assert is_protected("todowrite", {}, PROTECTED_TOOLS, PROTECTED_PATHS)
    assert is_protected("todowrite", {"path": "/h/src/app.ts"}, PROTECTED_TOOLS, PROTECTED_PATHS)
    assert not is_protected("todoread", {}, PROTECTED_TOOLS, PROTECTED_PATHS)


def test_matches_by_path_glob() -> None:
    assert is_protected("read", {"path": "/h/skills/x/SKILL.md"}, PROTECTED_TOOLS, PROTECTED_PATHS)
    assert not is_protected("read", {"path": "/h/src/app.ts"}, PROTECTED_TOOLS, PROTECTED_PATHS)


def test_backslashes_normalized_to_forward_slashes() -> None:
    assert is_protected("read", {"path": "h\\skills\\x\\SKILL.md"}, PROTECTED_TOOLS, PROTECTED_PATHS)


@pytest.mark.parametrize("args", [{"path": 42}, {}, None, {"path": None}, "h/skills/x/SKILL.md"])
def test_non_string_or_missing_path_is_not_protected(args: object) -> None:
    assert not is_protected("read", args, PROTECTED_TOOLS, PROTECTED_PATHS)


def test_empty_config_protects_nothing() -> None:
    assert not is_protected("todowrite", {"path": "/h/skills/x/SKILL.md"}, [], [])


# ------------------------------------------------------------------ agreement with the contract


def contract_regex(pattern: str) -> re.Pattern[str]:
    """The glob contract spelled as a regex, as a test oracle (fine for the short inputs used here)."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        else:
            out += {"*": "[^/]*", "?": "[^/]"}.get(pattern[i], re.escape(pattern[i]))
            i += 1
    return re.compile(out, re.DOTALL)


@given(st.text("ab/*?.", max_size=10), st.text("ab/.\\", max_size=12))
def test_the_automaton_agrees_with_the_contract(pattern: str, path: str) -> None:
    expected = contract_regex(pattern).fullmatch(path.replace("\\", "/")) is not None
    assert matches(pattern, path) is expected
