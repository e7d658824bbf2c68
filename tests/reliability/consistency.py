"""What "nothing lost, nothing broken" means for a session file, checked from the file alone.

Used after every kill point, every fault and every corrupted input: the session loads (skipping at
most the lines it is told may be torn), the next request is one a strict provider accepts (no tool
result without its call, no call without its result), every tool output on the branch is either in
the context verbatim or returned byte for byte by `context_tree_query`, every ref a stub or summary
shows resolves to a record, and no output was summarised twice or given two refs.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from condense.blobs import read_sidecar
from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.index import named_records
from condense.messages import AgentMessage, UserMessage, content_text, tool_calls
from condense.occurrence import message_key, occ_key, result_entries, result_timestamp_of
from condense.record_bursts import expanded
from condense.records import INDEX, SUMMARY
from condense.ref_ranges import unpacked
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.openai_format import to_openai_messages
from pi_tui.ai.transform import transform_messages
from pi_tui.modes.offline import offline_engine, session_model
from pi_tui.session.store import Session
from tests.support.fake_openai import validate_request
from tests.support.reference import sweep_orphans
from tests.support.typed import plain

EXTRACTIVE = CondenseConfig(summarizer_model="extractive")
_TICK_REF = re.compile(r"`(t\d+)`")
_QUERY_REF = re.compile(r"context_tree_query\((t\d+)\)")
_CHAIN_TOOLS = re.compile(r'<compressed-chain id="[^"]+" tools="([^"]*)">')
_SPILL_PATH = re.compile(r"\nFull output: (.+?)\. Use context_tree_query\(")
TRUNCATED = "\n[Output truncated:"


@dataclass
class Verdict:
    """What one check saw: the counts that go into docs/RELIABILITY.md."""

    outputs: int = 0  # tool outputs on the branch, each verbatim or recoverable
    recovered: int = 0  # of those, the ones only context_tree_query still holds
    summaries: int = 0
    refs: int = 0  # refs shown in the context, each resolved
    warnings: int = 0


def open_calls_ok(messages: Sequence[Mapping[str, Any]]) -> bool:
    """Every result answers a call of the assistant message right before it, with no barrier between."""
    open_ids: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role == "assistant":
            open_ids = {str(c.get("id")) for c in tool_calls(message)}
        elif role == "toolResult":
            if str(message.get("toolCallId")) not in open_ids:
                return False
            open_ids.discard(str(message.get("toolCallId")))
        else:
            open_ids = set()
    return True


def visible_text(messages: Sequence[Mapping[str, Any]]) -> str:
    parts: list[str] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(b.get("text", "")) for b in content if isinstance(b, dict)]
    return "\n".join(parts)


def load(path: Path, torn_lines: frozenset[int] | set[int] = frozenset()) -> Session:
    """The session; a skipped line is only acceptable where a kill may have torn one."""
    session = Session.open(path)
    bad = [w for w in session.warnings if w.line not in torn_lines]
    assert not bad, f"unexpected load warnings: {[str(w) for w in bad]}"
    for warning in session.warnings:
        assert warning.file == str(path) and warning.line > 0
    return session


def torn_tail_line(path: Path) -> int | None:
    """The number of the file's last line when it does not end in a newline (what a torn write leaves)."""
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return None
    return data.count(b"\n") + 1


NEXT_PROMPT: UserMessage = {"role": "user", "content": [{"type": "text", "text": "go on"}],
                            "timestamp": 4_000_000_000_000}


def request_is_valid(session: Session, engine: CondenseEngine, messages: list[AgentMessage]) -> None:
    """The strict fake provider would accept the next request: the user's next prompt after this history
    (a session killed between a tool call and its result is answered by a synthetic result then)."""
    model = session_model(session)
    llm = transform_messages(convert_to_llm(engine.render([*messages, NEXT_PROMPT])), model)
    wire = to_openai_messages("system", llm, model)
    validate_request({"model": "m", "messages": wire or [{"role": "user", "content": "x"}]})


def _record_body(engine: CondenseEngine, key: str) -> str | None:
    record = engine.index.get_record(key)
    if record is None:
        return None
    if record.spill_path:
        return read_sidecar(Path(record.spill_path))
    return record.result_text


def recoverable(engine: CondenseEngine, key: str, original: str) -> bool:
    """context_tree_query gives the original back: whole, or (past its display limit) a head of it
    while the record it reads from holds the whole original."""
    text, details = engine.query([key])
    if not details["results"] or _record_body(engine, key) != original:
        return False
    if TRUNCATED in text:
        head = text.split("\n\n", 1)[1].rsplit(TRUNCATED, 1)[0]
        return original.startswith(head)
    return text.endswith("\n\n" + original)


def outputs_on_branch(session: Session) -> dict[str, str]:
    return {message_key(m): content_text(m.get("content") or []) for m in plain(session.messages())
            if m.get("role") == "toolResult"}


def check_refs(engine: CondenseEngine, rendered: Sequence[Mapping[str, Any]]) -> int:
    """Every ref the context shows resolves to a record, and every spill stub's file exists."""
    plain = visible_text(rendered)
    refs = set(_TICK_REF.findall(plain)) | set(_QUERY_REF.findall(plain))
    for tools in _CHAIN_TOOLS.findall(plain):
        refs.update(r for r in tools.split(",") if r)
    for ref in refs:
        assert engine.index.get_record(ref) is not None, f"{ref} is shown in the context but has no record"
    for path in _SPILL_PATH.findall(plain):
        assert Path(path).is_file(), f"a spill stub points at a missing sidecar {path}"
    return len(refs)


def check_ledger(session: Session) -> int:
    """No output summarised twice, indexed twice, or given two refs; no ref given to two outputs."""
    summarised: Counter[str] = Counter()
    indexed: Counter[str] = Counter()
    ref_of: dict[str, str] = {}
    summaries = 0
    results = result_entries(session.branch_entries())  # a compact record names its output by entry id
    for entry in expanded(session.branch_entries()):
        if entry.get("type") == "custom_message" and entry.get("customType") == SUMMARY:
            summaries += 1
            for ref in (entry.get("details") or {}).get("toolCallRefs") or []:
                summarised[_key(ref)] += 1
                _claim(ref_of, ref["shortId"], _key(ref))
        elif entry.get("type") == "custom" and entry.get("customType") == INDEX:
            data = entry.get("data") or {}
            records = named_records(data, results)
            for record in records:
                indexed[_key(record)] += 1
            for position, ref in enumerate(unpacked(data["refs"]) if isinstance(data.get("refs"), str)
                                           else data.get("refs") or []):
                # a compact entry names each ref alone, for the record at its position
                short, named = (ref, records[position]) if isinstance(ref, str) else (ref["shortId"], ref)
                _claim(ref_of, short, _key(named))
    twice = [k for k, n in summarised.items() if n > 1]
    assert not twice, f"outputs summarised twice: {twice[:5]}"
    again = [k for k, n in indexed.items() if n > 1]
    assert not again, f"outputs indexed twice: {again[:5]}"
    return summaries


def _key(record: dict[str, Any]) -> str:
    return occ_key(record["toolCallId"], result_timestamp_of(record.get("resultTimestamp")))


def _claim(ref_of: dict[str, str], short: str, key: str) -> None:
    owner = ref_of.setdefault(short, key)
    assert owner == key, f"ref {short} names two outputs: {owner} and {key}"


def check_session(path: Path, config: CondenseConfig = EXTRACTIVE,
                  torn_lines: frozenset[int] | set[int] = frozenset()) -> Verdict:
    """All the guarantees at once, on the file as it is now."""
    session = load(path, torn_lines)
    engine, _ = offline_engine(session, config)
    messages = session.messages()
    rendered = engine.render(messages)
    assert open_calls_ok(rendered), "a tool result without its call in the rendered context"
    assert sweep_orphans(rendered)[1] == [] and engine.diagnostics.counts()["orphan-sweep"] == 0
    assert json.dumps(engine.render(messages)) == json.dumps(rendered), "two renders differ"
    request_is_valid(session, engine, messages)
    verdict = Verdict(warnings=len(session.warnings), summaries=check_ledger(session))
    visible = visible_text(rendered)
    for key, original in outputs_on_branch(session).items():
        verdict.outputs += 1
        if original in visible:
            continue
        assert recoverable(engine, key, original), f"output {key} is neither in context nor recoverable"
        verdict.recovered += 1
    verdict.refs = check_refs(engine, rendered)
    return verdict
