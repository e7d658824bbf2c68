"""A session that cannot be written: a full disk, a read-only file.

The full disk is a real 2 MB tmpfs where this machine can mount one, and injected ENOSPC otherwise
(tests/support/full_disk.py); the `tmpfs` variant falls back to injection where mounting is refused,
so both variants always run. Nothing may be lost that was on disk, no half backup or temp file may be
left, the user is told once what was not saved, and the next write after space is freed saves it.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pi_tui.session.store import Session, SessionWriteError
from tests.reliability.crash import Sandbox
from tests.support.full_disk import FullDisk, full_disk
from tests.support.session_checks import assert_every_parent_resolves, first_texts, no_temp_files
from tests.support.session_lines import V1_HEADER, V3_HEADER, assistant, user, write_lines


@pytest.fixture(params=["tmpfs", "injected"])
def disk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FullDisk]:
    with full_disk(tmp_path / "disk", request.param, "2m") as full:
        yield full


def run_cli(tmp_path: Path, argv: list[str], inject_for: str = "") -> subprocess.CompletedProcess[str]:
    """`pi-tui ARGV` in a child process (home and temp folder off the full disk), the demo at full speed."""
    box = Sandbox(tmp_path).make()
    return subprocess.run([sys.executable, "-m", "tests.support.full_disk", inject_for, json.dumps(argv)],
                          cwd=box.cwd, env=box.env(), capture_output=True, text=True, timeout=300)


def v3_session(path: Path) -> Path:
    return write_lines(path, [
        V3_HEADER,
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "t", "message": user("hello")},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "t", "message": assistant("hi")},
    ])


def v1_session(path: Path) -> Path:
    return write_lines(path, [V1_HEADER, {"type": "message", "timestamp": "t", "message": user("hello")},
                              {"type": "message", "timestamp": "t", "message": assistant("hi")}])


def not_saved_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "session not saved" in line]


# ----- the store ---------------------------------------------------------------------------------


def test_a_migration_on_a_full_disk_keeps_the_original_and_backs_it_up_once_space_is_free(disk: FullDisk) -> None:
    path = v1_session(disk.folder / "s.jsonl")
    original = path.read_bytes()
    session = Session.open(path)
    told: list[SessionWriteError | None] = []
    session.on_write_error = told.append
    disk.fill()
    session.append_message(user("one"))
    session.append_message(assistant("two"))
    assert len(told) == 1, "said once, not at every entry"
    assert told[0] is not None and "no space left" in str(told[0]) and str(path) in str(told[0])
    assert "your message and what follows are not saved" in str(told[0])
    assert path.read_bytes() == original
    assert sorted(p.name for p in disk.folder.iterdir() if p.name != "filler") == ["s.jsonl"], \
        "no half backup, no temp file"

    disk.free()
    session.append_message(user("three"))
    assert told[1:] == [None], "saved again, and said so"
    assert first_texts(assert_every_parent_resolves(path)) == ["hello", "hi", "one", "two", "three"]
    assert (disk.folder / "s.jsonl.v1.bak").read_bytes() == original
    assert no_temp_files(disk.folder) == []


def test_a_failed_append_leaves_no_half_line_and_is_retried(disk: FullDisk) -> None:
    path = v3_session(disk.folder / "s.jsonl")
    session = Session.open(path)
    session.on_write_error = lambda error: None
    before = path.read_bytes()
    disk.fill()
    session.append_message(user("x" * 100_000))  # bigger than what a nearly full tmpfs still takes
    assert path.read_bytes() == before
    failed = session.write_error
    assert failed is not None
    disk.free()
    session.append_message(assistant("answer"))
    assert session.write_error is None
    assert first_texts(assert_every_parent_resolves(path)) == ["hello", "hi", "x" * 100_000, "answer"]


def test_without_a_handler_the_first_failed_write_raises_one_clear_error(disk: FullDisk) -> None:
    session = Session.open(v3_session(disk.folder / "s.jsonl"))
    disk.fill()
    with pytest.raises(SessionWriteError, match="no space left on the disk"):
        session.append_message(user("x" * 100_000))  # more than the slack of the file's last page


# ----- print mode --------------------------------------------------------------------------------


def test_print_mode_on_a_full_disk_says_once_what_was_not_saved_and_exits_3(disk: FullDisk, tmp_path: Path) -> None:
    path = v3_session(disk.folder / "s.jsonl")
    before = path.read_bytes()
    disk.fill()
    argv = ["-p", "fix the failing test", "--session", str(path), "--model", "demo"]
    result = run_cli(tmp_path, argv, disk.child_injection)
    assert result.returncode == 3, result.stderr
    (line,) = not_saved_lines(result.stderr)
    assert line.startswith("pi-tui: error: session not saved: ") and "no space left" in line and str(path) in line
    assert "extension error" not in result.stderr and "Traceback" not in result.stderr
    # small lines may still fit in the slack of the file's last page; nothing on it is damaged
    assert path.read_bytes().startswith(before)
    assert_every_parent_resolves(path)
    assert no_temp_files(disk.folder) == []

    disk.free()
    again = run_cli(tmp_path, ["-p", "next task", "--session", str(path), "--model", "demo"])
    assert again.returncode == 0, again.stderr
    assert "next task" in first_texts(assert_every_parent_resolves(path))


@pytest.mark.parametrize("make", [v3_session, v1_session], ids=["v3", "v1"])
def test_print_mode_on_a_read_only_session_says_so_and_leaves_the_file_alone(
        tmp_path: Path, make: Callable[[Path], Path]) -> None:
    path = make(tmp_path / "ro.jsonl")
    path.chmod(0o444)
    before = path.read_bytes()
    result = run_cli(tmp_path, ["-p", "fix the failing test", "--session", str(path), "--model", "demo"])
    assert result.returncode == 3, result.stderr
    (line,) = not_saved_lines(result.stderr)
    assert "the file is read-only" in line and "make it writable" in line
    assert "extension error" not in result.stderr and "Traceback" not in result.stderr
    assert path.read_bytes() == before and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert sorted(p.name for p in tmp_path.glob("ro.jsonl*")) == ["ro.jsonl"], "no backup, no temp file"
    assert no_temp_files(tmp_path) == []
