"""One writer per store folder, on every platform the library runs on.

Two writers would each continue the branch they read at opening, and the file would end up with two
interleaved branches, one of them unreachable. So a store folder is locked from opening until it is
closed, and the lock must go with its holder, whatever way that ends (a kill included), or a store
could never be opened again.

Where the system has `flock` the lock is on the folder itself, through a descriptor the kernel releases
with the process: pi-tui takes a shared lock on the same folder before it writes a session there
(pi_tui/session/atomic.py), so it never writes into a store a Condenser holds, and no lock file is left
behind. Elsewhere (Windows) the folder cannot be opened as a file: a lock file in it is locked instead,
through filelock, which Windows also releases with the process.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from condense.errors import StoreInUseError

# filelock is imported where a store is opened, not with this module: the import costs about 25 ms, and
# pi-tui's session store imports this package's entry log for its line format.

LOCK_FILE = ".condense.lock"  # only where the folder itself cannot be locked

Release = Callable[[], None]


def lock_folder(folder: Path) -> Release:
    """Hold the exclusive lock of `folder` (created 0700 if missing); returns its release. Raises
    StoreInUseError when another writer, in this process or another, holds it."""
    from filelock import has_fcntl

    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return _lock_descriptor(folder) if has_fcntl else _lock_file(folder)


def _in_use(folder: Path) -> StoreInUseError:
    return StoreInUseError(f"{folder}: this store is already open in another Condenser (in this process or"
                           " another); close that one (its close(), or end its process) or name another folder")


def _lock_descriptor(folder: Path) -> Release:
    from filelock import lock_descriptor

    fd = os.open(folder, os.O_RDONLY)
    try:
        locked = lock_descriptor(fd, blocking=False)
    except BaseException:
        os.close(fd)
        raise
    if not locked:
        os.close(fd)
        raise _in_use(folder)
    return lambda: os.close(fd)  # closing the descriptor drops the lock


def _lock_file(folder: Path) -> Release:
    from filelock import FileLock, Timeout

    lock = FileLock(folder / LOCK_FILE, thread_local=False)  # released by whichever thread drops it
    try:
        lock.acquire(blocking=False)
    except Timeout:
        raise _in_use(folder) from None
    return lambda: lock.release(force=True)
