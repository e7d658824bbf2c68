"""Builders shared by the chain-compression tests: Pi-shaped messages with small integer timestamps,
an in-memory session that records what the engine appends, a diagnostics recorder, the summariser's
settings, and the render pipeline composed the way the engine runs it (the summariser's host is the
engine tests' MemoryHost)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from condense.chains import ChainEntry, ChainRegistry, apply_chain_compressions
from condense.index import ToolCallIndexer
from condense.records import SUMMARY
from condense.render.stub import replace_stubs
from tests.support.reference import sweep_orphans

Message = dict[str, Any]

# ----- messages -------------------------------------------------------------------------------------


def user(ts: int, text: str = "do the thing") -> Message:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def synthetic(ts: int, block_id: str = "b1") -> Message:
    text = f'<compressed-chain id="{block_id}" tools="t1">summary</compressed-chain>'
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def call(call_id: str, name: str = "bash", args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {} if args is None else args}


def calls(ts: int, *blocks: str | dict[str, Any], thinking: bool = False) -> Message:
    """An assistant turn that calls tools; plain strings are bash calls with that id."""
    content: list[dict[str, Any]] = [{"type": "thinking", "thinking": "plan", "thinkingSignature": "sig"}] \
        if thinking else []
    content.append({"type": "text", "text": "working..."})
    content += [call(block) if isinstance(block, str) else block for block in blocks]
    return {"role": "assistant", "content": content, "timestamp": ts, "stopReason": "toolUse"}


def result(ts: int | None, call_id: str, text: str = "output", name: str = "bash") -> Message:
    message: Message = {"role": "toolResult", "toolCallId": call_id, "toolName": name,
                        "content": [{"type": "text", "text": text}], "isError": False}
    if ts is not None:
        message["timestamp"] = ts
    return message


def final(ts: int, text: str = "done", thinking: bool = False) -> Message:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if thinking:
        content.append({"type": "thinking", "thinking": "deep thoughts", "thinkingSignature": "sig123"})
    return {"role": "assistant", "content": content, "timestamp": ts, "stopReason": "stop"}


def summary_message(ts: int, refs: Iterable[tuple[str, int | None]], text: str = "summary text") -> Message:
    """A per-batch summary as it sits in the agent's messages (a `custom` message)."""
    tool_call_refs = []
    for number, (call_id, stamp) in enumerate(refs, start=1):
        ref: dict[str, Any] = {"shortId": f"t{number}", "toolCallId": call_id}
        if stamp is not None:
            ref["resultTimestamp"] = stamp
        tool_call_refs.append(ref)
    return {"role": "custom", "customType": SUMMARY, "content": text, "display": False,
            "details": {"toolCallRefs": tool_call_refs}, "timestamp": ts}


def text_of(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    first = content[0] if content else {}
    return first.get("text", "") if isinstance(first, dict) else ""


def synthetics_of(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.get("role") == "user" and text_of(m).startswith("<compressed-chain")]


def entry(block_id: str, start: int, dropped: Iterable[str], final_ts: int | None, refs: Iterable[str] = (),
          **optional: Any) -> ChainEntry:
    return ChainEntry(block_id, start, tuple(dropped), final_ts, tuple(refs), start + 9999, **optional)


def registry_of(*entries: ChainEntry) -> ChainRegistry:
    registry = ChainRegistry()
    for item in entries:
        registry.register(item)
    return registry


# ----- persistence and diagnostics --------------------------------------------------------------------


@dataclass
class Session:
    """Appended custom entries, in order, shaped like branch entries so they can be rebuilt from."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    fail_on: set[str] = field(default_factory=set)

    def append(self, custom_type: str, data: Any) -> None:
        if custom_type in self.fail_on:
            raise OSError(f"disk full while writing {custom_type}")
        self.entries.append({"type": "custom", "customType": custom_type, "data": data})

    def of(self, custom_type: str) -> list[Any]:
        return [e["data"] for e in self.entries if e["customType"] == custom_type]

    @property
    def types(self) -> list[str]:
        return [e["customType"] for e in self.entries]


@dataclass
class Reports:
    """Records diagnostics as the renderer and the compressor report them."""

    items: list[tuple[str, str, str]] = field(default_factory=list)

    def report(self, kind: str, dedup_key: str, detail: str) -> None:
        self.items.append((kind, dedup_key, detail))

    def kinds(self) -> list[str]:
        return [kind for kind, _, _ in self.items]

    def keys(self, kind: str) -> list[str]:
        return [key for k, key, _ in self.items if k == kind]

    def detail(self, kind: str, key: str) -> str:
        return next(d for k, dk, d in self.items if k == kind and dk == key)


# ----- the summariser's settings----------------------------------------------------------------------


@dataclass
class SummarizerConfig:
    summarizer_model: str = "default"
    summarizer_thinking: str = "default"
    summarizer_idle_timeout_ms: int = 0
    summarizer_max_timeout_ms: int = 0


class Signal:
    def __init__(self, aborted: bool = False) -> None:
        self.aborted = aborted


# ----- the render pipeline as the engine composes it -------------------------------------------------


def nothing_protected(_name: str, _args: dict[str, Any]) -> bool:
    return False


def render(messages: list[Message], index: ToolCallIndexer, registry: ChainRegistry, *,
           strip_final_thinking: bool = False, diagnostics: Reports | None = None,
           is_protected: Callable[[str, dict[str, Any]], bool] = nothing_protected) -> list[Message]:
    """Stubs, then chain compression, then the orphan sweep, which must find nothing to do: the sweep
    is a safety net, and chain compression must never rely on it."""
    stubbed = replace_stubs(messages, index, is_protected, set())
    compressed = apply_chain_compressions(stubbed, registry, index,
                                          strip_final_thinking=strip_final_thinking, diagnostics=diagnostics)
    swept, swept_ids = sweep_orphans(compressed)
    assert swept_ids == [] and swept is compressed
    return compressed
