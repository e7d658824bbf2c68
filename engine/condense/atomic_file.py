"""File writes that a crash or a full disk cannot half-do: an append lands whole or not at all, and a
whole file appears complete or not at all.

Both writers of Pi session files use them: pi-tui's session store (which adds its own locking on top,
pi_tui/session/atomic.py) and the library's store folder (condense.entry_log). A half line left by a
full disk would be read back as damage, and a 0-byte file left by a kill at its first write as no
session at all, so neither may ever be left.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path


def refuse_read_only(path: Path) -> None:
    """A file nobody may write is the user saying "leave it alone"; root would not be stopped by the
    mode, and a rename would replace the file anyway, so the mode is honoured here explicitly."""
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_IMODE(os.stat(path).st_mode) & 0o222:
            raise PermissionError(errno.EACCES, "the file is read-only", str(path))


def append(fd: int, data: bytes) -> None:
    """Append `data` whole or not at all: on a full disk, a partial write is cut off again so that no
    half line is left for the next write to follow."""
    start = os.fstat(fd).st_size
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        raise


def append_lines(fd: int, data: bytes) -> None:
    """`append` after whatever the file ends with: a last line torn by an older writer's crash gets its
    line end first, or it would swallow the first of these lines."""
    size = os.fstat(fd).st_size
    if size:
        os.lseek(fd, size - 1, os.SEEK_SET)  # read only: appends go to the end whatever the offset
        if os.read(fd, 1) != b"\n":
            data = b"\n" + data
    append(fd, data)


def _take_mode(fd: int, like: os.stat_result) -> None:
    """Give a file that replaces (or copies) a user's file that file's mode, and its owner where we may
    (only root may give a file away; a group we belong to is allowed)."""
    os.fchmod(fd, stat.S_IMODE(like.st_mode))
    with contextlib.suppress(OSError):
        os.fchown(fd, like.st_uid, like.st_gid)


def write_temp(folder: Path, name: str, chunks: Iterable[bytes], like: os.stat_result | None = None) -> Path:
    """`chunks` in a new fsynced temp file of `folder` (unique to this call), removed again if anything
    fails. It is private (0600) unless `like` gives the mode and owner of the file it stands for."""
    fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            if like is not None:
                _take_mode(fd, like)
            for chunk in chunks:
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return Path(temp)


def _sync_folder(folder: Path) -> None:
    """Make a rename durable; some file systems (and Windows) cannot fsync a folder, which only costs
    durability."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def replace(temp: Path, target: Path) -> None:
    try:
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _sync_folder(target.parent)


def create(temp: Path, target: Path) -> bool:
    """Move `temp` to `target` unless `target` exists (then False: someone else created it first)."""
    try:
        try:
            os.link(temp, target)
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links: the check and the rename are two steps there
            if os.path.lexists(target):
                return False
            os.replace(temp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
    _sync_folder(target.parent)
    return True
