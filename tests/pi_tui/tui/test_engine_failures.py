"""An engine failure a person should know of reaches them: once in the transcript, as one line naming the
log file, with the traceback in that file (Textual owns stderr, so a log record alone would be lost)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from condense.records import FLUSH_METRICS
from pi_tui.logs import install_log_file, log_file
from pi_tui.session.store import Session
from pi_tui.settings import load_settings
from tests.support.log_handlers import remove_log_handlers


@pytest.fixture
def log_installed() -> Iterator[None]:
    install_log_file()
    yield
    remove_log_handlers()


def notes(app: Any) -> list[str]:
    return [item.message["text"] for item in app.main.transcript.conversation.items if item.kind == "note"]


async def test_a_failed_metrics_write_is_shown_once_and_logged_with_its_traceback(
    make_app: Any, send: Any, wait: Any, monkeypatch: pytest.MonkeyPatch, log_installed: None
) -> None:
    real_append = Session.append_custom

    def full_disk_for_metrics(self: Session, custom_type: str, data: Any) -> Any:
        if custom_type == FLUSH_METRICS:
            raise OSError(28, "No space left on device")
        return real_append(self, custom_type, data)

    monkeypatch.setattr(Session, "append_custom", full_disk_for_metrics)
    # pi-condense's format writes each record as it comes, so the metrics' write can fail alone (the compact
    # format writes a flush's records together: tests/condense/test_record_bursts.py)
    condense = load_settings().settings.condense.model_copy(update={"index_copies": True})
    app = make_app(settings=load_settings().settings.model_copy(update={"condense": condense}))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        await send(pilot, "fix the failing test")  # the demo flushes on its final reply: metrics fail
        await send(pilot, "next task please")  # and again
        await pilot.pause()
        shown = [text for text in notes(app) if "could not write flush metrics" in text]
        assert shown == [f"could not write flush metrics: [Errno 28] No space left on device"
                         f" (condense; details in {log_file()})"]
    logged = log_file().read_text()
    assert logged.count("could not write flush metrics") == 2
    assert "Traceback (most recent call last)" in logged and "OSError: [Errno 28]" in logged
