"""Pi's compaction: the older part of a branch becomes one summary the session's model writes, the newest
part (about 20k tokens by Pi's estimate) stays as it is.

What it writes is Pi's `compaction` entry (`summary`, `firstKeptEntryId`, `tokensBefore`, `details` with
the files read and modified), so a Pi user opens the file in Pi as if Pi had compacted it. Where the cut
falls is Pi's rule, shared with `pi-tui whatif`'s model of it (`condense.simulate.baselines`); the
summary's sections, its update of an earlier summary, the separate summary of a turn the cut splits and
the file lists follow Pi's compaction too. The prompts are our own words.

The summariser reads the conversation as the model reads it (`Plan.seen_through` condense's pruned
render: summaries and refs where condense pruned outputs), each tool output cut to Pi's 2,000 characters,
and its request always fits the model's window with room for the summary: what still does not is cut in
the middle, with a marker (Pi sends a history bigger than the window whole, to be refused).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, replace
from typing import Any

from condense.host import CancelSignal
from condense.local_host import context_estimate
from condense.measure import CHARS_PER_TOKEN, SYSTEM_TOKENS, estimate_from_chars, estimate_tokens
from condense.messages import AgentMessage, content_text, is_tool_result, plain_messages, tool_calls
from condense.simulate.baselines import (
    COMPACTION_KEEP_RECENT_TOKENS,
    COMPACTION_RESERVE_TOKENS,
    keep_recent_cut,
    pi_estimate,
)
from condense.stats import format_tokens
from pi_tui.ai.completion import stream_completion
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.types import ModelClient, ModelSpec
from pi_tui.conversation.text import format_conversation
from pi_tui.errors import UserError
from pi_tui.session.context import in_time_order

SYSTEM_PROMPT = (
    "You write context checkpoints. You read a conversation between a user and an AI coding assistant and "
    "summarise it so that another model can carry on the work from your summary alone. Never continue the "
    "conversation and never answer what it asks: reply with the summary only, in the format you are given.")

SECTIONS = """## Goal
What the user wants (several goals if the session moved between tasks).

## Constraints and preferences
- Requirements and preferences the user stated, or "(none)".

## Progress
### Done
- [x] Finished work.

### In progress
- [ ] Work under way.

### Blocked
- What stands in the way, if anything.

## Key decisions
- **Decision**: why it was taken.

## Next steps
1. What should happen next, in order.

## Critical context
- Data, examples and references the work depends on, or "(none)".

Keep every section short. Keep file paths, function names and error messages exactly as they appear."""

FIRST_SUMMARY = ("Summarise the conversation above as a checkpoint another model will continue the work "
                 f"from, in these sections:\n\n{SECTIONS}")
UPDATED_SUMMARY = (
    "The conversation above continues from the checkpoint in <previous-summary>. Rewrite that checkpoint so "
    "it covers both: keep everything in it that still holds, add the new progress, decisions and context, "
    "move finished work from In progress to Done and bring Next steps up to date (leave out only what no "
    f"longer matters), in the same sections:\n\n{SECTIONS}")
TURN_START = """The conversation above is the beginning of a turn too long to keep whole; the rest of the turn
is kept as it is. Summarise the beginning so that the kept rest makes sense:

## Original request
What the user asked for in this turn.

## Early progress
- Decisions taken and work done so far.

## Context for the kept part
- What one needs to know to follow the work that is kept.

Be brief."""
SPLIT_TURN = "\n\n---\n\n**The turn in progress, before its kept part:**\n\n"

TOOL_RESULT_CHARS = 2_000  # Pi's cut of a tool output in the text the summariser reads
HISTORY_SHARE, TURN_SHARE = 0.8, 0.5  # of the reserve: the summaries' output limits, as Pi sets them
FILE_TOOLS = {"read": "read", "write": "modified", "edit": "modified"}
SUMMARY_CHARS = 4_000  # what a summary is expected to add: Pi's in the corpus sessions run 3.6k-4.7k characters
CUT_HEAD_SHARE = 0.25  # of a conversation too long for the window: its start kept (the task), the rest from its end

View = Callable[[list[AgentMessage]], list[AgentMessage]]  # messages as the model reads them (condense's render)


class NothingToCompact(UserError):
    """Compacting would change nothing: the branch ends in a compaction, or is all within what is kept."""


@dataclass(frozen=True)
class Plan:
    """What a compaction of a branch summarises and keeps."""

    first_kept_id: str
    history: list[AgentMessage]  # summarised, and replaced by the summary
    turn_start: list[AgentMessage]  # the start of the turn the cut splits: summarised on its own
    tokens_before: int
    previous_summary: str | None
    read_files: list[str]  # read and never modified, the earlier compaction's included
    modified_files: list[str]
    kept: list[AgentMessage]  # what the request carries after the summary

    @property
    def details(self) -> dict[str, list[str]]:
        return {"readFiles": self.read_files, "modifiedFiles": self.modified_files}

    def seen_through(self, view: View) -> Plan:
        """The plan with its parts as the model reads them: where condense pruned an output, the summary
        and ref it reads instead, so the summariser's request is the size of the pruned conversation."""
        return replace(self, history=view(self.history), turn_start=view(self.turn_start), kept=view(self.kept))


@dataclass(frozen=True)
class Outlook:
    """The next request's size now and, estimated before the summary is paid for, after compacting (in
    condense's tokens, the footer's): compaction keeps the newest ~20k tokens of the raw conversation,
    which condense may already have pruned to less than that, so the summary can make the request bigger."""

    before: int
    kept: int  # what compaction keeps, as the model reads it
    summary: int  # what its summary is expected to add
    reads: int = 0  # what the summary's own requests send the model (paid once, before any of this)

    @property
    def after(self) -> int:
        return self.kept + self.summary

    @property
    def grows(self) -> bool:
        return self.after >= self.before

    def describe(self) -> str:
        paid = f"; writing the summary sends the model about {format_tokens(self.reads)} tokens" if self.reads else ""
        return (f"it keeps {format_tokens(self.kept)} tokens as they are and its summary adds about "
                f"{format_tokens(self.summary)}, against {format_tokens(self.before)} now{paid}")


def outlook(plan: Plan, before: int, model: ModelSpec | None = None) -> Outlook:
    """`plan` (seen through condense) against a next request of `before` tokens. The summary is expected
    at Pi's usual size, or the earlier summary's it rewrites. With `model`, and only where compacting
    would not help (when that is said, and a user asked whether to pay for it), what the summary's
    requests would send it, fitted to its window as `write_summary` fits them: laid out here, they are
    not laid out twice on the way to a compaction that goes ahead."""
    expected = max(len(plan.previous_summary or ""), SUMMARY_CHARS)
    found = Outlook(before, estimate_tokens(plan.kept), round(expected / CHARS_PER_TOKEN))
    return replace(found, reads=_summary_reads(plan, model)) if model is not None and found.grows else found


def _summary_reads(plan: Plan, model: ModelSpec) -> int:
    """Tokens the summary's requests send: the history's prompt and, for a split turn, its start's."""
    prompts = [prompt for prompt, _ in _summary_asks(plan, model, "")]
    return sum(round(len(SYSTEM_PROMPT + prompt) / CHARS_PER_TOKEN) for prompt in prompts)


def _summary_asks(plan: Plan, model: ModelSpec, instructions: str,
                  reserve: int = COMPACTION_RESERVE_TOKENS) -> list[tuple[str, int]]:
    """The summary's requests, each a prompt fitted to the window and its output limit: the history's
    (unless the cut splits the first turn) and, for a split turn, its start's."""
    history_limit = min(int(HISTORY_SHARE * reserve), model.max_tokens)
    turn_limit = min(int(TURN_SHARE * reserve), model.max_tokens)
    asks = []
    if plan.history or not plan.turn_start:
        asks.append((summary_prompt(plan, instructions, prompt_room(model, history_limit)), history_limit))
    if plan.turn_start:
        asks.append((turn_start_prompt(plan, prompt_room(model, turn_limit)), turn_limit))
    return asks


def _weight(entry: dict[str, Any]) -> float | None:
    """Pi counts only message entries when it measures what is kept."""
    return pi_estimate(entry["message"]) if entry.get("type") == "message" else None


def _cuttable(entry: dict[str, Any]) -> bool:
    """A cut may fall on any message but a tool result (it stays with its call), and on the entries the
    model reads as a user's (custom messages, branch summaries)."""
    if entry.get("type") == "message":
        return bool(entry["message"].get("role") != "toolResult")
    return entry.get("type") in ("custom_message", "branch_summary")


def _starts_turn(entry: dict[str, Any]) -> bool:
    if entry.get("type") == "message":
        return entry["message"].get("role") in ("user", "bashExecution")
    return entry.get("type") in ("custom_message", "branch_summary")


def _cut(path: list[dict[str, Any]], start: int, keep_recent: float) -> int:
    """The first kept entry's index: Pi's cut point, then back over the settings, labels and records
    before it (they belong with what follows), never past a message or a compaction."""
    cut = keep_recent_cut([_weight(e) for e in path], [_cuttable(e) for e in path], start, keep_recent)
    while cut > start and path[cut - 1].get("type") not in ("message", "compaction"):
        cut -= 1
    return cut


def _turn_start(path: list[dict[str, Any]], cut: int, start: int) -> int | None:
    """Where the turn the cut falls in began, when the cut is inside a turn (not at a user message)."""
    entry = path[cut]
    if entry.get("type") == "message" and entry["message"].get("role") == "user":
        return None
    return next((i for i in range(cut, start - 1, -1) if _starts_turn(path[i])), None)


def _files(messages: Iterable[AgentMessage], previous: dict[str, Any] | None) -> tuple[list[str], list[str]]:
    """The files the summarised part read and modified (by the read, write and edit tools), with the earlier
    compaction's lists; a file modified anywhere is only in the modified list."""
    found: dict[str, set[str]] = {"read": set(), "modified": set()}
    details = previous.get("details") if previous is not None and not previous.get("fromHook") else None
    if isinstance(details, dict):
        for key, kind in (("readFiles", "read"), ("modifiedFiles", "modified")):
            found[kind].update(p for p in details.get(key) or [] if isinstance(p, str))
    for message in messages:
        for call in tool_calls(message):
            path = (call.get("arguments") or {}).get("path")
            if call.get("name") in FILE_TOOLS and isinstance(path, str):
                found[FILE_TOOLS[call["name"]]].add(path)
    return sorted(found["read"] - found["modified"]), sorted(found["modified"])


def _tokens_before(messages: list[AgentMessage]) -> int:
    """The context as Pi measures it before compacting: the newest reply's usage and an estimate of what
    follows it, or, with no reply since the last compaction, an estimate of everything."""
    estimate = context_estimate(messages)
    return estimate.tokens if estimate is not None else round(sum(map(pi_estimate, plain_messages(messages))))


def plan_compaction(path: list[dict[str, Any]], keep_recent: float = COMPACTION_KEEP_RECENT_TOKENS) -> Plan:
    """What compacting the branch `path` (root to leaf) would summarise and keep; NothingToCompact (one
    line) when it would change nothing."""
    if path and path[-1].get("type") == "compaction":
        raise NothingToCompact("already compacted: nothing has happened since the last compaction")
    previous_at = max((i for i, e in enumerate(path) if e.get("type") == "compaction"), default=-1)
    previous = path[previous_at] if previous_at >= 0 else None
    start = previous_at + 1
    cut = _cut(path, start, keep_recent) if start < len(path) else start
    turn = _turn_start(path, cut, start) if cut < len(path) else None
    history = in_time_order(path[start:turn if turn is not None else cut])
    turn_start = in_time_order(path[turn:cut]) if turn is not None else []
    if not history and not turn_start:
        raise NothingToCompact(f"nothing to compact: the conversation since the last compaction is within the "
                        f"{round(keep_recent / 1000)}k tokens compaction keeps as they are")
    read, modified = _files([*history, *turn_start], previous)
    return Plan(path[cut]["id"], history, turn_start, _tokens_before(in_time_order(path[max(previous_at, 0):])),
                previous["summary"] if previous is not None else None, read, modified, in_time_order(path[cut:]))


def _clipped(message: AgentMessage) -> AgentMessage:
    """A tool output as the summariser reads it: its first `TOOL_RESULT_CHARS` characters (a copy)."""
    if not is_tool_result(message):
        return message
    text = content_text(message.get("content") or [])
    if len(text) <= TOOL_RESULT_CHARS:
        return message
    cut = f"{text[:TOOL_RESULT_CHARS]}\n\n[... {len(text) - TOOL_RESULT_CHARS} more characters]"
    return {**message, "content": [{"type": "text", "text": cut}]}


def conversation_text(messages: list[AgentMessage]) -> str:
    """The messages as the summariser reads them: as the model read them (summaries, shell runs and
    extension messages as its user messages), in plain text, so it summarises instead of answering."""
    return format_conversation([_clipped(m) for m in convert_to_llm(messages)], None)


def prompt_room(model: ModelSpec, output_tokens: int) -> int:
    """Characters a summary's prompt may have for its request to fit the model's window with room for
    the summary (condense's estimate, the one the pruned request is measured with)."""
    tokens = model.context_window - output_tokens - SYSTEM_TOKENS - len(SYSTEM_PROMPT) / CHARS_PER_TOKEN
    return max(0, int(tokens * CHARS_PER_TOKEN))


def _fitted(text: str, room: int | None) -> str:
    """`text` within `room` characters: its start (the task) and its end (where the work is), with a marker
    where the middle was left out."""
    if room is None or len(text) <= room:
        return text
    marker = "\n\n[... {} characters of the conversation left out here: too long for the model's window ...]\n\n"
    keep = max(0, room - len(marker.format(len(text))))
    head = int(keep * CUT_HEAD_SHARE)
    return text[:head] + marker.format(len(text) - keep) + text[len(text) - (keep - head):]


def _with_conversation(messages: list[AgentMessage], after: str, room: int | None) -> str:
    """The prompt: the conversation, cut to what `room` leaves beside `after` (the instructions)."""
    wrapping = len("<conversation>\n</conversation>\n\n") + len(after)
    conversation = _fitted(conversation_text(messages), None if room is None else room - wrapping)
    return f"<conversation>\n{conversation}</conversation>\n\n{after}"


def summary_prompt(plan: Plan, instructions: str = "", room: int | None = None) -> str:
    """The request for the summary of `plan.history`, updating the earlier summary when there is one, in
    `room` characters when given."""
    text = f"<previous-summary>\n{plan.previous_summary}\n</previous-summary>\n\n" if plan.previous_summary else ""
    text += UPDATED_SUMMARY if plan.previous_summary else FIRST_SUMMARY
    if instructions.strip():
        text += f"\n\nGive special attention to: {instructions.strip()}"
    return _with_conversation(plan.history, text, room)


def turn_start_prompt(plan: Plan, room: int | None = None) -> str:
    return _with_conversation(plan.turn_start, TURN_START, room)


def _refused_as_too_long(model: ModelSpec, prompt: str) -> UserError:
    """The provider refused a request built to fit the model's window: the window it was given is wrong."""
    tokens = format_tokens(estimate_from_chars(len(prompt) + len(SYSTEM_PROMPT)))
    return UserError(f"compaction failed: the provider refused its {tokens}-token request as too long, though it "
                     f"fits {model.ref}'s {model.context_window:,}-token window (is contextWindow in models.json "
                     "right?); the conversation is as it was")


async def _ask(client: ModelClient, model: ModelSpec, prompt: str, max_tokens: int, signal: CancelSignal) -> str:
    thinking = "high" if model.reasoning else None
    async for event in stream_completion(client, model, prompt, thinking, signal, system_prompt=SYSTEM_PROMPT,
                                         max_tokens=max_tokens):
        if event.type == "done" and event.text.strip():
            return event.text.strip()
        if event.type in ("done", "error"):
            if event.stop_reason == "aborted" or signal.aborted:
                raise UserError("compaction cancelled; the conversation is as it was")
            if event.error_kind == "context_overflow":
                raise _refused_as_too_long(model, prompt)
            reason = " ".join((event.text or "no summary came back").split())[:160]
            raise UserError(f"compaction failed ({reason}); the conversation is as it was")
    raise UserError("compaction failed (the stream ended early); the conversation is as it was")


def file_lists(plan: Plan) -> str:
    """The files the summarised part touched, after the summary, as Pi lists them."""
    sections = [f"<{tag}>\n" + "\n".join(files) + f"\n</{tag}>"
                for tag, files in (("read-files", plan.read_files), ("modified-files", plan.modified_files)) if files]
    return "\n\n" + "\n\n".join(sections) if sections else ""


async def write_summary(client: ModelClient, model: ModelSpec, plan: Plan, instructions: str,
                        signal: CancelSignal, reserve: int = COMPACTION_RESERVE_TOKENS) -> str:
    """The compaction's summary by the session's model: the history's (or "No earlier history." when the
    cut splits the first turn), the split turn's start beside it, and the file lists; each request within
    the model's window. UserError (one line) when the model fails or the user cancels."""
    asks = _summary_asks(plan, model, instructions, reserve)
    if not plan.turn_start:
        summary = await _ask(client, model, *asks[0], signal)
    else:
        history = _ask(client, model, *asks[0], signal) if plan.history else _no_history()
        turn = _ask(client, model, *asks[-1], signal)
        parts = await _both(history, turn)
        summary = parts[0] + SPLIT_TURN + parts[1]
    return summary + file_lists(plan)


async def _both(first: Coroutine[None, None, str], second: Coroutine[None, None, str]) -> tuple[str, str]:
    """Both summaries at once; when one fails the other is stopped (its text would be thrown away)."""
    tasks = [asyncio.ensure_future(first), asyncio.ensure_future(second)]
    try:
        done = await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
    return done[0], done[1]


async def _no_history() -> str:
    return "No earlier history."
