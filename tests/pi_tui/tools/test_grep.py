"""The grep tool, Python backend (rg is not installed here; PATH is emptied so it never is):
output format, options, ignore rules, limits and notices, errors."""

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from pi_tui.abort import AbortSignal
from pi_tui.tools.base import ToolContext, ToolError, ToolOutput
from pi_tui.tools.grep import GrepTool
from tests.support.typed import text_at


@pytest.fixture(autouse=True)
def without_ripgrep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))


async def grep(cwd: Path, signal: AbortSignal | None = None, **params: Any) -> ToolOutput:
    tool = GrepTool()
    return await tool.run(tool.Params(**params), ToolContext(cwd=cwd, signal=signal or AbortSignal()))


def text_of(out: ToolOutput) -> str:
    return text_at(out.content)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "app.py").write_text("import os\n\ndef main():\n    return os.getcwd()\n")
    (root / "pkg" / "util.py").write_text("def helper():\n    pass\n")
    (root / "notes.txt").write_text("def is also here\n")
    return root


async def test_matches_with_relative_posix_paths(project: Path) -> None:
    out = await grep(project, pattern=r"def \w+\(")
    assert text_of(out) == "app.py:3: def main():\npkg/util.py:1: def helper():"
    assert out.details is None


async def test_context_lines(project: Path) -> None:
    out = await grep(project, pattern="main", context=1)
    assert text_of(out) == "app.py-2- \napp.py:3: def main():\napp.py-4-     return os.getcwd()"


async def test_ignore_case_and_literal(project: Path) -> None:
    assert text_of(await grep(project, pattern="IMPORT OS", ignoreCase=True)) == "app.py:1: import os"
    assert text_of(await grep(project, pattern="os.getcwd()", literal=True)).startswith("app.py:4:")
    assert text_of(await grep(project, pattern="os.getcwd(", literal=True)).startswith("app.py:4:")


@pytest.mark.parametrize(
    ("glob", "files"),
    [
        ("*.py", {"app.py", "pkg/util.py"}),
        ("*.txt", {"notes.txt"}),
        ("pkg/*.py", {"pkg/util.py"}),
        ("**/*.py", {"app.py", "pkg/util.py"}),
        ("!*.py", {"notes.txt"}),
        ("*.{txt,md}", {"notes.txt"}),
    ],
)
async def test_glob_filter(project: Path, glob: str, files: set[str]) -> None:
    out = await grep(project, pattern="def", glob=glob)
    assert {line.split(":")[0] for line in text_of(out).split("\n")} == files


async def test_single_file_uses_its_name(project: Path) -> None:
    assert text_of(await grep(project, pattern="pass", path="pkg/util.py")) == "util.py:2:     pass"


async def test_no_matches_is_not_an_error(project: Path) -> None:
    out = await grep(project, pattern="no such text anywhere")
    assert text_of(out) == "No matches found" and out.details is None


async def test_gitignore_git_dir_hidden_and_binary_files(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("needle\n")
    (tmp_path / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.js").write_text("needle\n")
    (tmp_path / "debug.log").write_text("needle\n")
    (tmp_path / "keep.log").write_text("needle\n")
    (tmp_path / ".hidden.cfg").write_text("needle\n")
    (tmp_path / "blob.bin").write_bytes(b"\0\0needle\n")
    out = await grep(tmp_path, pattern="needle")
    assert text_of(out) == ".hidden.cfg:1: needle\nkeep.log:1: needle"


async def test_match_limit_notice(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("hit\n" * 150)
    out = await grep(tmp_path, pattern="hit")
    body, notice = text_of(out).split("\n\n")
    assert len(body.split("\n")) == 100 and body.endswith("many.txt:100: hit")
    assert notice == "[100 matches limit reached. Use limit=200 for more, or refine pattern]"
    assert out.details == {"matchLimitReached": 100}


async def test_exactly_limit_matches_has_no_notice(tmp_path: Path) -> None:
    (tmp_path / "few.txt").write_text("hit\n" * 5)
    assert "[" not in text_of(await grep(tmp_path, pattern="hit", limit=5))


async def test_long_lines_cut_to_500_chars(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("x" * 600 + "needle\n")
    out = await grep(tmp_path, pattern="needle")
    assert text_of(out) == (
        "min.js:1: " + "x" * 500 + "... [truncated]\n\n"
        "[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    assert out.details == {"linesTruncated": True}


async def test_byte_limit_and_all_notices_together(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text(("needle " + "y" * 593 + "\n") * 150)
    out = await grep(tmp_path, pattern="needle", limit=120)
    body, notice = text_of(out).split("\n\n")
    assert len(body.encode()) <= 51200
    assert notice == (
        "[120 matches limit reached. Use limit=240 for more, or refine pattern. 50.0KB limit reached. "
        "Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    assert out.details is not None
    assert set(out.details) == {"matchLimitReached", "truncation", "linesTruncated"}


async def test_errors(project: Path) -> None:
    with pytest.raises(ToolError) as info:
        await grep(project, pattern="x", path="../elsewhere")
    assert str(info.value) == f"Path not found: {project.parent / 'elsewhere'}"
    with pytest.raises(ToolError, match="regex parse error"):
        await grep(project, pattern="(unclosed")


async def test_parent_path_outside_cwd(project: Path) -> None:
    (project.parent / "outside.txt").write_text("needle\n")
    out = await grep(project / "pkg", pattern="needle", path="../..")
    assert text_of(out) == "outside.txt:1: needle"


async def test_crlf_lines_are_shown_without_carriage_returns(tmp_path: Path) -> None:
    (tmp_path / "win.txt").write_bytes(b"one\r\nneedle\r\nthree\r\n")
    assert text_of(await grep(tmp_path, pattern="needle", context=1)) == (
        "win.txt-1- one\nwin.txt:2: needle\nwin.txt-3- three"
    )


async def test_abort(project: Path) -> None:
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await grep(project, signal, pattern="def")


async def test_patterns_and_names_that_look_like_options(tmp_path: Path) -> None:
    (tmp_path / "-rf notes.txt").write_text("run --force now\n")
    out = await grep(tmp_path, pattern="--force", literal=True)
    assert text_of(out) == "-rf notes.txt:1: run --force now"


async def test_abort_while_searching(tmp_path: Path) -> None:
    for i in range(300):
        (tmp_path / f"f{i:03d}.txt").write_text("needle\n" * 200)
    signal = AbortSignal()
    task = asyncio.create_task(grep(tmp_path, signal, pattern="needle", limit=100_000))
    await asyncio.sleep(0)  # the search is now running in its worker thread
    signal.abort()
    with pytest.raises(ToolError, match=r"^Operation aborted$"):
        await task


async def test_a_named_pipe_in_the_tree_is_skipped_and_one_named_is_refused(project: Path) -> None:
    """rg skips what is no regular file; the fallback did read a pipe, and waited for a writer forever."""
    os.mkfifo(project / "pkg" / "pipe")
    out = await asyncio.wait_for(grep(project, pattern="def helper"), timeout=60)
    assert text_of(out) == "pkg/util.py:1: def helper():"
    with pytest.raises(ToolError, match=r"^pkg/pipe is a named pipe \(FIFO\), not a regular file"):
        await asyncio.wait_for(grep(project, pattern="x", path="pkg/pipe"), timeout=60)
