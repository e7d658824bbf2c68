"""What the transcript says first: where the user is and what went wrong while starting.

Model, folder, session and how to get help, then the runtime's notices (the demo's sample copy, no
API key), the session file's skipped lines and the settings' bad keys. They stay in the transcript,
where a toast would have vanished before anyone read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from condense.plural import counted
from pi_tui import __version__

if TYPE_CHECKING:
    from pi_tui.runtime.build import Runtime

HELP = "Type a message, or / for commands (/hotkeys lists the keys) · Esc aborts · Ctrl+C twice quits"

Block = tuple[str, str]  # text (one line per fact), level: info | warning | error


def starting(folder: str) -> str:
    """The header of the first frame, before the runtime (model, session) is built."""
    return "\n".join([f"pi-tui {__version__} · folder {folder}", "starting…", HELP])


def where_you_are(runtime: Runtime, folder: str) -> str:
    session = runtime.host.session
    messages = sum(1 for entry in session.entries if entry.get("type") == "message")
    file = session.path.name if session.path is not None else "not saved yet"
    named = f" “{session.name}”" if session.name else ""
    history = counted(messages, "message") if messages else "new"
    model = "demo (offline, scripted)" if runtime.model.provider == "demo" else runtime.model.ref
    commands = " ".join(f"/{name}" for name in runtime.host.resources.commands())  # as Pi lists them at start
    return "\n".join([f"pi-tui {__version__} · model {model} · folder {folder}",
                      f"session {file}{named} · {history}", *([f"skills and prompts: {commands}"] if commands else []),
                      HELP])


def first_screen(runtime: Runtime, folder: str, errors: list[str], quiet: bool = False) -> list[Block]:
    """The blocks to show, in order; `quiet` (the `quiet_startup` setting) leaves out only the header."""
    blocks = [] if quiet else [(where_you_are(runtime, folder), "info")]
    if runtime.notices:
        blocks.append(("\n".join(runtime.notices), "warning"))
    warnings = runtime.host.session.warnings
    if warnings:
        blocks.append(("\n".join(str(warning) for warning in warnings), "warning"))
    if errors:
        blocks.append(("\n".join(errors), "error"))
    return blocks
