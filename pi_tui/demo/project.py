"""The demo's working copy of the sample project.

The demo edits files and runs commands for real, so it must never touch the bundled original (it
ships inside the installed package) or the user's own folder: every run gets a fresh copy.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

SAMPLE_PROJECT = Path(__file__).with_name("sample_project")
PROJECT_NAME = "invoicer"
# Beside the copy, not in it: the demo's own `ls` and `find` must not see it.
MARKER = ".pi-tui-demo"
# Copies kept from earlier runs, newest first: enough to resume the recent demo sessions, while a
# machine that runs the demo every day does not collect thousands of folders in its temp folder.
KEEP_COPIES = 20


def prepare_demo_project(dest_root: Path | None = None) -> Path:
    """Copy the sample project into a new temporary folder (under `dest_root` if given); return the copy."""
    if dest_root is not None:
        dest_root.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="pi-tui-demo-", dir=dest_root))
    target = folder / PROJECT_NAME
    shutil.copytree(SAMPLE_PROJECT, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (folder / MARKER).write_text("a copy of pi-tui's demo project, safe to delete\n", encoding="utf-8")
    remove_old_copies(folder.parent, keep=KEEP_COPIES)
    return target


def mark_used(project: Path) -> None:
    """A resumed demo copy counts as new, so it outlives the copies nobody came back to."""
    (project.parent / MARKER).touch()


def remove_old_copies(root: Path, keep: int) -> None:
    """Delete all but the `keep` most recently used demo copies of this user under `root`; never a folder
    without the demo's marker, nor another user's."""
    copies = []
    for marker in root.glob(f"pi-tui-demo-*/{MARKER}"):
        try:
            info = marker.parent.lstat()
            if info.st_uid == os.getuid() and not marker.parent.is_symlink():
                copies.append((marker.stat().st_mtime_ns, marker.parent))
        except OSError:
            continue  # removed meanwhile by another run
    for _, folder in sorted(copies, reverse=True)[keep:]:
        shutil.rmtree(folder, ignore_errors=True)


def is_demo_copy(folder: Path) -> bool:
    """True only for a folder `prepare_demo_project` made. A session's recorded folder may be the user's
    own project: the demo resumes its work only in a copy of its own, never anywhere else."""
    return folder.name == PROJECT_NAME and (folder.parent / MARKER).is_file()
