"""File primitives for session writes that a crash, a full disk or a second process cannot half-do.

Two pi-tui processes may continue the same session at once (two terminals, `-p --continue` in a
script). Each write therefore takes an exclusive `flock` on the session file itself and re-checks
that the path still names the file it locked: a writer that replaced the file by rename locked the
old inode, which protects nothing once the rename is done. Locking the file itself leaves no lock
file behind. Whole-file writes go to a temp file unique to the call, are fsynced, and are then
renamed (or hard-linked, when the target must not exist yet), so a reader sees the old file or the
new one, whole, and a failed write leaves no temp file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

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


def _refuse_read_only(path: Path) -> None:
    """A file nobody may write is the user saying "leave it alone"; root would not be stopped by the
    mode, and a rename would replace the file anyway, so the mode is honoured here explicitly."""
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_IMODE(os.stat(path).st_mode) & 0o222:
            raise PermissionError(errno.EACCES, "the file is read-only", str(path))


def _same_file(fd: int, path: Path) -> bool:
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _open_locked(path: Path) -> int | None:
    while True:
        _refuse_read_only(path)
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
    """Make a rename durable; some file systems cannot fsync a folder, which only costs durability."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
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
