"""`pi-tui sessions`: the sessions of a folder, newest first, for a person or (`--json`) a script. A first
message is a person's text, maybe pasted: its control characters are shown escaped (pi_tui.terminal)."""

from __future__ import annotations

import time
from pathlib import Path

from pi_tui.paths import sessions_dir_for
from pi_tui.session.listing import describe, session_files
from pi_tui.terminal import terminal_json, visible_controls


def list_sessions(folder: str, as_json: bool) -> str:
    """The listing as printed; an empty folder says where its sessions would be saved."""
    infos = [describe(p) for p in session_files(sessions_dir_for(folder))]
    if as_json:
        return terminal_json([{"file": str(i.path), "modified": i.modified, "entries": i.entries,
                               "firstMessage": i.first_message, "name": i.name} for i in infos], indent=2) + "\n"
    if not infos:
        return f"no sessions in this folder yet (they are saved under {sessions_dir_for(folder)})\n"
    lines = []
    for info in infos:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.modified))
        title = visible_controls((info.name or info.first_message or "(no message)")[:100])
        lines.append(f"{when}  {info.entries:5d} entries  {Path(info.path).name}\n    {title}\n")
    return "".join(lines)
