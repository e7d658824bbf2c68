"""The find tool, Python backend (fd is not installed here; PATH is emptied so it never is), and the
tree walk it shares with grep: glob semantics, ignore rules, limits, errors."""

from pathlib import Path
from typing import Any

import pytest

from pi_tui.abort import AbortSignal
from pi_tui.tools.base import ToolContext, ToolError, ToolOutput
from pi_tui.tools.find import FindTool
from pi_tui.tools.walk import GlobMatcher, glob_regex, walk
from tests.support.typed import text_at


@pytest.fixture(autouse=True)
def without_fd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))


async def find(cwd: Path, signal: AbortSignal | None = None, **params: Any) -> ToolOutput:
    tool = FindTool()
    return await tool.run(tool.Params(**params), ToolContext(cwd=cwd, signal=signal or AbortSignal()))


def lines_of(out: ToolOutput) -> list[str]:
    return text_at(out.content).split("\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for rel in ("setup.py", "src/app.py", "src/pkg/util.py", "src/pkg/data.json", "tests/test_app.py",
                ".github/ci.yml", "docs/index.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return root


async def test_name_pattern_matches_at_any_depth(project: Path) -> None:
    # Depth first, each directory's entries sorted by name (the order of `rg --sort path`).
    assert lines_of(await find(project, pattern="*.py")) == [
        "setup.py", "src/app.py", "src/pkg/util.py", "tests/test_app.py"
    ]


async def test_path_patterns_match_from_the_search_root(project: Path) -> None:
    assert lines_of(await find(project, pattern="src/**/*.py")) == ["src/app.py", "src/pkg/util.py"]
    assert lines_of(await find(project, pattern="src/*.py")) == ["src/app.py"]
    assert lines_of(await find(project, pattern="**/*.json")) == ["src/pkg/data.json"]
    assert lines_of(await find(project, pattern="./setup.py")) == ["setup.py"]


async def test_directories_end_with_a_slash_and_hidden_entries_are_included(project: Path) -> None:
    assert lines_of(await find(project, pattern="*t*")) == [
        ".github/", "setup.py", "src/pkg/data.json", "src/pkg/util.py", "tests/", "tests/test_app.py"
    ]
    assert lines_of(await find(project, pattern="*.yml")) == [".github/ci.yml"]


async def test_search_path_and_parent_path(project: Path) -> None:
    assert lines_of(await find(project, pattern="*.py", path="src/pkg")) == ["util.py"]
    assert lines_of(await find(project / "docs", pattern="setup.py", path="..")) == ["setup.py"]


async def test_patterns_cannot_reach_outside_the_search_root(project: Path) -> None:
    (project.parent / "secret.txt").write_text("")
    out = await find(project, pattern="../*.txt")
    assert text_at(out.content) == "No files found matching pattern"


async def test_gitignore_rules(project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("")
    (project / ".gitignore").write_text("# comment\n/setup.py\ndocs/\n*.json\n")
    (project / "src" / ".gitignore").write_text("app.py\n")
    found = lines_of(await find(project, pattern="*"))
    assert found == [".github/", ".github/ci.yml", ".gitignore", "src/", "src/.gitignore", "src/pkg/",
                     "src/pkg/util.py", "tests/", "tests/test_app.py"]


async def test_gitignore_above_the_search_root_in_the_same_repository(project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("src/pkg/*.json\ntest_*.py\n")
    assert lines_of(await find(project, pattern="*", path="src")) == ["app.py", "pkg/", "pkg/util.py"]
    assert lines_of(await find(project, pattern="*", path="tests")) == ["No files found matching pattern"]


async def test_result_limit_notice(project: Path) -> None:
    out = await find(project, pattern="*.py", limit=3)
    assert lines_of(out) == [
        "setup.py", "src/app.py", "src/pkg/util.py", "",
        "[3 results limit reached. Use limit=6 for more, or refine pattern]",
    ]
    assert out.details == {"resultLimitReached": 3}
    assert len(lines_of(await find(project, pattern="*.py", limit=4))) == 4


async def test_default_limit_is_1000(tmp_path: Path) -> None:
    for i in range(1001):
        (tmp_path / f"{i:04d}.txt").write_text("")
    found = lines_of(await find(tmp_path, pattern="*.txt"))
    assert found[999] == "0999.txt"
    assert found[-1] == "[1000 results limit reached. Use limit=2000 for more, or refine pattern]"


async def test_byte_limit_notice(tmp_path: Path) -> None:
    for i in range(500):
        (tmp_path / f"{i:03d}{'n' * 120}.txt").write_text("")
    out = await find(tmp_path, pattern="*.txt")
    body, notice = text_at(out.content).split("\n\n")
    assert notice == "[50.0KB limit reached]" and len(body.encode()) <= 51200
    assert out.details is not None and out.details["truncation"]["truncatedBy"] == "bytes"


async def test_errors(project: Path) -> None:
    with pytest.raises(ToolError) as info:
        await find(project, pattern="*", path="nowhere")
    assert str(info.value) == f"Path not found: {project / 'nowhere'}"
    with pytest.raises(ToolError) as info:
        await find(project, pattern="*", path="setup.py")
    assert str(info.value) == f"Not a directory: {project / 'setup.py'}"


async def test_an_invalid_glob_is_one_line_saying_why(project: Path) -> None:
    with pytest.raises(ToolError) as info:
        await find(project, pattern="[z-a].py")
    assert str(info.value) == "Invalid glob '[z-a].py': invalid character class range: z-a"


async def test_symlink_loops_are_listed_not_followed(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "loop").symlink_to(tmp_path)
    assert lines_of(await find(tmp_path, pattern="*")) == ["sub/", "sub/loop"]


async def test_abort(project: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await find(project, signal, pattern="*")


def test_walk_stops_when_asked(project: Path) -> None:
    assert list(walk(project, should_stop=lambda: True)) == []


@pytest.mark.parametrize(
    ("pattern", "matching", "not_matching"),
    [
        ("*.py", ["a.py", ".x.py"], ["a.pyc", "d/a.py"]),
        ("**/*.py", ["a.py", "d/e/a.py"], ["a.txt"]),
        ("src/**", ["src/a", "src/a/b"], ["src", "lib/a"]),
        ("a/**/b", ["a/b", "a/x/y/b"], ["a/xb"]),
        ("file?.[ch]", ["file1.c", "fileA.h"], ["file10.c", "file1.o", "file/.c"]),
        ("[!a]*", ["b", "zz"], ["a", "ab"]),
        ("*.{js,ts}", ["a.js", "b.ts"], ["c.jsx"]),
        ("a\\*b", ["a*b"], ["axb"]),
        ("(x)+.txt", ["(x)+.txt"], ["xx.txt"]),
    ],
)
def test_glob_regex(pattern: str, matching: list[str], not_matching: list[str]) -> None:
    regex = glob_regex(pattern)
    assert all(regex.match(path) for path in matching)
    assert not any(regex.match(path) for path in not_matching)


def test_glob_matcher_names_versus_paths() -> None:
    assert GlobMatcher.parse("*.md").matches("docs/deep/readme.md")
    assert not GlobMatcher.parse("docs/*.md").matches("docs/deep/readme.md")
    assert GlobMatcher.parse("./docs/*.md").matches("docs/readme.md")


async def test_patterns_and_names_that_look_like_options(tmp_path: Path) -> None:
    (tmp_path / "--help me.txt").write_text("")
    (tmp_path / "-x").mkdir()
    assert lines_of(await find(tmp_path, pattern="-*")) == ["--help me.txt", "-x/"]
