"""Where pi-tui keeps its files: one home folder, overridable for tests and for users with two setups."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from pi_tui.errors import UserError


def home_dir() -> Path:
    """`$PI_TUI_HOME`, else `~/.pi-tui`, and a full path either way. An empty `HOME` is refused rather
    than read as `/` (Python's reading), which would put a person's sessions in `/.pi-tui`, shared by
    everyone on the machine; a relative one (`relative/home`, `~`) would put them under whatever folder
    pi-tui was started in, or nowhere. HOME is checked beside PI_TUI_HOME too: Pi's folders are read from it."""
    home = os.environ.get("HOME")
    if home is not None and home.strip():
        _absolute("HOME", home)
    override = os.environ.get("PI_TUI_HOME")
    if override and not override.startswith("~"):
        return _absolute("PI_TUI_HOME", override)
    if home is not None and not home.strip():
        raise UserError("HOME is empty and PI_TUI_HOME is not set: set HOME, or PI_TUI_HOME to the folder"
                        " pi-tui keeps its files in")
    return _absolute("PI_TUI_HOME", os.path.expanduser(override)) if override else Path.home() / ".pi-tui"


def _absolute(name: str, value: str) -> Path:
    if not os.path.isabs(value):
        raise UserError(f"{name}={value!r} is not an absolute path: give it in full (such as /home/you); pi-tui"
                        " would keep its files under whatever folder it was started in")
    return Path(value)


def settings_file() -> Path:
    return home_dir() / "settings.toml"


def sessions_root() -> Path:
    return home_dir() / "sessions"


def encode_cwd(cwd: str | os.PathLike[str]) -> str:
    """Pi's folder name for a working directory: `/home/u/proj` -> `--home-u-proj--`."""
    text = str(cwd)
    if text[:1] in ("/", "\\"):
        text = text[1:]
    for ch in "/\\:":
        text = text.replace(ch, "-")
    return f"--{text}--"


def sessions_dir_for(cwd: str | os.PathLike[str]) -> Path:
    return sessions_root() / encode_cwd(cwd)


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) readable by the owner only: sessions hold a person's work and code,
    and the folder names under `sessions/` spell out the paths of the user's projects. Only folders
    created here are made 0700 (mkdir's `mode` only reaches the last one, and the umask narrows it);
    a folder that already existed is the user's and keeps its mode."""
    created = [folder for folder in (path, *path.parents) if not folder.exists()]
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    for folder in created:
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o700)
    return path
