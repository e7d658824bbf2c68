"""The render pipeline, in the order the design fixes: stubs, then the structural orphan sweep."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from condense.grace import in_grace_recovery_keys
from condense.render.orphans import sweep_orphans
from condense.render.stub import StubIndex, replace_stubs

IsProtected = Callable[[str, dict[str, Any]], bool]
OrphanReporter = Callable[[list[str]], None]


def prune_messages(messages: list[Any], index: StubIndex, is_protected: IsProtected, grace_turns: int,
                   report_orphans: OrphanReporter) -> list[Any]:
    """What the model sees; the very same list when nothing changes."""
    grace = in_grace_recovery_keys(messages, grace_turns) if grace_turns > 0 else set()
    out = replace_stubs(messages, index, is_protected, grace)
    out, swept = sweep_orphans(out)
    if swept:
        report_orphans(swept)
    return out
