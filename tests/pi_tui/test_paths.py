"""pi-tui's home folder: `PI_TUI_HOME`, else `~/.pi-tui`, and never `/.pi-tui` because HOME was empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.errors import UserError
from pi_tui.paths import home_dir
from tests.support.cli import run_cli

ROOT_HOME = Path("/.pi-tui")


def test_an_empty_home_without_pi_tui_home_is_an_error_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    existed = ROOT_HOME.exists()
    for args in (["-p", "fix the failing test", "--model", "demo"], ["sessions"]):
        result = run_cli(*args, cwd=tmp_path, env={"HOME": ""}, unset=("PI_TUI_HOME",))
        assert result.returncode == 2, result.stderr
        assert result.stderr == ("pi-tui: error: HOME is empty and PI_TUI_HOME is not set: set HOME, or PI_TUI_HOME"
                                 " to the folder pi-tui keeps its files in\n")
    assert ROOT_HOME.exists() == existed, "nothing may be written to /.pi-tui"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("env", "unset"), [({"HOME": "relative/home"}, ("PI_TUI_HOME",)),
                                             ({"HOME": "~"}, ("PI_TUI_HOME",)),
                                             ({"PI_TUI_HOME": "relative/pi"}, ())])
def test_a_relative_home_is_an_error_in_one_line_and_writes_nothing(
        tmp_path: Path, env: dict[str, str], unset: tuple[str, ...]) -> None:
    """`HOME=relative/home` wrote `./relative/home/.pi-tui` inside the project; `HOME='~'` ended in
    `internal error: RuntimeError`."""
    [(name, value)] = env.items()
    for args in (["-p", "fix the failing test", "--model", "demo"], ["sessions"]):
        result = run_cli(*args, cwd=tmp_path, env=env, unset=unset)
        assert result.returncode == 2, result.stderr
        assert result.stderr == (f"pi-tui: error: {name}={value!r} is not an absolute path: give it in full (such as"
                                 " /home/you); pi-tui would keep its files under whatever folder it was started in\n")
    assert list(tmp_path.iterdir()) == []


def test_pi_tui_home_is_enough_when_home_is_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "")
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path / "home"))
    assert home_dir() == tmp_path / "home"
    monkeypatch.setenv("PI_TUI_HOME", "~/pi")  # a `~` still needs a HOME
    with pytest.raises(UserError):
        home_dir()
    monkeypatch.setenv("HOME", str(tmp_path))
    assert home_dir() == tmp_path / "pi"
