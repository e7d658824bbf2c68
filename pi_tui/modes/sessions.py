"""`pi-tui sessions`: the sessions of a folder (`--all`: of every folder), pi-tui's and Pi's, newest first,
for a person or (`--json`) a script. A first message is a person's text, maybe pasted: its control
characters are shown escaped (pi_tui.terminal)."""

from __future__ import annotations

import os
import time

from pi_tui.paths import sessions_dir_for, sessions_root
from pi_tui.session.listing import SessionInfo, describe, listed_sessions
from pi_tui.terminal import terminal_json, visible_controls


def list_sessions(folder: str, as_json: bool, everywhere: bool = False) -> str:
    """The listing as printed; an empty one says where sessions would be saved. Across folders a
    session is named by its full path (its name alone does not find it) and by the folder it ran in."""
    infos = [describe(p) for p in listed_sessions(folder, everywhere)]
    if as_json:
        return terminal_json([{"file": str(i.path), "modified": i.modified, "entries": i.entries,
                               "firstMessage": i.first_message, "name": i.name, "cwd": i.cwd,
                               "app": "pi" if i.by_pi else "pi-tui"} for i in infos], indent=2) + "\n"
    if not infos and everywhere:
        return f"no sessions yet (they are saved under {sessions_root()})\n"
    if not infos:
        return (f"no sessions in this folder yet (they are saved under {sessions_dir_for(folder)};"
                " `pi-tui sessions --all` lists every folder's)\n")
    return "".join(_entry(info, everywhere) for info in infos)


def _entry(info: SessionInfo, everywhere: bool) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.modified))
    file = str(info.path) if everywhere else info.path.name
    tag = "  pi" if info.by_pi else ""
    title = visible_controls((info.name or info.first_message or "(no message)")[:100])
    lines = [f"{when}  {info.entries:5d} entries  {visible_controls(file)}{tag}\n", f"    {title}\n"]
    if everywhere:
        gone = "" if info.cwd and os.path.isdir(info.cwd) else " (no longer there)"
        lines.append(f"    in {visible_controls(info.cwd or '?')}{gone}\n")
    return "".join(lines)
