"""Reading /proc from a test: which processes of a group still run (the bash tool must end them all)."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.waiting import wait_until


def live_members(pgid: int) -> list[int]:
    """Processes of the group that are not zombies (a zombie is already dead)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(entry))
    return alive


def group_of_pidfile(pidfile: Path) -> int:
    """The process group of the process whose pid a command writes to `pidfile` (`sleep 300 & echo $! >
    pidfile`), once the command has written it."""
    wait_until(lambda: pidfile.is_file() and pidfile.read_text().strip(), f"a pid in {pidfile.name}")
    return os.getpgid(int(pidfile.read_text()))
