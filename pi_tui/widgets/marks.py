"""What condense did to a call or a chain, as the short marks the transcript shows beside them.

The transcript shows the session as written (the originals); these marks say what the model sees
instead: the output itself (`raw`, or `pending` until the next flush), a stub pointing at a summary
(`summarized t12`), a spill file, a stale read, an identical earlier output, a block standing for a
compressed chain or a folded stretch (`in chain b2 · t12`, `folded into f1 · t3`), or the protected output kept
verbatim; a chain's user message says `⊟ compressed chain b2`.
"""

from __future__ import annotations

from condense import ChainMark
from condense import call_mark as inspect_mark
from condense.engine import CondenseEngine
from condense.inspect import MarkState
from pi_tui.conversation.model import Call

LABELS: dict[MarkState, str] = {
    "off": "", "raw": "raw", "pending": "pending", "protected": "protected (kept verbatim)",
    "summarized": "summarized", "chain": "in chain", "folded": "folded into", "spilled": "spilled",
    "superseded": "stale read", "deduped": "same as", "stubbed": "stubbed",
}


def call_mark(engine: CondenseEngine, call: Call) -> str:
    """What the model reads of the call's output, in a few words, with the block that stands for it and
    the ref that brings it back (`in chain b2 · t12`)."""
    if call.result is None:
        return ""
    mark = inspect_mark(engine, call.id, call.result.get("timestamp"), call.name, call.args)
    names = " · ".join(name for name in (mark.block, mark.ref) if name)
    return f"{LABELS[mark.state]} {names}".strip() if mark.state != "off" else ""


def chain_mark(chain: ChainMark | None) -> str:
    if chain is None:
        return ""
    tools = f" · tools {', '.join(chain.refs)}" if chain.refs else ""
    return f"⊟ compressed chain {chain.block}{tools}"
