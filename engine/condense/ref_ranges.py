"""A list of `tN` refs written as ranges (`t1-t8,t12`): how the compact format stores a chain's refs.

A compressed chain names every output it dropped by ref, and the refs of a chain mostly run one after
another (they are minted in call order): written out one by one they were a tenth of a pruned session's
chain records. A list holding anything but `tN` refs is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_REF = re.compile(r"t([0-9]+)")
_RANGE = re.compile(r"t([0-9]+)-t([0-9]+)")
_LONGEST = 1_000_000  # a damaged file's range wider than any session's refs is read as it is, not expanded


def packed(refs: Sequence[str]) -> str | list[str]:
    """`refs` as one string of ranges where every one is a `tN` ref, else as the list it is."""
    numbers = [int(ref[1:]) for ref in refs if _REF.fullmatch(ref) and ref[1:] == str(int(ref[1:]))]
    if not refs or len(numbers) != len(refs):
        return list(refs)
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ",".join(f"t{first}" if first == last else f"t{first}-t{last}" for first, last in runs)


def unpacked(value: Any) -> tuple[str, ...]:
    """The refs a packed string names, in order; a list's strings as they are (pi-condense's form)."""
    if isinstance(value, list):
        return tuple(item for item in value if isinstance(item, str))
    if not isinstance(value, str) or not value:
        return ()
    refs: list[str] = []
    for part in value.split(","):
        span = _RANGE.fullmatch(part)
        if span is not None and 0 <= int(span[2]) - int(span[1]) <= _LONGEST:
            refs.extend(f"t{number}" for number in range(int(span[1]), int(span[2]) + 1))
        else:
            refs.append(part)
    return tuple(refs)
