"""`/export [file]`: the session's current branch as one self-contained HTML page, as Pi's `/export`.

The default file is Pi's name with pi-tui's: `pi-tui-session-<session file name>.html` in the folder
pi-tui started in, so it never replaces an export Pi made. A file given is taken relative to that folder.
An earlier export is replaced; any other file that is there already is left alone.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_tui.commands.context import CommandContext, model_ref
from pi_tui.commands.registry import Command
from pi_tui.conversation.html import GENERATOR, session_page
from pi_tui.conversation.model import user_text
from pi_tui.session import atomic
from pi_tui.session.context import in_time_order
from pi_tui.session.store import Session, write_failure


def default_file(session: Session, folder: Path) -> Path:
    stem = session.path.stem if session.path is not None else session.session_id
    return folder / f"pi-tui-session-{stem}.html"


def is_export(path: Path) -> bool:
    """A page an earlier `/export` wrote (it names its generator in its first lines)."""
    try:
        with path.open("rb") as page:
            return GENERATOR.encode() in page.read(1024)
    except OSError:
        return False


def page_for(context: CommandContext) -> str:
    session = context.runtime.host.session
    messages = in_time_order(session.branch_entries())
    first = next((user_text(m) for m in messages if m.get("role") == "user"), "")
    title = session.name or " ".join(first.split())[:80] or "pi-tui session"
    facts = [("session", session.name or "(unnamed)"),
             ("file", str(session.path) if session.path is not None else "(in memory)"),
             ("id", session.session_id), ("folder", session.cwd), ("model", model_ref(context.runtime)),
             ("messages", str(len(messages)))]
    return session_page(title, facts, messages)


def write_page(path: Path, page: str) -> None:
    """Through a temp file, so a failure leaves whatever was there as it was."""
    like = path.stat() if path.exists() else None
    atomic.replace(atomic.write_temp(path.parent, path.name, [page.encode("utf-8")], like), path)


async def export(context: CommandContext, args: str) -> None:
    session = context.runtime.host.session
    if not any(e.get("type") == "message" for e in session.branch_entries()):
        await context.note("/export: nothing to export yet: start a conversation first", "warning")
        return
    given = Path(os.path.expanduser(args)) if args else None
    path = default_file(session, context.launch_dir) if given is None else context.launch_dir / given
    if path.exists() and not is_export(path):
        await context.note(f"/export: {path} is there already and is no pi-tui export; nothing written "
                           "(give another file name)", "error")
        return
    try:
        write_page(path, page_for(context))
    except OSError as exc:
        await context.note(f"/export: cannot write {path}: {write_failure(exc)}; nothing written", "error")
        return
    await context.note(f"exported the session to {path} (one HTML file: open it in any browser, offline)")


COMMANDS = (Command("export", "the session as one HTML page: /export [file]", export),)
