"""What a tool call is about, on one line: the path of a read, the command of a bash, ...

The transcript's tool cards and the `/pruner tree` screen both title a call with it. It is about the
tools' arguments, not about any widget, and it imports nothing heavy: the first frame's cards use it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

# The argument that says what a call is about, per tool; other tools show their first string argument.
KEY_ARGUMENTS = {
    "read": "path", "write": "path", "edit": "path", "ls": "path", "bash": "command", "grep": "pattern",
    "find": "pattern", "context_tree_query": "toolCallIds",
}


def key_argument(name: str, args: dict[str, Any]) -> str:
    """The key argument of a call to tool `name`, whitespace folded; all arguments as JSON when none is."""
    key = KEY_ARGUMENTS.get(name)
    value: Any = args.get(key) if key else next((v for v in args.values() if isinstance(v, str)), None)
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value)
    if value is None:
        value = json.dumps(args, ensure_ascii=False) if args else ""
    return " ".join(str(value).split())


def path_argument(name: str, args: dict[str, Any]) -> str | None:
    """The path a call to tool `name` works on, when its key argument is one."""
    value = args.get("path") if KEY_ARGUMENTS.get(name) == "path" else None
    return value if isinstance(value, str) and value.strip() else None


def distinct_tails(paths: Iterable[str], width: int) -> dict[str, str]:
    """Each path in at most `width` characters where it can be: whole when it fits, else its end (`…/`
    and the trailing parts), never fewer parts than tell it from the other `paths` (a list of long paths
    that share their head then shows what tells them apart, not the head they share)."""
    parts = {path: path.rstrip("/").split("/") for path in set(paths)}
    shown: dict[str, str] = {}
    for path, own in parts.items():
        count = next((n for n in range(1, len(own)) if not any(
            other is not own and other[-n:] == own[-n:] for other in parts.values())), len(own))
        while count < len(own) and len("…/" + "/".join(own[-count - 1:])) <= width:
            count += 1
        shown[path] = path if count == len(own) or len(path) <= width else "…/" + "/".join(own[-count:])
    return shown
