"""The log file: private, rotating, scrubbed, with tracebacks; a home it cannot write turns logging off
with one line instead of stopping pi-tui."""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from condense.diagnostics import DiagnosticSink
from pi_tui.logs import install_log_file
from tests.support.log_handlers import remove_log_handlers


@pytest.fixture(autouse=True)
def _no_handler_left() -> Iterator[None]:
    """Each test installs into its own home; the handler must not outlive it."""
    yield
    remove_log_handlers()


def test_the_log_file_is_private_inside_a_private_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path / "home"))
    path = install_log_file()
    assert path == tmp_path / "home" / "logs" / "pi-tui.log"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


class _FailingEntries:
    def __call__(self, custom_type: str, data: object) -> None:
        raise OSError(28, "No space left on device")


def test_an_engine_failure_lands_with_its_traceback_and_without_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value-123456")
    path = install_log_file()
    assert path is not None
    DiagnosticSink(_FailingEntries()).report("orphan-sweep", "sk-ant-secret-value-123456", "swept")
    text = path.read_text()
    assert "could not record a orphan-sweep diagnostic" in text
    assert "Traceback (most recent call last)" in text and "No space left on device" in text
    assert "sk-ant-secret-value-123456" not in text


def test_a_second_install_moves_the_log_instead_of_writing_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path / "a"))
    first = install_log_file()
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path / "b"))
    second = install_log_file()
    logging.getLogger("pi_tui.agent").error("once")
    assert first is not None and second is not None
    assert "once" not in first.read_text()
    assert second.read_text().count("once") == 1


def test_a_home_that_is_a_file_turns_logging_off_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    home.write_text("not a folder")
    monkeypatch.setenv("PI_TUI_HOME", str(home))
    assert install_log_file() is None
    err = capsys.readouterr().err.strip()
    assert err.startswith("pi-tui: logging is off: cannot write") and "\n" not in err
    assert home.read_text() == "not a folder"
