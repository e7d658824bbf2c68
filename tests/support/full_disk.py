"""A folder whose disk is full: a real small tmpfs when this machine lets us mount one, else ENOSPC
injected into the two system calls through which session bytes reach a disk (`os.write` for appends,
`os.fsync` for whole-file writes, which is where delayed-allocation file systems report a full disk).

Run as a module it is a `pi-tui` launcher for a child process: `python -m tests.support.full_disk
FOLDER ARGV_JSON` injects the full disk for FOLDER (an empty FOLDER injects nothing), plays the demo
at full speed, and exits with `pi_tui.cli.main`'s status.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def try_mount_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(folder)],
                            capture_output=True)
    return result.returncode == 0


def unmount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def fill(folder: Path) -> Path:
    """Write a filler file until the disk says it is full; deleting it frees the space again."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with contextlib.suppress(OSError):
            while os.write(fd, b"\0" * 4096):
                pass
    finally:
        os.close(fd)
    return filler


def _under(fd: int, folder: str) -> bool:
    try:
        return os.readlink(f"/proc/self/fd/{fd}").startswith(folder + os.sep)
    except OSError:
        return False


def inject(folder: Path, short_write: bool = False) -> Callable[[], None]:
    """Make writes and fsyncs of files under `folder` fail with ENOSPC; returns the undo. With
    `short_write`, the disk fills in the middle of the first write: it lands half and reports so (as
    write(2) does), and the next one fails."""
    real_write, real_fsync = os.write, os.fsync
    prefix = str(folder.resolve())
    room = short_write  # the disk's last bytes: the next write under the folder lands half

    def write(fd: int, data: Any) -> int:
        nonlocal room
        if _under(fd, prefix):
            if room and len(data) > 1:
                room = False
                return real_write(fd, memoryview(data)[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    def fsync(fd: Any) -> None:
        number = fd if isinstance(fd, int) else fd.fileno()
        if _under(number, prefix):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    os.write, os.fsync = write, fsync

    def undo() -> None:
        os.write, os.fsync = real_write, real_fsync

    return undo


def die_at_write(folder: Path) -> None:
    """Kill this process (SIGKILL) at its first write or fsync of a file under `folder`: a crash at
    exactly that point, with nothing run after it."""
    real_write, real_fsync = os.write, os.fsync
    prefix = str(folder.resolve())

    def write(fd: int, data: Any) -> int:
        if _under(fd, prefix):
            os.kill(os.getpid(), signal.SIGKILL)
        return real_write(fd, data)

    def fsync(fd: Any) -> None:
        if _under(fd if isinstance(fd, int) else fd.fileno(), prefix):
            os.kill(os.getpid(), signal.SIGKILL)
        real_fsync(fd)

    os.write, os.fsync = write, fsync


@dataclass
class FullDisk:
    """A folder whose disk can be filled and freed again: a real tmpfs, or injected ENOSPC."""

    folder: Path
    kind: str  # "tmpfs" or "injected"
    short_write: bool = False  # injected: the disk fills in the middle of a write
    filler: Path | None = None
    undo: Callable[[], None] | None = None

    def fill(self) -> None:
        if self.kind == "tmpfs":
            self.filler = fill(self.folder)
        else:
            self.undo = inject(self.folder, self.short_write)

    def free(self) -> None:
        if self.filler is not None:
            self.filler.unlink()
            self.filler = None
        if self.undo is not None:
            self.undo()
            self.undo = None

    @property
    def child_injection(self) -> str:
        """What a child process must inject to see this disk as it is now."""
        return str(self.folder) if self.undo is not None else ""


@contextlib.contextmanager
def full_disk(folder: Path, kind: str, size: str, short_write: bool = False) -> Iterator[FullDisk]:
    """A FullDisk at `folder`: a tmpfs of `size` for the `tmpfs` kind where this machine lets us mount
    one (injection otherwise, so both kinds always run), unmounted again on leaving."""
    mounted = kind == "tmpfs" and try_mount_tmpfs(folder, size)
    folder.mkdir(exist_ok=True)
    disk = FullDisk(folder, "tmpfs" if mounted else "injected", short_write)
    try:
        yield disk
    finally:
        disk.free()
        if mounted:
            unmount(folder)


def _main() -> int:
    folder, argv = sys.argv[1], json.loads(sys.argv[2])
    if folder:
        inject(Path(folder))
    from pi_tui.cli import main
    from tests.reliability.killpoint import quiet_demo

    quiet_demo()
    return main(argv)


if __name__ == "__main__":
    sys.exit(_main())
