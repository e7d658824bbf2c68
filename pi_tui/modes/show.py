"""`pi-tui show`: a session's current branch as readable text, the last 12 messages unless `--full`."""

from __future__ import annotations

from pi_tui.conversation.text import format_conversation
from pi_tui.session.store import Session

RECENT_MESSAGES = 12


def show_session(session: Session, full: bool) -> str:
    return format_conversation(session.messages(), None if full else RECENT_MESSAGES)
