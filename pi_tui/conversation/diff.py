"""An `edit` result's diff as a reader sees it: the transcript's card and the exported page both show
the changed lines, marked the same way, and neither the file names the model already gave."""

from __future__ import annotations

from typing import Literal

DiffKind = Literal["added", "removed", "hunk", "context"]


def diff_lines(diff: str) -> list[str]:
    """The body of a unified diff, without its `---`/`+++` file header."""
    return [line for line in diff.split("\n") if not line.startswith(("--- ", "+++ "))]


def diff_kind(line: str) -> DiffKind:
    """What one line of a diff is (Pi's numbered lines `+12 x` / `-12 x` read the same as unified ones)."""
    if line.startswith("+"):
        return "added"
    if line.startswith("-"):
        return "removed"
    return "hunk" if line.startswith("@@") else "context"
