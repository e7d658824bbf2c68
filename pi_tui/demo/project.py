"""The demo's working copy of the sample project.

The demo edits files and runs commands for real, so it must never touch the bundled original (it
ships inside the installed package) or the user's own folder: every run gets a fresh copy.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

SAMPLE_PROJECT = Path(__file__).with_name("sample_project")
PROJECT_NAME = "invoicer"


def prepare_demo_project(dest_root: Path | None = None) -> Path:
    """Copy the sample project into a new temporary folder (under `dest_root` if given); return the copy."""
    if dest_root is not None:
        dest_root.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="pi-tui-demo-", dir=dest_root))
    target = folder / PROJECT_NAME
    shutil.copytree(SAMPLE_PROJECT, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target
