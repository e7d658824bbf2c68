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
import subprocess
import sys
from collections.abc import Callable
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


def inject(folder: Path) -> Callable[[], None]:
    """Make writes and fsyncs of files under `folder` fail with ENOSPC; returns the undo."""
    real_write, real_fsync = os.write, os.fsync
    prefix = str(folder.resolve())

    def write(fd: int, data: Any) -> int:
        if _under(fd, prefix):
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
