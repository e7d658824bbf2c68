"""`pi-tui sessions`: this folder's sessions, pi-tui's and Pi's own (marked), and with `--all` every folder's,
a deleted folder's included, each by a path that opens it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.cli import main
from pi_tui.paths import sessions_root
from pi_tui.session.listing import newest_session, pi_sessions_root, resolve_session_arg
from tests.support.session_lines import saved_session


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def listing(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["sessions", *args]) == 0
    return capsys.readouterr().out


def test_pi_sessions_of_this_folder_are_listed_and_marked(here: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    ours = saved_session(sessions_root(), here, "fix the parser", "ours-1", modified=1_000)
    pis = saved_session(pi_sessions_root(), here, "write the docs", "pis-1", modified=2_000)
    saved_session(pi_sessions_root(), tmp_path / "elsewhere", "not this folder", "pis-2", modified=3_000)
    rows = json.loads(listing(capsys, "--json"))
    assert [(row["file"], row["app"]) for row in rows] == [(str(pis), "pi"), (str(ours), "pi-tui")]
    text = listing(capsys)
    assert f"{pis.name}  pi\n    write the docs\n" in text
    assert f"{ours.name}\n    fix the parser\n" in text
    assert "not this folder" not in text
    assert resolve_session_arg("pis-1", here) == pis  # `show pis-1`, `--session` by name, as for pi-tui's own


def test_all_lists_every_folder_by_full_path_and_where_it_ran(here: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    gone = tmp_path / "deleted-project"
    ours = saved_session(sessions_root(), here, "fix the parser", "ours-1", modified=1_000)
    other = saved_session(sessions_root(), gone, "old work", "ours-2", modified=3_000)
    pis = saved_session(pi_sessions_root(), tmp_path / "elsewhere", "pi's work", "pis-2", modified=2_000)
    (tmp_path / "elsewhere").mkdir()
    assert "old work" not in listing(capsys)
    rows = json.loads(listing(capsys, "--all", "--json"))
    assert [(row["file"], row["cwd"], row["app"]) for row in rows] == [
        (str(other), str(gone), "pi-tui"), (str(pis), str(tmp_path / "elsewhere"), "pi"),
        (str(ours), str(here), "pi-tui")]
    text = listing(capsys, "--all")
    assert f"{other}\n    old work\n    in {gone} (no longer there)\n" in text
    assert f"{pis}  pi\n    pi's work\n    in {tmp_path / 'elsewhere'}\n" in text
    assert main(["show", str(other)]) == 0 and "old work" in capsys.readouterr().out


def test_an_empty_folder_points_at_all(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "`pi-tui sessions --all` lists every folder's" in listing(capsys)
    assert listing(capsys, "--all").startswith("no sessions yet (they are saved under ")


def test_continue_keeps_to_pi_tuis_sessions_though_pis_is_newer(here: Path) -> None:
    ours = saved_session(sessions_root(), here, "fix the parser", "ours-1", modified=1_000)
    saved_session(pi_sessions_root(), here, "write the docs", "pis-1", modified=2_000)
    assert newest_session(here) == ours  # Pi may still have its file open: `-c` never picks it silently
