"""Paths as models write them: `@` mentions, `~`, odd spaces, relative to the session's cwd."""

from pathlib import Path

import pytest

from pi_tui.tools.pathing import os_error_text, resolve_path


def test_relative_paths_resolve_against_the_given_cwd(tmp_path: Path) -> None:
    assert resolve_path("src/app.py", tmp_path) == tmp_path / "src" / "app.py"
    assert resolve_path(".", tmp_path) == tmp_path


def test_at_mention_prefix_is_stripped(tmp_path: Path) -> None:
    assert resolve_path("@src/app.py", tmp_path) == tmp_path / "src" / "app.py"


def test_home_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert resolve_path("~", Path("/elsewhere")) == tmp_path / "home"
    assert resolve_path("~/notes.md", Path("/elsewhere")) == tmp_path / "home" / "notes.md"
    assert resolve_path("~other", tmp_path) == tmp_path / "~other"


def test_unicode_spaces_become_plain_spaces(tmp_path: Path) -> None:
    assert resolve_path("my\u00a0file\u202fv2.txt", tmp_path) == tmp_path / "my file v2.txt"


def test_parent_references_and_absolute_paths(tmp_path: Path) -> None:
    cwd = tmp_path / "project" / "sub"
    assert resolve_path("../x.txt", cwd) == tmp_path / "project" / "x.txt"
    assert resolve_path("a/../../../y", cwd) == tmp_path / "y"
    assert resolve_path("/etc/hosts", cwd) == Path("/etc/hosts")


def test_os_error_text_is_one_line_naming_the_path() -> None:
    error = FileNotFoundError(2, "No such file or directory")
    assert os_error_text(error, "/x/y") == "No such file or directory: /x/y"
