"""Tests that install pi-tui's log file take its handler off again: it must not outlive their home."""

from __future__ import annotations

import logging

from pi_tui.logs import LOGGERS


def remove_log_handlers() -> None:
    for name in LOGGERS:
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
            handler.close()
