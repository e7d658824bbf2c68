"""`{bN}` in a compressed chain's body: the text of another compressed chain, inlined.

A summary written later may refer to an earlier block by id. Substitution is one level deep on
purpose: the inlined text is not scanned again, so two blocks quoting each other (or a block quoting
itself, which is refused outright) can never expand without end. An id the lookup does not know stays
as written, so nothing silently disappears from the body.
"""

from __future__ import annotations

import re
from collections.abc import Callable

BlockLookup = Callable[[str], "str | None"]

_PLACEHOLDER = re.compile(r"\{(b[0-9]+)\}")


def substitute_block_refs(text: str, lookup: BlockLookup, self_block_id: str | None = None) -> str:
    def replace(match: re.Match[str]) -> str:
        block_id = match.group(1)
        if block_id == self_block_id:
            return match.group(0)
        body = lookup(block_id)
        return match.group(0) if body is None else body

    return _PLACEHOLDER.sub(replace, text)
