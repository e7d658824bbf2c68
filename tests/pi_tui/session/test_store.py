"""The session store: Pi's files load, migrate, round-trip, and survive damage."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from pi_tui.session.store import Session, SessionError
from tests.conftest import corpus_path
from tests.support.session_lines import V3_HEADER, assistant, user, write_lines
from tests.support.typed import plain, present


def test_both_corpus_sessions_load_with_every_message(corpus_file: Path) -> None:
    session = Session.open(corpus_file)
    assert session.warnings == []
    assert session.source_version == 1
    raw = [json.loads(line) for line in corpus_file.read_text().splitlines()]
    assert len(session.entries) == len(raw) - 1
    assert all(len(e["id"]) == 8 for e in session.entries)
    # a v1 file is a linear log: every entry's parent is the entry before it
    assert [e["parentId"] for e in session.entries[1:]] == [e["id"] for e in session.entries[:-1]]


def test_large_session_context_holds_every_message_in_order() -> None:
    path = corpus_path("pi-large-session.jsonl")
    raw = [json.loads(line) for line in path.read_text().splitlines()]
    expected = [o["message"] for o in raw if o["type"] == "message"]
    assert Session.open(path).messages() == expected


def test_compacted_session_context_starts_with_last_compaction_summary() -> None:
    path = corpus_path("pi-before-compaction.jsonl")
    raw = [json.loads(line) for line in path.read_text().splitlines()]
    compactions = [i for i, o in enumerate(raw) if o["type"] == "compaction"]
    last = raw[compactions[-1]]
    messages = Session.open(path).messages()
    assert messages[0]["role"] == "compactionSummary"
    assert messages[0]["summary"] == last["summary"]
    # v1 firstKeptEntryIndex counts file lines, header included: kept messages start at that line
    kept_from = last["firstKeptEntryIndex"]
    expected = [o["message"] for o in raw[kept_from:] if o["type"] == "message"]
    assert messages[1:] == expected


def test_migrated_ids_are_the_same_on_every_load(corpus_file: Path) -> None:
    first = [e["id"] for e in Session.open(corpus_file).entries]
    second = [e["id"] for e in Session.open(corpus_file).entries]
    assert first == second
    assert len(set(first)) == len(first)


def test_save_as_v3_then_load_gives_same_branch_messages(corpus_file: Path, tmp_path: Path) -> None:
    session = Session.open(corpus_file)
    before = session.messages()
    out = tmp_path / "copy.jsonl"
    session.save_as(out)
    reloaded = Session.open(out)
    assert reloaded.source_version == 3
    assert json.loads(out.read_text().splitlines()[0])["version"] == 3
    assert reloaded.messages() == before
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_v2_file_migrates_hook_message_role(tmp_path: Path) -> None:
    header = {**V3_HEADER, "version": 2}
    hook = {"role": "hookMessage", "customType": "note", "content": "hi", "display": True, "timestamp": 3}
    path = write_lines(tmp_path / "v2.jsonl", [
        header,
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "t", "message": user("go")},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "t", "message": hook},
    ])
    session = Session.open(path)
    assert session.source_version == 2
    assert session.messages()[1]["role"] == "custom"
    assert path.read_text().count("hookMessage") == 1, "loading must not rewrite the file"


def test_appending_to_an_old_file_rewrites_it_as_v3_and_keeps_a_backup(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "v1.jsonl", [
        {"type": "session", "id": "old", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"},
        {"type": "message", "timestamp": "t", "message": user("hello")},
        {"type": "message", "timestamp": "t", "message": assistant("hi")},
    ])
    original = path.read_bytes()
    session = Session.open(path)
    session.append_message(user("more"))
    reloaded = Session.open(path)
    assert reloaded.source_version == 3
    assert [m["content"][0]["text"] for m in plain(reloaded.messages())] == ["hello", "hi", "more"]
    assert (tmp_path / "v1.jsonl.v1.bak").read_bytes() == original


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o600])
def test_a_migrated_file_and_its_backup_keep_the_users_mode(tmp_path: Path, mode: int) -> None:
    path = write_lines(tmp_path / "v1.jsonl", [
        {"type": "session", "id": "old", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"},
        {"type": "message", "timestamp": "t", "message": user("hello")},
    ])
    path.chmod(mode)
    owner = (path.stat().st_uid, path.stat().st_gid)
    Session.open(path).append_message(user("more"))
    assert Session.open(path).source_version == 3
    for kept in (path, tmp_path / "v1.jsonl.v1.bak"):
        assert stat.S_IMODE(kept.stat().st_mode) == mode
        assert (kept.stat().st_uid, kept.stat().st_gid) == owner


def test_compaction_context_uses_summary_then_kept_entries(tmp_path: Path) -> None:
    entries: list[dict[str, Any]] = [
        {"type": "message", "id": "e1", "parentId": None, "timestamp": "t", "message": user("one")},
        {"type": "message", "id": "e2", "parentId": "e1", "timestamp": "t", "message": assistant("two")},
        {"type": "message", "id": "e3", "parentId": "e2", "timestamp": "t", "message": user("three")},
        {"type": "compaction", "id": "c1", "parentId": "e3", "timestamp": "2026-01-01T00:00:01.000Z",
         "summary": "S", "firstKeptEntryId": "e2", "tokensBefore": 99},
        {"type": "custom_message", "id": "e4", "parentId": "c1", "timestamp": "2026-01-01T00:00:02.000Z",
         "customType": "note", "content": "n", "display": False},
        {"type": "branch_summary", "id": "e5", "parentId": "e4", "timestamp": "2026-01-01T00:00:03.000Z",
         "fromId": "e1", "summary": "B"},
        {"type": "message", "id": "e6", "parentId": "e5", "timestamp": "t", "message": user("four")},
    ]
    session = Session.open(write_lines(tmp_path / "c.jsonl", [V3_HEADER, *entries]))
    messages = plain(session.messages())
    assert [m["role"] for m in messages] == ["compactionSummary", "assistant", "user", "custom",
                                             "branchSummary", "user"]
    assert messages[0]["summary"] == "S" and messages[0]["tokensBefore"] == 99
    assert messages[3]["customType"] == "note" and messages[3]["timestamp"] == 1767225602000
    assert messages[4]["summary"] == "B"


def test_torn_last_line_is_skipped_with_file_and_line_named(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "torn.jsonl", [
        V3_HEADER,
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "t", "message": user("ok")},
    ], tail='{"type":"message","id":"a2","parentId":"a1","mess')
    session = Session.open(path)
    assert [m["content"][0]["text"] for m in plain(session.messages())] == ["ok"]
    assert len(session.warnings) == 1
    assert str(session.warnings[0]).startswith(f"{path}:3: not valid JSON")
    # appending after a torn line starts a fresh line instead of gluing onto the garbage
    session.append_message(assistant("reply"))
    assert [m["content"][0]["text"] for m in plain(Session.open(path).messages())] == ["ok", "reply"]


def test_wrong_types_are_skipped_and_named(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "bad.jsonl", [
        V3_HEADER,
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "t", "message": "not a dict"},
        {"type": "message", "id": "a2", "parentId": None, "timestamp": "t", "message": user("fine")},
        {"type": "model_change", "id": 5, "parentId": None},
    ])
    session = Session.open(path)
    assert [w.line for w in session.warnings] == [2, 4]
    assert "message" in session.warnings[0].reason
    assert "'id' must be a string" in session.warnings[1].reason
    assert len(session.messages()) == 1


def test_unknown_entry_types_and_keys_survive_a_round_trip(tmp_path: Path) -> None:
    odd = {"type": "context-edit", "id": "z1", "parentId": None, "timestamp": "t", "payload": [1, 2]}
    msg = {"type": "message", "id": "z2", "parentId": "z1", "timestamp": "t", "message": user("x"),
           "futureKey": {"a": 1}}
    path = write_lines(tmp_path / "u.jsonl", [{**V3_HEADER, "extra": True}, odd, msg])
    session = Session.open(path)
    out = tmp_path / "u2.jsonl"
    session.save_as(out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["extra"] is True
    assert lines[1] == odd
    assert lines[2]["futureKey"] == {"a": 1}


def test_parent_cycle_does_not_hang(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "cycle.jsonl", [
        V3_HEADER,
        {"type": "message", "id": "a1", "parentId": "a2", "timestamp": "t", "message": user("one")},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "t", "message": user("two")},
    ])
    assert len(Session.open(path).messages()) == 2


def test_not_a_session_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(SessionError, match="not a session file"):
        Session.open(path)
    with pytest.raises(SessionError, match="no such session file"):
        Session.open(tmp_path / "missing.jsonl")


def test_new_session_is_written_with_first_reply_append_only_and_private(tmp_path: Path) -> None:
    session = Session.create("/work/p", tmp_path / "sessions")
    session.append_model_change("demo", "demo")
    session.append_message(user("hi"))
    assert session.path is not None and not session.path.exists(), "no file before the first reply"
    session.append_message(assistant("hello"))
    assert session.path.exists()
    assert stat.S_IMODE(session.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(session.path.parent.stat().st_mode) == 0o700
    size = session.path.stat().st_size
    session.append_custom("context-prune-index", {"k": 1})
    data = session.path.read_bytes()
    assert len(data) > size and data.count(b"\n") == 5
    lines = [json.loads(line) for line in data.splitlines()]
    assert lines[0]["version"] == 3 and lines[0]["cwd"] == "/work/p"
    assert [line["parentId"] for line in lines[1:]] == [None] + [line["id"] for line in lines[1:-1]]
    assert session.path.name.endswith(f"_{session.session_id}.jsonl")


def test_branching_appends_a_child_of_the_chosen_entry(tmp_path: Path) -> None:
    session = Session.create("/w", tmp_path)
    first = session.append_message(user("a"))
    session.append_message(assistant("b"))
    session.branch(first)
    session.append_message(assistant("c"))
    assert [m["content"][0]["text"] for m in plain(session.messages())] == ["a", "c"]
    assert len(session.children(first)) == 2
    reloaded = Session.open(present(session.path))  # leaf = last entry in file order
    assert [m["content"][0]["text"] for m in plain(reloaded.messages())] == ["a", "c"]
    with pytest.raises(SessionError):
        session.branch("nope")
