"""Reading /proc from a test: which processes of a group still run (the bash tool must end them all)."""

from __future__ import annotations

import os
from pathlib import Path


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
