"""Spill sidecars: oversized tool outputs kept on disk beside the session instead of inside it.

A tool-call id comes from the provider (or from a session file someone else wrote), so it is treated
as hostile: file names keep only `[A-Za-z0-9_-]` and are capped at 255 bytes (the usual file-system
limit), which makes it impossible for any id to name a file outside the blobs folder. Writes go
through a temporary file and `os.replace`, so a crash never leaves a half-written sidecar under the
final name that recovery would then trust. A blobs folder that is a symbolic link is never written
through nor chmodded (it could point at any folder of the user's): the spill is refused and the output
stays inline; a folder that exists keeps its mode, only one created here is made 0700.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from pathlib import Path

from condense.occurrence import parse_occ_key

MAX_NAME_BYTES = 255
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_SUFFIX = ".txt"
_HASH_CHARS = 16

# Sidecars must round-trip any Python string (tool output may hold lone surrogates), so both
# directions use the same lenient error handler.
_ENCODING = "utf-8"
_ERRORS = "surrogatepass"


def utf8_bytes(text: str) -> bytes:
    return text.encode(_ENCODING, _ERRORS)


def sanitize_id(text: str) -> str:
    return _UNSAFE.sub("_", text)


def blob_dir(session_dir: Path, session_id: str) -> Path:
    """`<sessionDir>/<sessionId>-blobs`, absolute: the path is recorded in the index, and one relative
    to the working folder of the writing process means nothing to a reader started elsewhere. The id
    is sanitised too, as it comes from the session header."""
    return Path(os.path.abspath(session_dir)) / f"{sanitize_id(session_id)}-blobs"


def blob_path(blobs_dir: Path, occ_key: str) -> Path:
    """The sidecar of one occurrence. A name that sanitising changed (beyond the `@` before the result
    timestamp) or that is over-long keeps a readable prefix plus a hash of the unsanitised key, so two
    ids that differ only in unsafe characters (`a/b`, `a.b`) or only after the cut stay distinct files:
    one sidecar overwriting another would hand back the wrong output."""
    safe = sanitize_id(occ_key)
    name = safe + _SUFFIX
    bare = parse_occ_key(occ_key).tool_call_id
    if sanitize_id(bare) == bare and len(name) <= MAX_NAME_BYTES:  # ASCII: characters == bytes
        return blobs_dir / name
    digest = hashlib.sha1(utf8_bytes(occ_key)).hexdigest()[:_HASH_CHARS]
    tail = f".{digest}{_SUFFIX}"
    return blobs_dir / (safe[: MAX_NAME_BYTES - len(tail)] + tail)


def head_preview(text: str, max_bytes: int) -> str:
    """At most `max_bytes` UTF-8 bytes of the start of `text`, never splitting a character, and cut
    back to the last line break when the budget holds one (a preview of whole lines reads better)."""
    data = utf8_bytes(text)
    if len(data) <= max_bytes:
        return text
    end = max(max_bytes, 0)
    while end > 0 and data[end] & 0xC0 == 0x80:  # a continuation byte: step back to a boundary
        end -= 1
    head = data[:end].decode(_ENCODING, _ERRORS)
    newline = head.rfind("\n")
    return head[:newline] if newline > 0 else head


class SymlinkedBlobsError(OSError):
    """The blobs folder is a symbolic link: nothing is written through it."""

    def __init__(self, folder: Path) -> None:
        super().__init__(f"{folder} is a symbolic link; spill files are never written through one"
                         " (make it a folder to spill again)")


def _blobs_folder(folder: Path) -> None:
    """`folder` made 0700 if this call creates it (a created parent keeps the umask's mode); an existing
    folder keeps its mode, and a symbolic link raises SymlinkedBlobsError."""
    if folder.is_symlink():
        raise SymlinkedBlobsError(folder)
    try:
        folder.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        if folder.is_symlink():  # put there since the first look
            raise SymlinkedBlobsError(folder) from None
        return
    folder.chmod(0o700)  # the umask may have narrowed mkdir's mode further


def write_sidecar(path: Path, text: str) -> None:
    """Write `text` to `path` atomically, file 0600 in a 0700 folder when the folder is ours: outputs
    may hold secrets. Raises OSError on failure (SymlinkedBlobsError for a linked folder), leaving no
    temporary file behind."""
    folder = path.parent
    _blobs_folder(folder)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".spill-", suffix=".tmp")  # created 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(utf8_bytes(text))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_spilled(recorded: str, blobs_dir: Path | None) -> str | None:
    """A spilled output's text: at its recorded path, else under the same name in the session's blobs
    folder as it is now. The recorded path goes stale when the session folder moved or was written
    with a relative path from another working folder, but its sidecar still sits beside the session."""
    text = read_sidecar(Path(recorded))
    if text is None and blobs_dir is not None:
        text = read_sidecar(blobs_dir / Path(recorded).name)
    return text


def read_sidecar(path: Path) -> str | None:
    """The sidecar's text, or None when it cannot be read (moved session, deleted folder)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    try:
        return data.decode(_ENCODING, _ERRORS)
    except UnicodeDecodeError:  # not written by us: show what can be shown
        return data.decode(_ENCODING, "replace")
