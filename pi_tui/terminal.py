"""Text from a tool or a model, made safe to write to a person's terminal.

A session holds whatever a command printed and whatever a model wrote, and a terminal obeys the
control sequences in it: `ESC]52;c;...` rewrites the clipboard, `ESC]0;...` the window title, others
move the cursor over what was shown or answer back as typed input. `show`, `query` and `-p` print such
text through `visible_controls`, which writes every control character as its Python escape (`\\x1b`),
so the sequence is shown instead of obeyed; `--raw` keeps the bytes for a pipe. Error lines (the CLI's,
the TUI's crash line) go through `safe_message`, which scrubs keys too, and JSON through `terminal_json`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pi_tui.redaction import scrub

# C0 controls except tab and line feed, a carriage return not ending a CRLF line, DEL, and C1 (0x80-0x9f:
# 0x9b and 0x9d start a sequence on their own in terminals that take 8-bit controls)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def _escape(found: re.Match[str]) -> str:
    return repr(found.group())[1:-1]


def visible_controls(text: str) -> str:
    """`text` with each control character written as `\\xNN` (`\\r` for a lone carriage return);
    line breaks, tabs and everything printable stay as they are."""
    return _CONTROL.sub(_escape, text)


def without_controls(text: str) -> str:
    """`text` without the control characters `visible_controls` would escape (typed or pasted text, which
    has no business moving a cursor)."""
    return _CONTROL.sub("", text)


# what JSON leaves unescaped inside a string that a terminal may still obey: DEL and the C1 controls
_JSON_RAW_CONTROL = re.compile(r"[\x7f-\x9f]")


def terminal_json(value: Any, indent: int) -> str:
    """`value` as JSON for a terminal: other characters stay readable (é, 🙂), but U+009B is a CSI to a
    terminal that takes 8-bit controls, so DEL and C1 are written as `\\u009b`, as JSON may write any."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return _JSON_RAW_CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def safe_message(text: str) -> str:
    """A line about a failure, as a terminal may show it: an exception's text can quote a key or a tool's
    output, so keys are scrubbed (pi_tui.redaction) and control characters escaped."""
    return visible_controls(scrub(text))
