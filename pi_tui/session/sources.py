"""Which reader a session file needs: Pi's own, or another agent's read as a Pi session.

The offline commands take whichever session a person has; a file is told by its first lines, and one
no other reader claims is opened as a Pi session file (whose own errors say what is wrong with it).
"""

from __future__ import annotations

import os

from pi_tui.session.claude_code import is_claude_code_transcript, open_claude_code
from pi_tui.session.codex import is_codex_rollout, open_codex
from pi_tui.session.store import Session

READERS = ((is_claude_code_transcript, open_claude_code), (is_codex_rollout, open_codex))


def open_session(path: str | os.PathLike[str]) -> Session:
    """A Pi session file, a Claude Code transcript or a Codex rollout, as a Pi session."""
    for claims, read in READERS:
        if claims(path):
            return read(path)
    return Session.open(path)
