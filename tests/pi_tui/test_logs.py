"""The log file: private, rotating, scrubbed, with tracebacks; a home it cannot write turns logging off
with one line instead of stopping pi-tui."""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from condense.diagnostics import DiagnosticSink
from pi_tui import logs, redaction
from pi_tui.logs import install_log_file, write_crash_report
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


def test_a_rotated_log_and_the_new_file_after_it_stay_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(logs, "MAX_BYTES", 2_000)
    path = install_log_file()
    assert path is not None
    for number in range(40):
        logging.getLogger("pi_tui.agent").error("failure %d %s", number, "x" * 100)
    files = sorted(path.parent.iterdir())
    assert [f.name for f in files] == ["pi-tui.log", "pi-tui.log.1", "pi-tui.log.2", "pi-tui.log.3"]
    assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in files} == {f.name: 0o600 for f in files}
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_key_known_only_from_the_base_url_never_reaches_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redaction, "_url_secrets", {})
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path))
    redaction.remember_base_url("https://llm.example/v1?key=QUERYSECRET-0451")
    path = install_log_file()
    assert path is not None
    logging.getLogger("condense").warning("GET https://llm.example/v1?key=QUERYSECRET-0451 failed")
    assert "GET https://llm.example/v1?key=[redacted:--base-url key] failed" in path.read_text()


def test_a_crash_report_is_private_scrubbed_and_lands_without_a_log_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MISTRAL_API_KEY", "mistral-key-98765")
    try:
        raise RuntimeError("the provider said: bad key mistral-key-98765")
    except RuntimeError as exc:
        path = write_crash_report(exc)
    assert path == tmp_path / "home" / "logs" / "pi-tui.log"
    text = path.read_text()
    assert "Traceback (most recent call last)" in text and "bad key [redacted:MISTRAL_API_KEY]" in text
    assert "mistral-key-98765" not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "home").stat().st_mode) == 0o700
