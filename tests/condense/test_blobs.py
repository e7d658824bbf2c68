"""Spill sidecars: hostile ids never leave the blobs folder, names fit in 255 bytes, modes are private."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from condense.blobs import SymlinkedBlobsError, blob_dir, blob_path, read_sidecar, sanitize_id, write_sidecar

HOSTILE_IDS = [
    "../../etc/passwd",
    "..",
    ".",
    "",
    "a\0b",
    "/abs/path",
    "C:\\windows\\system32",
    "id@123/../x",
    "ünïcødé-🙂",
    "x" * 4000,
    "é" * 2000,
    "\n\t ",
]


@pytest.mark.parametrize("hostile", HOSTILE_IDS, ids=range(len(HOSTILE_IDS)))
def test_hostile_ids_stay_in_the_blobs_folder(tmp_path: Path, hostile: str) -> None:
    blobs = blob_dir(tmp_path, "sid")
    path = blob_path(blobs, hostile)
    assert path.parent == blobs
    assert re.fullmatch(r"[A-Za-z0-9_.-]+", path.name)
    assert len(path.name.encode()) <= 255
    write_sidecar(path, "body")
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [path.name]
    assert read_sidecar(path) == "body"


def test_a_hostile_session_id_stays_in_the_session_folder(tmp_path: Path) -> None:
    assert blob_dir(tmp_path, "../../x").parent == tmp_path


def test_a_251_byte_base_keeps_the_plain_name_of_exactly_255_bytes() -> None:
    key = "a" * 251
    path = blob_path(Path("/s"), key)
    assert path.name == key + ".txt"
    assert len(path.name.encode()) == 255


def test_a_252_byte_base_is_capped_to_exactly_255_bytes_with_a_hash_suffix() -> None:
    path = blob_path(Path("/s"), "a" * 252)
    assert len(path.name.encode()) == 255
    assert re.fullmatch(r"a{234}\.[0-9a-f]{16}\.txt", path.name)


def test_capped_names_are_deterministic_and_distinct_per_unsanitized_key() -> None:
    assert blob_path(Path("/s"), "x" * 500) == blob_path(Path("/s"), "x" * 500)
    shared = "t" * 300
    assert blob_path(Path("/s"), shared + "A" * 200) != blob_path(Path("/s"), shared + "B" * 200)
    slash, backslash = "p" * 300 + "/x", "p" * 300 + "\\x"
    assert sanitize_id(slash) == sanitize_id(backslash)
    assert blob_path(Path("/s"), slash) != blob_path(Path("/s"), backslash)


def test_sidecar_is_0600_in_a_0700_folder_and_no_temp_file_is_left(tmp_path: Path) -> None:
    path = blob_path(blob_dir(tmp_path, "sid"), "tc1")
    write_sidecar(path, "secret output")
    write_sidecar(path, "rewritten")  # replacing an existing sidecar keeps the same guarantees
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["tc1.txt"]
    assert read_sidecar(path) == "rewritten"


def test_a_blobs_folder_made_by_someone_else_keeps_its_mode(tmp_path: Path) -> None:
    path = blob_path(blob_dir(tmp_path, "sid"), "tc1")
    path.parent.mkdir()
    path.parent.chmod(0o750)  # the user's choice (a group that reads the team's sessions, say)
    write_sidecar(path, "secret output")
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o750
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_symlinked_blobs_folder_is_neither_chmodded_nor_written_through(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    elsewhere.chmod(0o755)
    blobs = blob_dir(tmp_path / "sessions", "sid")
    blobs.parent.mkdir()
    blobs.symlink_to(elsewhere)
    with pytest.raises(SymlinkedBlobsError, match="sid-blobs is a symbolic link; spill files are never written"):
        write_sidecar(blob_path(blobs, "tc1"), "secret output")
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o755
    assert list(elsewhere.iterdir()) == []
    dangling = blob_dir(tmp_path / "sessions", "gone")
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(SymlinkedBlobsError):
        write_sidecar(blob_path(dangling, "tc1"), "secret output")
    assert not (tmp_path / "nowhere").exists()


def test_sidecars_round_trip_any_text_including_lone_surrogates(tmp_path: Path) -> None:
    path = blob_path(tmp_path, "tc1")
    text = "line one\r\nnon-ascii é 🙂\n\udcff lone surrogate\n"
    write_sidecar(path, text)
    assert read_sidecar(path) == text


def test_read_sidecar_is_none_for_a_missing_file_and_lenient_for_foreign_bytes(tmp_path: Path) -> None:
    assert read_sidecar(tmp_path / "gone.txt") is None
    foreign = tmp_path / "foreign.txt"
    foreign.write_bytes(b"ok \xff\xfe end")
    assert read_sidecar(foreign) == "ok \ufffd\ufffd end"


def test_a_failed_write_raises_and_leaves_no_temp_file(tmp_path: Path) -> None:
    path = blob_path(tmp_path, "tc1")
    path.mkdir()  # the target name is taken by a folder: os.replace fails
    with pytest.raises(OSError):
        write_sidecar(path, "body")
    assert [p.name for p in tmp_path.iterdir()] == ["tc1.txt"]


def test_the_blobs_folder_of_a_session_named_by_a_relative_path_is_absolute(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The path is recorded in the index: a reader started in another folder must find the file."""
    monkeypatch.chdir(tmp_path)
    assert blob_dir(Path("sessions"), "sid") == tmp_path / "sessions" / "sid-blobs"
