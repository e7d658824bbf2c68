"""What the summariser model is asked to do, in our own words.

The summariser gets a single user message: the instructions, then the material inside a tag. There
is no system field because some providers (and some proxies) ignore or reject one on a bare call.
"""

from __future__ import annotations

from collections.abc import Sequence

BATCH_INSTRUCTIONS = """\
You are condensing the tool calls of an AI coding agent into notes. The agent will later read \
your notes instead of the raw tool output, so keep whatever it would otherwise have to run again.

For each tool call worth keeping, write 1-3 short markdown bullets that say:
- what the call did: the tool and its purpose, in one sentence;
- how it went: success or failure, and the data that matters;
- anything later work depends on.

Copy these character for character and never reword them: file paths, identifiers, function and \
type signatures, commands, error messages.
Leave out calls that succeeded without producing anything worth reusing. Be brief.

Labels: every call below starts with a label such as [[2:bash]]. Start the first bullet of each \
call you keep with that call's label, copied exactly, as the very first thing after the bullet \
marker: no bold, no backticks, no numbering around it. Never renumber, rename or invent a label; \
a call you leave out contributes no label.

Some long results show only their beginning and their end, joined by a marker such as \
...[1234 chars elided]... . You were not shown that middle part: never describe it as empty and \
never guess what it held.
When a result reports that an image was returned, you cannot see the image: do not describe it."""

RANGE_INSTRUCTIONS = """\
You are merging several step-by-step summaries of one finished sub-task of an AI coding agent \
into a single summary.
- Combine what overlaps; do not retell the steps one by one.
- Keep outcomes, decisions, file paths, identifiers and everything later work needs.
- Leave reference tokens such as `t12` or `b3` exactly as they are written.
- Prefer a short paragraph or a few grouped bullets over one bullet per step."""


def batch_prompt(serialized: str) -> str:
    return f"{BATCH_INSTRUCTIONS}\n\n<tool-call-batch>\n{serialized}\n</tool-call-batch>"


def range_prompt(summaries: Sequence[str]) -> str:
    joined = "\n\n".join(summaries)
    return f"{RANGE_INSTRUCTIONS}\n\n<sub-task-summaries>\n{joined}\n</sub-task-summaries>"
