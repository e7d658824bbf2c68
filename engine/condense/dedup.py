"""Content identity for dedup: two outputs are the same when the tool and the normalised text are.

Normalising is deliberately conservative (line endings, trailing blanks per line, outer blank space):
two outputs that differ in anything a reader could care about must never share a summary.
"""

from __future__ import annotations

import hashlib


def normalize(text: str) -> str:
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(line.rstrip(" \t") for line in lines).strip()


def content_hash(tool_name: str, text: str) -> str:
    # surrogatepass: output read from a session written by JavaScript may hold a lone surrogate
    return hashlib.sha1(f"{tool_name}\0{normalize(text)}".encode("utf-8", "surrogatepass")).hexdigest()
