"""Log handlers in tests: pi-tui's log file taken off again (it must not outlive a test's home), and the
errors condense logs, collected where a test must see none."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from pi_tui.logs import LOGGERS


def remove_log_handlers() -> None:
    for name in LOGGERS:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
            handler.close()


class _Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def condense_errors() -> Iterator[list[str]]:
    """The errors the `condense` logger logs inside the block (a render that differs from the full one)."""
    handler = _Collected()
    logger = logging.getLogger("condense")
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)
