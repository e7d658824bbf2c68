"""Odd command-line inputs are refused in one line before anything is written: a count that is not
positive, an empty task, an empty path (which would otherwise mean the current folder), a path that is no
regular file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_tui.cli import main
from pi_tui.paths import sessions_root
from tests.conftest import corpus_path
from tests.support.cli import run_cli


@pytest.mark.parametrize("window", ["-5", "0"])
def test_a_context_window_that_is_not_positive_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          window: str) -> None:
    out = tmp_path / "out.jsonl"
    assert main(["replay", str(corpus_path("pi-compaction-check.jsonl")), "-o", str(out),
                 "--context-window", window]) == 2
    assert capsys.readouterr().err == f"pi-tui: error: --context-window {window}: give a positive whole number\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("task", ["", "  \n"])
def test_an_empty_task_is_refused_before_a_session_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch, task: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["-p", task, "--model", "demo"]) == 2
    assert capsys.readouterr().err.startswith("pi-tui: error: -p: the task is empty;")
    assert not sessions_root().exists() or not any(sessions_root().rglob("*.jsonl"))


@pytest.mark.parametrize(("argv", "flag"), [
    (["show", ""], "SESSION"), (["context", " "], "SESSION"), (["whatif", "x.jsonl", ""], "SESSION"),
    (["replay", "x.jsonl", "-o", ""], "-o"), (["--session", "", "-p", "hi"], "--session"),
    (["replay", "x.jsonl", "-o", "o.jsonl", "--settings", ""], "--settings"),
])
def test_an_empty_path_is_named_as_such(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch, argv: list[str], flag: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert capsys.readouterr().err == f"pi-tui: error: {flag}: the path is empty; give a file name\n"
    assert list(tmp_path.iterdir()) == []


def test_session_into_a_missing_folder_creates_it_as_pi_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The documented choice: `--session` is pi-tui's own storage (Pi creates its session folders), while
    `replay -o` is an export and wants an existing folder."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "new" / "deeper" / "s.jsonl"
    assert main(["-p", "fix the failing test", "--model", "demo", "--session", str(path)]) == 0
    assert path.is_file()
    assert main(["replay", str(path), "-o", str(tmp_path / "missing" / "r.jsonl")]) == 2


@pytest.mark.parametrize(("argv", "error"), [
    (["show", "/dev/zero"], "/dev/zero: is a device, not a session file; give the session's .jsonl file"),
    (["query", "{fifo}", "t1"], "{fifo}: is a named pipe (FIFO), not a session file; give the session's .jsonl file"),
    (["context", "{folder}"], "{folder}: is a folder, not a session file; give the session's .jsonl file"),
    (["-p", "hi", "--model", "demo", "--session", "/dev/zero"], "/dev/zero: is a device, not a session file;"
                                                                " give the session's .jsonl file"),
    (["whatif", str(corpus_path("pi-compaction-check.jsonl")), "--settings", "{fifo}"],
     "--settings {fifo}: is a named pipe (FIFO), not a settings file; give a settings.toml"),
])
def test_a_path_that_is_no_regular_file_is_refused_before_it_is_read(tmp_path: Path, argv: list[str],
                                                                     error: str) -> None:
    """`show /dev/zero` read one endless line until memory ran out, and a named pipe waited for good."""
    fifo, folder = tmp_path / "pipe.jsonl", tmp_path / "folder.jsonl"
    os.mkfifo(fifo)
    folder.mkdir()
    names = {"fifo": str(fifo), "folder": str(folder)}
    done = run_cli(*(arg.format(**names) for arg in argv), cwd=tmp_path, timeout=60, max_memory=2 << 30)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"pi-tui: error: {error.format(**names)}\n")
