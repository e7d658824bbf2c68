"""Whether a line that starts with `/` names a command nobody has.

Pi sends such a line to the model as text, so a mistyped command (or one pi-tui lacks) becomes a paid
request. A line counts as a command when its first word after `/` could be a command's name (letters,
digits, `_`, `-`, `.`, `:`) and ends there (a space, a line break, or the end): `/compat now` does,
`/usr/bin/env is missing` (a path) does not. The TUI asks before sending one nobody knows; print mode
refuses it.
"""

from __future__ import annotations

import re
from collections.abc import Container

_COMMAND = re.compile(r"/([A-Za-z0-9][\w.:-]*)(?:\s|$)")


def command_word(text: str) -> str | None:
    """The name `text` calls, or None when it does not start like a command."""
    match = _COMMAND.match(text.strip())
    return match[1] if match else None


def unknown_command(text: str, known: Container[str]) -> str | None:
    """The name `text` calls when it is none of `known`, else None."""
    word = command_word(text)
    return word if word is not None and word not in known else None
