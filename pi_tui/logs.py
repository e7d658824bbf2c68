"""pi-tui's log file: where the engine's and the agent's failures go, tracebacks included.

Textual owns the terminal while the TUI runs, so anything logged to stderr is lost; without a file a
failed chain compression or flush-metrics write would leave no trace at all. The file sits in pi-tui's
private home (0700) and is itself 0600 (its rotated files and a crash report too), and every record is
scrubbed of credentials first: a provider's error text can quote the key it rejected, a tool's output
can hold one, and a traceback quotes both.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
import traceback
from collections.abc import Callable
from io import TextIOWrapper
from logging.handlers import RotatingFileHandler
from pathlib import Path

from pi_tui.paths import ensure_private_dir, home_dir
from pi_tui.redaction import scrub

MAX_BYTES = 2_000_000
BACKUPS = 3
LOGGERS = ("condense", "pi_tui")
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
Notify = Callable[[str], None]  # shows one line to the person at the keyboard (transcript, or stderr)


def log_file() -> Path:
    return home_dir() / "logs" / "pi-tui.log"


class _ScrubbingFormatter(logging.Formatter):
    """Formats the whole record, traceback too, then blanks out anything that looks like a secret."""

    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record))


def _open_private(path: Path) -> TextIOWrapper:
    """`path` for appending, created 0600 (the umask would make it 0644) in a folder pi-tui keeps private."""
    ensure_private_dir(path.parent)
    return open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "a", encoding="utf-8")


class _PrivateRotatingHandler(RotatingFileHandler):
    """The standard handler opens each new file after a rotation with the umask's mode: ours stay 0600."""

    def _open(self) -> TextIOWrapper:
        return _open_private(Path(self.baseFilename))


def _handler(path: Path) -> RotatingFileHandler:
    _open_private(path).close()  # the folder and the file exist before the handler's first open
    handler = _PrivateRotatingHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    handler.setFormatter(_ScrubbingFormatter(_FORMAT))
    return handler


def write_crash_report(exc: BaseException) -> Path:
    """Append `exc`'s traceback, scrubbed, to the log file (where the notice sends the person), even
    when logging is off. A report that cannot be written is dropped: the crash is being said anyway."""
    path = log_file()
    report = f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} crash\n{''.join(traceback.format_exception(exc))}"
    with contextlib.suppress(OSError), _open_private(path) as log:
        log.write(scrub(report))
    return path


def install_log_file() -> Path | None:
    """Send condense's and pi-tui's INFO and above to the log file, replacing an earlier install (a
    second run in one process, with another home, must not write into the first one's file). None, with
    one line on stderr, when the file cannot be made: pi-tui then runs without a log rather than not at all."""
    path = log_file()
    try:
        handler = _handler(path)
    except OSError as exc:
        print(f"pi-tui: logging is off: cannot write {path} ({exc.strerror or exc})", file=sys.stderr)
        return None
    for name in LOGGERS:
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if isinstance(h, RotatingFileHandler)]:
            logger.removeHandler(old)
            old.close()
        logger.addHandler(handler)
        if logger.getEffectiveLevel() > logging.INFO:
            logger.setLevel(logging.INFO)
    return path


class _FailureNotices(logging.Handler):
    """condense's errors, shown to the person once per kind (the message template), pointing at the log:
    a failure that repeats every turn must not flood the transcript, and its details belong in the file."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.notify: Notify | None = None
        self._shown: set[str] = set()

    def reset(self) -> None:
        """A new session shows each kind once again: its person may not have seen the last one's."""
        self._shown.clear()

    def emit(self, record: logging.LogRecord) -> None:
        if self.notify is None or str(record.msg) in self._shown:
            return
        self._shown.add(str(record.msg))
        first_line = scrub(record.getMessage()).splitlines()[0] if record.getMessage() else ""
        where = log_file() if _log_is_on() else "nowhere: logging is off"
        self.notify(f"{first_line.removeprefix('pruner: ').removeprefix('condense: ')}"
                    f" (condense; details in {where})")


_NOTICES = _FailureNotices()


def _log_is_on() -> bool:
    return any(isinstance(h, RotatingFileHandler) for h in logging.getLogger(LOGGERS[0]).handlers)


def show_failures(notify: Notify | None) -> None:
    """Route condense's errors to `notify` (the newest session's UI; None stops showing them). One
    handler for the process, so a /new or /resume does not show each failure once per session ever opened."""
    logger = logging.getLogger("condense")
    if _NOTICES not in logger.handlers:
        logger.addHandler(_NOTICES)
    _NOTICES.notify = notify
    _NOTICES.reset()
