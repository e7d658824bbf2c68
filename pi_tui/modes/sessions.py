"""`pi-tui sessions`: the sessions of a folder, newest first, for a person or (`--json`) a script."""

from __future__ import annotations

import json
import time
from pathlib import Path

from pi_tui.paths import sessions_dir_for
from pi_tui.session.listing import describe, session_files


def list_sessions(folder: str, as_json: bool) -> str:
    """The listing as printed; an empty folder says where its sessions would be saved."""
    infos = [describe(p) for p in session_files(sessions_dir_for(folder))]
    if as_json:
        return json.dumps([{"file": str(i.path), "modified": i.modified, "entries": i.entries,
                            "firstMessage": i.first_message, "name": i.name} for i in infos], indent=2) + "\n"
    if not infos:
        return f"no sessions in this folder yet (they are saved under {sessions_dir_for(folder)})\n"
    lines = []
    for info in infos:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.modified))
        title = info.name or info.first_message or "(no message)"
        lines.append(f"{when}  {info.entries:5d} entries  {Path(info.path).name}\n    {title[:100]}\n")
    return "".join(lines)
