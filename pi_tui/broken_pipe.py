"""A reader that goes away (`pi-tui -p ... | head -1`) ends our output, never our work or its exit status.

Python raises BrokenPipeError on the first write after the reader left, wherever that write is: in the
middle of a task (which would stop it half done) or in the line saying that the task failed (which made a
failed `-p` exit 0). So the standard streams of the commands are rebuilt over descriptors that drop
what they cannot deliver: the run goes on, and its exit status is the run's.
"""

from __future__ import annotations

import io
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


class _PipeEnd(io.RawIOBase):
    """A standard stream's descriptor whose writes are dropped once its reader is gone."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.gone = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: ReadableBuffer) -> int:
        size = memoryview(data).nbytes
        if not self.gone:
            try:
                return os.write(self._fd, data)
            except BrokenPipeError:
                self.gone = True
        return size


def _guarded(stream: io.TextIOWrapper) -> io.TextIOWrapper:
    stream.flush()
    raw = _PipeEnd(stream.fileno())
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding, errors=stream.errors,
                            line_buffering=stream.line_buffering, write_through=stream.write_through)


def guard_standard_streams() -> None:
    """Make stdout and stderr drop what a reader that left cannot take. Streams someone else put in their
    place (a test harness capturing them) are theirs, and left as they are."""
    if sys.__stdout__ is not None and sys.stdout is sys.__stdout__:
        sys.stdout = _guarded(sys.__stdout__)
    if sys.__stderr__ is not None and sys.stderr is sys.__stderr__:
        sys.stderr = _guarded(sys.__stderr__)
