"""One `except CondenseError` catches what condense raises on purpose, and each kind keeps the built-in
base existing callers catch."""

from __future__ import annotations

from pathlib import Path

import pytest

import condense
from condense import (
    CondenseError,
    Condenser,
    ConfigError,
    FileLog,
    MessageError,
    StoreFormatError,
    StoreInUseError,
    StoreWriteError,
    SummarizerAborted,
    from_openai,
)


def test_every_public_exception_of_condense_is_a_condense_error() -> None:
    public = [getattr(condense, name) for name in condense.__all__]
    errors = [value for value in public if isinstance(value, type) and issubclass(value, BaseException)]
    assert set(errors) == {CondenseError, ConfigError, MessageError, StoreFormatError, StoreInUseError,
                           StoreWriteError, SummarizerAborted}
    assert all(issubclass(error, CondenseError) for error in errors)
    assert issubclass(MessageError, ValueError) and issubclass(StoreInUseError, RuntimeError)
    assert issubclass(StoreWriteError, OSError)


def test_a_message_the_engine_cannot_hold_is_caught_as_a_condense_error() -> None:
    with pytest.raises(CondenseError):
        from_openai([{"role": "wizard", "content": "?"}])


def test_a_store_already_open_is_caught_as_a_condense_error(tmp_path: Path) -> None:
    first = FileLog(tmp_path)
    try:
        with pytest.raises(CondenseError):
            FileLog(tmp_path)
    finally:
        first.close()


def test_a_bad_setting_is_caught_as_a_condense_error_naming_the_key() -> None:
    with pytest.raises(CondenseError, match="spill_threshold"):
        Condenser(config={"spill_threshold": -1})


def test_a_folder_holding_no_pi_session_is_caught_as_a_condense_error(tmp_path: Path) -> None:
    (tmp_path / "notes.jsonl").write_text('{"hello": "world"}\n')
    with pytest.raises(CondenseError, match="not a Pi session file"):
        FileLog(tmp_path)
