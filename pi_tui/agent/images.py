"""Images a user message carries: from the clipboard (Ctrl+V) or an image file's path pasted or dropped
onto the editor, as Pi's `image` content blocks (base64 data and a MIME type).

The clipboard is read through the first clipboard tool that is installed and holds an image, as Pi
reads it: `wl-paste` (Wayland), `xclip` (X11), `pngpaste` (macOS). What comes back must be an image
by its first bytes: a tool that answers with text attaches nothing.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlparse

from condense.messages import ImageContent
from pi_tui.tools.read import image_content, image_mime_type

CLIPBOARD_TOOLS = (
    ("wl-paste", ["--type", "image/png", "--no-newline"]),
    ("xclip", ["-selection", "clipboard", "-t", "image/png", "-o"]),
    ("pngpaste", ["-"]),
)
CLIPBOARD_SECONDS = 3
MAX_IMAGE_BYTES = 20 * 1024 * 1024  # what providers take at most in one image
MAX_PATH_CHARS = 4096  # PATH_MAX on Linux, more than macOS allows: a longer paste names no file


def image_block(data: bytes) -> ImageContent | None:
    """The content block of an image; None when `data` is no image pi-tui can send."""
    mime = image_mime_type(data[:16])
    if mime is None or len(data) > MAX_IMAGE_BYTES:
        return None
    return image_content(data, mime)


def clipboard_tools() -> list[str]:
    """The clipboard tools installed here, in the order they are asked."""
    return [name for name, _ in CLIPBOARD_TOOLS if shutil.which(name)]


def clipboard_image() -> ImageContent | None:
    """The image on the clipboard, or None (no tool, no image, a tool that failed or hung)."""
    for name, args in CLIPBOARD_TOOLS:
        path = shutil.which(name)
        if path is None:
            continue
        try:
            done = subprocess.run([path, *args], capture_output=True, timeout=CLIPBOARD_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        block = image_block(done.stdout) if done.returncode == 0 else None
        if block is not None:
            return block
    return None


def pasted_path(text: str, cwd: Path) -> Path | None:
    """The file a paste names, when it is one path: terminals paste a dropped file as its path, quoted,
    with `\\ ` for spaces, or as a `file://` URL. Anything else is text: more than one line (by any
    line-break convention: terminals paste line breaks as CR), longer than any path can be, or a name the
    file system refuses (a NUL byte, a part too long, `~nosuchuser`)."""
    line = text.strip()
    if not line or len(line) > MAX_PATH_CHARS or len(line.splitlines()) > 1:
        return None
    if line[0] == line[-1] and line[0] in "'\"" and len(line) > 1:
        line = line[1:-1]
    elif line.startswith("file://"):
        line = unquote(urlparse(line).path)
    else:
        line = line.replace("\\ ", " ")
    try:
        path = (cwd / Path(line).expanduser()).resolve()
        return path if path.is_file() else None
    except (OSError, ValueError, RuntimeError):  # too long, NUL, an unknown user's ~, a symlink loop
        return None


def image_at(text: str, cwd: Path) -> tuple[str, ImageContent] | None:
    """A pasted path's name and image block, when the paste is the path of an image file."""
    path = pasted_path(text, cwd)
    if path is None:
        return None
    try:
        block = image_block(path.read_bytes())
    except OSError:
        return None
    return (path.name, block) if block is not None else None
