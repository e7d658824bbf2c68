"""File primitives for session writes that a crash, a full disk or a second process cannot half-do.

Two pi-tui processes may continue the same session at once (two terminals, `-p --continue` in a
script). Each write therefore takes an exclusive `flock` on the session file itself and re-checks
that the path still names the file it locked: a writer that replaced the file by rename locked the
old inode, which protects nothing once the rename is done. Locking the file itself leaves no lock
file behind. Whole-file writes go to a temp file unique to the call, are fsynced, and are then
renamed (or hard-linked, when the target must not exist yet), so a reader sees the old file or the
new one, whole, and a failed write leaves no temp file (condense.atomic_file, shared with the library's
store folder).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from condense.atomic_file import append, append_lines, create, refuse_read_only, replace, write_temp

# the whole-or-nothing writes and the read-only rule are condense's: the library's store uses them too
__all__ = ["Signature", "append", "append_lines", "create", "locked", "path_signature", "read_all",
           "refuse_read_only", "replace", "signature", "write_temp"]

Signature = tuple[int, int, int]  # device, inode, size: changes whenever another process writes


def signature(fd: int) -> Signature:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino, info.st_size


def path_signature(path: Path) -> Signature | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_size


def _same_file(fd: int, path: Path) -> bool:
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _open_locked(path: Path) -> int | None:
    while True:
        refuse_read_only(path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _same_file(fd, path):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # replaced while we waited: lock the file that is there now


@contextlib.contextmanager
def _folder_shared(folder: Path) -> Iterator[None]:
    """A shared lock on the session's folder while we write: a condense library store open in a
    Condenser holds that folder's exclusive lock, and a second writer there would interleave with it."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        yield  # a new session's folder: created by the write itself, held by nobody
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OSError(errno.EBUSY, f"{folder} is a store a condense library user has open; close it "
                          "(or end its process) first") from None
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[int | None]:
    """`path` open for appending under an exclusive lock (closing the fd releases it), or None when
    there is no such file yet."""
    with _folder_shared(path.parent):
        fd = _open_locked(path)
        try:
            yield fd
        finally:
            if fd is not None:
                os.close(fd)


def read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    chunks: list[bytes] = []
    offset = 0
    while offset < size:
        chunk = os.pread(fd, min(size - offset, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
