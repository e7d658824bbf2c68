"""What a tool call is about, on one line: the path of a read, the command of a bash, ...

The transcript's tool cards and the `/pruner tree` screen both title a call with it. It is about the
tools' arguments, not about any widget, and it imports nothing heavy: the first frame's cards use it.
"""

from __future__ import annotations

import json
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
