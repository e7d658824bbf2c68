"""Pi's branch summary: when `/tree` leaves a branch, what that branch did, in the session's own model's
words, kept as a `branch_summary` entry. The conversation that goes on elsewhere still knows what was
tried (and what it taught) without carrying the abandoned turns themselves.
"""

from __future__ import annotations

from typing import Any

from condense.host import CancelSignal
from condense.messages import AgentMessage
from pi_tui.ai.completion import stream_completion
from pi_tui.ai.types import ModelClient, ModelSpec
from pi_tui.conversation.text import format_conversation
from pi_tui.errors import UserError
from pi_tui.session.context import compaction_message, entry_message
from pi_tui.session.store import Session

# The demo model recognises a summary request by this opening (it has no tools to call for one).
OPENING = "Summarise the conversation branch below"
INSTRUCTIONS = f"""{OPENING}: the user left it to continue from an earlier point, and the summary is
all that will remain of it in the context. Write it in Markdown, short, in these sections:

## Goal
What the user wanted on this branch.

## Done
- What was changed or learned, with exact file paths, names and error messages.

## Open
- What was started and not finished, or blocked (or "nothing").

## Worth keeping
- Decisions and findings the continuing conversation should know.

Reply with the summary only."""


def abandoned_entries(session: Session, target_id: str | None) -> list[dict[str, Any]]:
    """The entries from the current leaf back to the point the target's path shares (oldest first);
    a compaction ends them early, as its summary already stands for everything before it."""
    if session.leaf_id is None:
        return []
    shared = {entry["id"] for entry in session.branch_entries(target_id)} if target_id else set()
    out: list[dict[str, Any]] = []
    for entry in reversed(session.branch_entries()):
        if entry["id"] in shared:
            break
        out.append(entry)
        if entry.get("type") == "compaction":
            break
    return out[::-1]


def _message(entry: dict[str, Any]) -> AgentMessage | None:
    if entry.get("type") == "compaction":
        return compaction_message(entry)
    message = entry_message(entry)
    # tool outputs are long and the calls already say what was done, as in Pi
    return None if message is None or message.get("role") == "toolResult" else message


def summary_prompt(entries: list[dict[str, Any]], focus: str = "") -> str | None:
    """The request for a summary of `entries` (with what the user wants it to dwell on, if anything), or
    None when they hold no conversation at all."""
    messages = [message for entry in entries if (message := _message(entry)) is not None]
    if not messages:
        return None
    extra = f"\n\nFocus especially on: {focus.strip()}" if focus.strip() else ""
    return f"{INSTRUCTIONS}{extra}\n\n<conversation>\n{format_conversation(messages)}</conversation>"


async def summarize_branch(client: ModelClient, model: ModelSpec, prompt: str, signal: CancelSignal) -> str:
    """The model's summary; UserError (one line) when it fails or is aborted, so nothing moves."""
    async for event in stream_completion(client, model, prompt, None, signal):
        if event.type == "done" and event.text.strip():
            return event.text.strip()
        if event.type in ("done", "error"):
            reason = "aborted" if event.stop_reason == "aborted" else (event.text or "no summary came back")
            raise UserError(f"branch summary failed ({' '.join(reason.split())[:160]}); still on the same "
                            "branch: try again, or choose no summary")
    raise UserError("branch summary failed (the stream ended early); still on the same branch")
