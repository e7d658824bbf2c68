"""Session writers that never lose a turn: concurrent writers, migration backups, symlinks, folder modes.

Everything here writes real files; concurrency runs real processes that opened the same file before
any of them wrote to it. The full disk and read-only files are in test_write_failures.py.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pi_tui.cli import main
from pi_tui.paths import ensure_private_dir
from pi_tui.session.store import Session
from tests.conftest import corpus_path
from tests.support.session_checks import assert_every_parent_resolves, by_text, first_texts, no_temp_files
from tests.support.session_lines import V1_HEADER, assistant, user, write_lines
from tests.support.typed import plain
from tests.support.waiting import wait_until

REPO = Path(__file__).resolve().parents[3]


def small_v1(path: Path) -> Path:
    return write_lines(path, [V1_HEADER, {"type": "message", "timestamp": "t", "message": user("hello")},
                              {"type": "message", "timestamp": "t", "message": assistant("hi")}])


def corpus_copy(folder: Path, name: str = "pi-large-session.jsonl") -> Path:
    path = folder / name
    shutil.copyfile(corpus_path(name), path)  # the corpus files are read-only: copy the bytes, not the mode
    path.chmod(0o644)
    return path


# ----- one process with a stale view -------------------------------------------------------------


def test_a_stale_v1_session_joins_the_migration_another_process_made(tmp_path: Path) -> None:
    path = small_v1(tmp_path / "s.jsonl")
    original = path.read_bytes()
    first, second = Session.open(path), Session.open(path)  # both read version 1, nobody wrote yet
    first.append_message(user("from first"))
    second.append_message(user("from second"))
    second.append_message(assistant("reply to second"))
    first.append_message(assistant("reply to first"))

    on_disk = assert_every_parent_resolves(path)
    assert on_disk.source_version == 3
    assert sorted(first_texts(on_disk)) == sorted(["hello", "hi", "from first", "from second", "reply to first",
                                             "reply to second"])
    entry = by_text(on_disk)
    assert entry["reply to second"]["parentId"] == entry["from second"]["id"], "each reply under its message"
    assert entry["reply to first"]["parentId"] == entry["from first"]["id"]
    assert entry["from first"]["parentId"] == entry["from second"]["parentId"] == entry["hi"]["id"]
    assert [p.name for p in tmp_path.glob("*.bak")] == ["s.jsonl.v1.bak"]
    assert (tmp_path / "s.jsonl.v1.bak").read_bytes() == original
    # the stale process picked up the other's entries, and its own branch is untouched
    assert "from first" in first_texts(second)
    assert [m["content"][0]["text"] for m in plain(second.messages())] == [
        "hello", "hi", "from second", "reply to second"]
    assert no_temp_files(tmp_path) == []


def test_a_v3_session_open_twice_appends_under_its_own_leaf_and_keeps_the_others_lines(tmp_path: Path) -> None:
    path = small_v1(tmp_path / "s.jsonl")
    Session.open(path).append_message(user("migrate"))
    first, second = Session.open(path), Session.open(path)
    for n in range(3):
        first.append_message(user(f"first {n}"))
        second.append_message(user(f"second {n}"))
    on_disk = assert_every_parent_resolves(path)
    assert [t for t in first_texts(on_disk) if t.startswith(("first", "second"))] == [
        "first 0", "second 0", "first 1", "second 1", "first 2", "second 2"]
    assert [m["content"][0]["text"] for m in plain(first.messages())][-3:] == ["first 0", "first 1", "first 2"]
    # each one knows what the other wrote before its own last write
    assert [e["id"] for e in second.entries] == [e["id"] for e in on_disk.entries]
    assert [e["id"] for e in first.entries] == [e["id"] for e in on_disk.entries][:-1]


def test_an_entry_whose_parent_the_file_lost_is_never_written(tmp_path: Path) -> None:
    path = small_v1(tmp_path / "s.jsonl")
    session = Session.open(path)
    session.append_message(user("one"))
    other = tmp_path / "other.jsonl"
    small_v1(other)
    Session.open(other).append_message(user("elsewhere"))
    os.replace(other, path)  # another program put a different session in its place
    replaced = path.read_bytes()
    errors: list[object] = []
    session.on_write_error = errors.append
    session.append_message(user("two"))
    assert path.read_bytes() == replaced
    assert len(errors) == 1 and "replaced by another program" in str(errors[0])


# ----- real processes at the same time -----------------------------------------------------------

WRITER = """
import sys, time
from pathlib import Path
from pi_tui.session.store import Session

path, name, ready, go = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
session = Session.open(path)
ready.touch()
while not go.exists():
    time.sleep(0.001)
for turn in range(3):
    session.append_message({"role": "user", "content": [{"type": "text", "text": f"{name} asks {turn}"}],
                            "timestamp": 1})
    session.append_message({"role": "assistant", "content": [{"type": "text", "text": f"{name} answers {turn}"}],
                            "api": "x", "provider": "p", "model": "m", "usage": {}, "stopReason": "stop",
                            "timestamp": 2})
"""


def test_processes_continuing_the_same_v1_corpus_file_at_once_lose_nothing(tmp_path: Path) -> None:
    path = corpus_copy(tmp_path)
    original = path.read_bytes()
    go = tmp_path / "go"
    names = [f"p{n}" for n in range(6)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    children = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), name, str(tmp_path / f"ready-{name}"),
                                  str(go)], env=env, stderr=subprocess.PIPE, text=True) for name in names]
    try:
        wait_until(lambda: all((tmp_path / f"ready-{n}").exists() for n in names), "every writer to load the file",
                   timeout=120)
        go.touch()  # all of them hold the version 1 file in memory: now they write at once
        for child in children:
            _, err = child.communicate(timeout=300)
            assert child.returncode == 0, err
    finally:
        for child in children:
            child.kill()
    entry = by_text(assert_every_parent_resolves(path))
    for name in names:
        for turn in range(3):
            question, answer = entry[f"{name} asks {turn}"], entry[f"{name} answers {turn}"]
            assert answer["parentId"] == question["id"]
    assert [p.name for p in tmp_path.glob("*.bak")] == [f"{path.name}.v1.bak"]
    assert (tmp_path / f"{path.name}.v1.bak").read_bytes() == original
    assert no_temp_files(tmp_path) == []


def test_two_print_mode_runs_on_the_same_v1_session_keep_both_turns(tmp_path: Path) -> None:
    from tests.reliability.crash import RUNNER, Sandbox

    box = Sandbox(tmp_path).make()
    path = corpus_copy(box.cwd)
    original = path.read_bytes()
    plans = [{"at": 0, "runs": [["-p", text, "--session", str(path), "--model", "demo"]],
              "report": str(tmp_path / f"report-{n}.json")} for n, text in enumerate(("first task", "second task"))]
    children = [subprocess.Popen([sys.executable, str(RUNNER), json.dumps(plan)], cwd=box.cwd, env=box.env(),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for plan in plans]
    for child in children:
        _, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
    session = assert_every_parent_resolves(path)
    users = [e for e in session.entries if e["type"] == "message" and e["message"]["role"] == "user"]
    asked = {e["message"]["content"][0]["text"]: e for e in users}
    for text in ("first task", "second task"):
        # a run that loaded the file after the other wrote its message continues under it (Pi's leaf rule)
        replies = [r["message"]["role"] for r in session.children(asked[text]["id"]) if r["type"] == "message"]
        assert replies.count("assistant") == 1, f"{text!r} has its reply"
    assert (box.cwd / f"{path.name}.v1.bak").read_bytes() == original
    assert no_temp_files(box.cwd) == []


# ----- backups and symlinks ----------------------------------------------------------------------


def test_an_existing_backup_is_reused_only_when_it_holds_the_original(tmp_path: Path) -> None:
    path = small_v1(tmp_path / "s.jsonl")
    original = path.read_bytes()
    stale = tmp_path / "s.jsonl.v1.bak"
    stale.write_bytes(b"")  # what a full disk left behind before backups went through a temp file
    Session.open(path).append_message(user("more"))
    assert stale.read_bytes() == b"", "a backup that differs is never overwritten"
    assert (tmp_path / "s.jsonl.v1.2.bak").read_bytes() == original

    again = small_v1(tmp_path / "t.jsonl")
    twin = tmp_path / "t.jsonl.v1.bak"
    twin.write_bytes(again.read_bytes())
    before = twin.stat().st_ino
    Session.open(again).append_message(user("more"))
    assert twin.stat().st_ino == before, "a byte-identical backup is kept as it is"
    assert [p.name for p in tmp_path.glob("t.jsonl*.bak")] == [twin.name]


def test_a_symlinked_session_is_rewritten_at_its_target_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    real = small_v1(tmp_path / "store" / "real.jsonl")
    original = real.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    session = Session.open(link)
    session.append_message(user("through the link"))
    session.append_message(assistant("answer"))
    assert link.is_symlink() and link.resolve() == real
    assert first_texts(Session.open(real)) == ["hello", "hi", "through the link", "answer"]
    assert Session.open(real).source_version == 3
    assert (tmp_path / "store" / "real.jsonl.v1.bak").read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.jsonl", "store"]


# ----- folder modes and replay -o ----------------------------------------------------------------


def test_only_folders_pi_tui_creates_are_made_private(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    mine.chmod(0o755)
    ensure_private_dir(mine / "a" / "b")
    assert stat.S_IMODE(mine.stat().st_mode) == 0o755, "the user's folder keeps its mode"
    assert stat.S_IMODE((mine / "a").stat().st_mode) == 0o700
    assert stat.S_IMODE((mine / "a" / "b").stat().st_mode) == 0o700
    ensure_private_dir(mine)
    assert stat.S_IMODE(mine.stat().st_mode) == 0o755


def test_replay_into_an_existing_folder_keeps_its_mode(tmp_path: Path) -> None:
    source = small_v1(tmp_path / "src.jsonl")
    existing = tmp_path / "existing"
    existing.mkdir()
    existing.chmod(0o755)
    assert main(["replay", str(source), "-o", str(existing / "out.jsonl")]) == 0
    assert stat.S_IMODE(existing.stat().st_mode) == 0o755
    assert stat.S_IMODE((existing / "out.jsonl").stat().st_mode) == 0o600
    assert first_texts(Session.open(existing / "out.jsonl")) == ["hello", "hi"]


def test_replay_refuses_a_missing_output_folder_like_cp(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = small_v1(tmp_path / "src.jsonl")
    out = tmp_path / "missing" / "out.jsonl"
    assert main(["replay", str(source), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such folder" in err and str(out.parent) in err
    assert not out.parent.exists()
