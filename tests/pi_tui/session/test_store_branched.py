"""`Session.branched`, the file Pi's `/fork` makes: the path to an entry in a new file that names its
parent session, labels set again, the original untouched."""

from __future__ import annotations

from pathlib import Path

from pi_tui.session.store import Session
from tests.support.turns import conversation


def test_the_fork_holds_the_path_names_its_parent_and_keeps_the_labels(tmp_path: Path) -> None:
    original = Session.create(tmp_path, tmp_path / "sessions")
    first, second = conversation(original, ("one", "a"), ("two", "b"))
    original.append_label(first, "start")
    original.append_label(second, "dropped with the branch")
    before = original.path.read_bytes() if original.path else b""

    fork = original.branched(original.parent_id(original.by_id[second]), tmp_path / "sessions")
    assert fork.path is not None and fork.path != original.path and fork.path.exists(), "a reply: written at once"
    reopened = Session.open(fork.path)
    assert reopened.header["parentSession"] == str(original.path)
    assert reopened.session_id != original.session_id
    kinds = [(e["type"], e.get("label")) for e in reopened.entries]
    assert kinds == [("message", None), ("message", None), ("label", "start")]
    assert [m["role"] for m in reopened.messages()] == ["user", "assistant"]
    assert original.path is not None and original.path.read_bytes() == before


def test_a_fork_from_the_first_message_is_an_empty_session_written_with_its_first_reply(tmp_path: Path) -> None:
    original = Session.create(tmp_path, tmp_path / "sessions")
    conversation(original, ("one", "a"))
    fork = original.branched(None, tmp_path / "sessions")
    assert fork.entries == [] and fork.path is not None and not fork.path.exists()
    assert fork.header["parentSession"] == str(original.path)
