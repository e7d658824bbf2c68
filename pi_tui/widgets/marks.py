"""What condense did to a call or a chain, as the short marks the transcript shows beside them.

The transcript shows the session as written (the originals); these marks say what the model sees
instead: a stub pointing at a summary (`summarized t12`), a spill file, a dedup alias, or a whole
chain compressed into one block (`⊟ compressed chain b2`).
"""

from __future__ import annotations

from typing import Any

from condense.engine import CondenseEngine
from condense.records import CHAIN
from condense.render.stub import lookup_key
from pi_tui.widgets.conversation import Call


def call_mark(engine: CondenseEngine, call: Call) -> str:
    if call.result is None:
        return ""
    index = engine.index
    key = lookup_key(call.result, index)
    if key is None:
        return ""
    record = index.get_record(key)
    ref = index.get_short_ref(key) or ""
    if record is not None and engine.is_protected(record.tool_name, record.args):
        return "protected (kept verbatim)"
    if record is not None and record.spill_path:
        return f"spilled {ref}".strip()
    if key not in index:
        return f"deduped → {ref}".strip()
    return f"summarized {ref}".strip()


def chain_entries(branch: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """`context-prune-chain` data by the timestamp of the user message that starts the chain (last wins)."""
    chains: dict[int, dict[str, Any]] = {}
    for entry in branch:
        data = entry.get("data")
        if entry.get("type") == "custom" and entry.get("customType") == CHAIN and isinstance(data, dict):
            start = data.get("startUserTimestamp")
            if isinstance(start, int):
                chains[start] = data
    return chains


def chain_mark(data: dict[str, Any] | None) -> str:
    if not data:
        return ""
    refs = [str(ref) for ref in data.get("toolRefs") or []]
    tools = f" · tools {', '.join(refs)}" if refs else ""
    return f"⊟ compressed chain {data.get('blockId', '?')}{tools}"
