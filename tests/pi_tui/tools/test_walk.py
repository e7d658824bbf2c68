"""The tree walk behind find and grep (and @-completion) when `fd`/`rg` are missing: it must skip exactly
what git skips, and no hostile pattern, in a `.gitignore` or in a search, may hang it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pi_tui.tools.walk import walk

ROOT_IGNORE = "\n".join([
    "# comments and blank lines are not patterns",
    "",
    "*.log",
    "!keep.log",
    "/only-top.txt",
    "build/",
    "docs/**/draft.md",
    "**/cache/",
    "{a,b}.txt",  # git has no braces: this names one file
    "trail\\ ",  # an escaped trailing space is kept
    "\\#hash.txt",
    "[!x]y.cfg",
])
SUB_IGNORE = """\
!*.log
/local.txt
deep/
"""
FILES = (
    "app.log", "keep.log", "only-top.txt", "src/only-top.txt", "build/out.bin", "src/build/x.o",
    "docs/draft.md", "docs/a/b/draft.md", "docs/readme.md", "x/cache/blob", "cache",
    "{a,b}.txt", "a.txt", "b.txt", "trail ", "trail", "#hash.txt", "ay.cfg", "xy.cfg",
    "sub/app.log", "sub/local.txt", "sub/inner/local.txt", "sub/deep/f", "sub/inner/deep/f", "sub/deep.txt",
)


def git_env(home: Path) -> dict[str, str]:
    """No user or system git configuration, so no global excludes file can change git's answer."""
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull}


def make_repo(root: Path) -> None:
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    (root / ".gitignore").write_text(ROOT_IGNORE)
    (root / "sub" / ".gitignore").write_text(SUB_IGNORE)
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=git_env(root.parent), timeout=60)


def test_ignores_exactly_what_git_ignores(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root)
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", "-z"],
        cwd=root, env=git_env(tmp_path), capture_output=True, text=True, check=True, timeout=60,
    )
    by_git = sorted(name for name in listed.stdout.split("\0") if name)
    walked = sorted(entry.rel for entry in walk(root) if not entry.is_dir)
    assert walked == by_git
    # The cases a hand-written matcher got wrong, spelled out so a failure says which rule broke.
    assert {"a.txt", "b.txt", "trail", "sub/app.log", "sub/deep.txt", "sub/inner/local.txt"} <= set(walked)
    assert not {"{a,b}.txt", "trail ", "docs/a/b/draft.md", "x/cache/blob", "sub/inner/deep/f"} & set(walked)


PROBE = """
import sys
from pathlib import Path
from pi_tui.tools.walk import GlobMatcher, walk
glob = GlobMatcher.parse(sys.argv[2])
print(sorted(entry.rel for entry in walk(Path(sys.argv[1])) if glob.matches(entry.rel)))
"""
HOSTILE = "a*a*a*a*a*a*a*a*a*b"  # a backtracking regex needs about C(200, 9) steps on "a" * 200: days


def walk_in_a_process(root: Path, glob: str) -> str:
    """In its own process, so that a hang ends with the timeout instead of keeping a thread of the tests."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(root), glob],
        cwd=Path(__file__).resolve().parents[3], capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_pathological_ignore_pattern_does_not_hang_the_walk(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text(HOSTILE + "\n")
    (tmp_path / ("a" * 200)).write_text("")
    (tmp_path / "aaaaaaaaab").write_text("")
    assert walk_in_a_process(tmp_path, "*") == str([".gitignore", "a" * 200])


def test_a_pathological_search_glob_does_not_hang_the_search(tmp_path: Path) -> None:
    (tmp_path / ("a" * 200)).write_text("")
    (tmp_path / "deep" / "aaaaaaaaab").mkdir(parents=True)
    assert walk_in_a_process(tmp_path, HOSTILE) == str(["deep/aaaaaaaaab"])
    assert walk_in_a_process(tmp_path, "**/" + HOSTILE) == str(["deep/aaaaaaaaab"])


def test_a_pattern_that_cannot_be_compiled_drops_only_that_line(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("!\n[[:digit:]]x\nx\\\n*.tmp\n\\\n")
    (tmp_path / "a.tmp").write_text("")
    (tmp_path / "keep.py").write_text("")
    assert [entry.rel for entry in walk(tmp_path)] == [".gitignore", "keep.py"]


@pytest.mark.parametrize("search", ["build", "build/deep"])
def test_an_ignored_directory_searched_explicitly_is_searched_like_rg_does(tmp_path: Path, search: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    for rel in ("build/deep/out.txt", "build/deep/out.log"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    found = [entry.rel for entry in walk(tmp_path / search)]
    assert found == (["deep", "deep/out.txt"] if search == "build" else ["out.txt"])
