"""What condense did to a call or a chain, as the short marks the transcript shows beside them.

The transcript shows the session as written (the originals); these marks say what the model sees
instead: a stub pointing at a summary (`summarized t12`), a spill file, a dedup alias, or a whole
chain compressed into one block (`⊟ compressed chain b2`).
"""

from __future__ import annotations

from condense import ChainMark
from condense import call_mark as inspect_mark
from condense.engine import CondenseEngine
from pi_tui.conversation.model import Call


def call_mark(engine: CondenseEngine, call: Call) -> str:
    if call.result is None:
        return ""
    mark = inspect_mark(engine, call.id, call.result.get("timestamp"))
    if mark.state == "raw":
        return ""
    if mark.state == "protected":
        return "protected (kept verbatim)"
    kind = "spilled" if mark.spilled else "deduped →" if mark.deduped else "summarized"
    return f"{kind} {mark.ref}".strip()


def chain_mark(chain: ChainMark | None) -> str:
    if chain is None:
        return ""
    tools = f" · tools {', '.join(chain.refs)}" if chain.refs else ""
    return f"⊟ compressed chain {chain.block}{tools}"
