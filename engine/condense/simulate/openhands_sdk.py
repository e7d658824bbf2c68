"""OpenHands' `LLMSummarizingCondenser` as its SDK runs it, event by event.

Modelled on OpenHands/software-agent-sdk as of commit 611629e (2026-08-22); paths are in that
repository, and docs/WHATIF.md says what each rule rests on.

- The SDK counts events, not messages (openhands-sdk/openhands/sdk/event/): the system prompt is one
  event, a user message or a reply without tool calls one, a reply with N tool calls N actions (the
  first carries the reply's text and thinking, agent/response_dispatch.py), a tool result one, a
  summary one.
- Before every model request (agent/agent.py `step`) the condenser looks at the view: over `max_size`
  events, or over the model's input limit in tokens (the agent passes its own model, whose
  `effective_max_input_tokens` caps `max_tokens`), it condenses instead of sending.
- It keeps the first `keep_first` events and the newest `max_size // 2 - keep_first - 1` (under token
  pressure fewer, enough to halve the limit), both ends moved forward to the next place the view may be
  cut (context/view/properties/: never inside one reply's calls, between a call and its result, or
  inside a tool loop that a reply with thinking opened). One summary event takes the place of
  everything between, the previous summary first. A range that is empty or under a tenth of the view
  is not condensed: the view goes out as it is.
- The summariser reads one user message: the template's fixed text, then each forgotten event as the
  SDK prints it (a header, then at most 500 characters of its text: a call's arguments never, the
  previous summary's first 497 characters only).

The summary itself is extractive (the gist of each event the summariser saw), cut to the length a
model writes, like every compaction-style summary here (see `baselines`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from condense.messages import content_parts, model_parts
from condense.simulate.baselines import COMPACTION_LINE_CHARS, COMPACTION_SUMMARY_CHARS, Compaction
from condense.simulate.prompt import Meter

SDK_MAX_SIZE = 240  # LLMSummarizingCondenser's own defaults
SDK_KEEP_FIRST = 2
AGENT_MAX_SIZE = 80  # what the default agent (openhands-tools preset) and sub-agents are given
AGENT_KEEP_FIRST = 4
MINIMUM_PROGRESS = 0.1
PREVIEW_CHARS = 500  # event/base.py N_CHAR_PREVIEW
# The summariser template's fixed text (context/condenser/prompts/summarizing_prompt.j2, 2,013
# characters once rendered with no events) by litellm's Claude tokenizer; each event is wrapped in
# `<EVENT>` tags after it.
TEMPLATE_TOKENS = 521
SKIPPED_STOPS = frozenset({"error", "aborted"})  # never sent again, so never events


@dataclass(frozen=True, eq=False)
class Event:
    """One event of the SDK's view. `message` is the history message it comes from (a reply with
    several calls gives several events with the same message; the system prompt has none); `text` is
    how the SDK prints it for the summariser; `call` is the tool call an action opens or a result
    closes (an action's only when the call is answered: the SDK drops unanswered ones)."""

    kind: str  # system, message, action, observation, summary
    message: dict[str, Any] | None
    text: str
    call: str | None = None
    thinking: bool = False  # an action whose reply carried thinking opens a tool loop
    reply: int = -1  # which reply an action belongs to


SYSTEM_EVENT = Event("system", None, "SystemPromptEvent (agent)")


def _preview(text: str, keep: int) -> str:
    """The SDK's cut: past 500 characters, the first `keep` and an ellipsis (message-like events keep
    497, actions and observations 500)."""
    return text if len(text) <= PREVIEW_CHARS else text[:keep] + "..."


def _texts(message: dict[str, Any]) -> list[str]:
    """The text parts the SDK's event printer joins: text blocks and the fields other roles carry
    (a shell run's command and output, a summary); an image counts as a marker."""
    parts = []
    for part in model_parts(message):
        if part.kind == "image":
            parts.append("[Image: 1 URLs]")
        elif part.kind not in ("thinking", "toolCall"):
            parts.append(part.text)
    return parts


def _message_event(message: dict[str, Any], source: str, role: str) -> Event:
    texts = _texts(message)
    thinking = sum(1 for part in content_parts(message.get("content")) if part.kind == "thinking")
    if not texts:
        body = "[no text content]"
    else:
        body = _preview(" ".join(texts), PREVIEW_CHARS - 3) + (f" [Thinking blocks: {thinking}]" if thinking else "")
    return Event("message", message, f"MessageEvent ({source})\n  {role}: {body}")


def _action_name(tool: str) -> str:
    """The printed action is its class name only (the SDK's tools have their own names; ours stand in)."""
    return f"{tool[:1].upper()}{tool[1:]}Action"


def _reply_events(message: dict[str, Any], reply: int, answered: set[str]) -> list[Event]:
    calls = [part.source for part in content_parts(message.get("content")) if part.kind == "toolCall"]
    if not calls:
        return [_message_event(message, "agent", "assistant")]
    thought = _preview(" ".join(_texts(message)), PREVIEW_CHARS)
    thinking = any(part.kind == "thinking" for part in content_parts(message.get("content")))
    events = []
    for position, call in enumerate(calls):
        said = thought if position == 0 else ""
        call_id = str(call.get("id"))
        events.append(Event("action", message,
                            f"ActionEvent (agent)\n  Thought: {said}\n  Action: {_action_name(str(call.get('name')))}",
                            call_id if call_id in answered else None, thinking and position == 0, reply))
    return events


def _observation_event(message: dict[str, Any]) -> Event:
    output = _preview("".join(_texts(message)), PREVIEW_CHARS)
    text = f"ObservationEvent (environment)\n  Tool: {message.get('toolName')}\n  Result: {output}"
    return Event("observation", message, text, str(message.get("toolCallId")))


def summary_event(summary: str, time_ms: int) -> Event:
    """The summary as the next request carries it (a user message) and as a later summariser reads it."""
    message = {"role": "user", "content": [{"type": "text", "text": summary}], "timestamp": time_ms}
    return Event("summary", message,
                 f"CondensationSummaryEvent (environment)\n  user: {_preview(summary, PREVIEW_CHARS - 3)}")


def cut_points(view: Sequence[Event]) -> list[bool]:
    """`cuts[i]`: the view may be cut before event i (context/view/properties/: a reply's calls stay
    together, a call stays with its result, a tool loop opened by a reply with thinking stays whole)."""
    cuts = [True] * (len(view) + 1)
    pending: set[str] = set()
    in_loop = False
    for position, event in enumerate(view):
        if event.kind == "action":
            previous = view[position - 1] if position else None
            if previous is not None and previous.kind == "action" and previous.reply == event.reply:
                cuts[position] = False
            if event.call is not None:
                pending.add(event.call)
            in_loop = in_loop or event.thinking
            if in_loop and not event.thinking:
                cuts[position] = False
        elif event.kind == "observation":
            pending.discard(event.call or "")
            if in_loop:
                cuts[position] = False
        else:
            in_loop = False
        if pending:
            cuts[position + 1] = False
    return cuts


def _next_cut(cuts: list[bool], at: int) -> int | None:
    return next((i for i in range(max(0, at), len(cuts)) if cuts[i]), None)


def _gist(event: Event) -> str:
    """What the extractive summary keeps of an event the summariser saw: a previous summary's whole
    preview, else the start of the event's printed lines after its header, on one line."""
    lines = [line.strip() for line in event.text.split("\n")[1:]]
    body = " ".join(line for line in lines if line)
    return body if event.kind == "summary" else body[:COMPACTION_LINE_CHARS]


def events_prompt(forgotten: Sequence[Event]) -> str:
    """The part of the summariser's prompt after the template's fixed text: each event in its tags."""
    return "".join(f"\n<EVENT>\n{event.text}\n</EVENT>\n" for event in forgotten)


class SdkCondenser:
    """The condenser's view over a growing history; `context` is what a request carries."""

    def __init__(self, meter: Meter, max_size: int, keep_first: int, max_tokens: int) -> None:
        self.meter = meter
        self.max_size = max_size
        self.keep_first = keep_first
        self.max_tokens = max_tokens
        self.view: list[Event] = [SYSTEM_EVENT]
        self._seen = 0
        self._replies = 0
        self._skipped_calls: set[str] = set()

    def _events_of(self, message: dict[str, Any], answered: set[str]) -> list[Event]:
        role = message.get("role")
        if role == "assistant":
            calls = [part.source for part in content_parts(message.get("content")) if part.kind == "toolCall"]
            if message.get("stopReason") in SKIPPED_STOPS:
                self._skipped_calls.update(str(call.get("id")) for call in calls)
                return []
            self._replies += 1
            return _reply_events(message, self._replies, answered)
        if role == "toolResult":
            skipped = str(message.get("toolCallId")) in self._skipped_calls
            return [] if skipped else [_observation_event(message)]
        return [] if message.get("excludeFromContext") else [_message_event(message, "user", "user")]

    def _grow(self, history: Sequence[dict[str, Any]]) -> None:
        new = history[self._seen:]
        answered = {str(m.get("toolCallId")) for m in new if m.get("role") == "toolResult"}
        for message in new:
            self.view.extend(self._events_of(message, answered))
        self._seen = len(history)

    def context(self, history: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        self._grow(history)
        out: list[dict[str, Any]] = []
        for event in self.view:
            if event.message is not None and (not out or out[-1] is not event.message):
                out.append(event.message)
        return out

    def _event_tokens(self) -> list[float]:
        """Each event's share of the prompt: a message's tokens on its first event, the system prompt's
        on its own."""
        tokens, last = [], None
        for event in self.view:
            if event.message is None:
                tokens.append(self.meter.system.tokens)
            elif event.message is last:
                tokens.append(0.0)
            else:
                tokens.append(self.meter.segment(event.message).tokens)
            last = event.message
        return tokens

    def _tail_for_tokens(self, tokens: list[float]) -> int:
        """Events the SDK keeps at the end to bring the view to half its token limit: all but the
        shortest run after the head that holds more than the excess."""
        excess = sum(tokens) - self.max_tokens // 2
        body = tokens[self.keep_first:]
        total = 0.0
        for position, size in enumerate(body):
            total += size
            if total > excess:
                return len(body) - position - 1
        return 0

    def _forgotten_range(self) -> tuple[int, int] | None:
        tokens = self._event_tokens()
        over_size, over_tokens = len(self.view) > self.max_size, sum(tokens) > self.max_tokens
        if not (over_size or over_tokens):
            return None
        tails = ([self.max_size // 2 - self.keep_first - 1] if over_size else []) + \
            ([self._tail_for_tokens(tokens)] if over_tokens else [])
        cuts = cut_points(self.view)
        start, end = _next_cut(cuts, self.keep_first), _next_cut(cuts, len(self.view) - min(tails))
        if start is None or end is None or end - start < max(1, len(self.view) * MINIMUM_PROGRESS):
            return None
        return start, end

    def maybe_compact(self, history: Sequence[dict[str, Any]], time_ms: int) -> Compaction | None:
        """Condense before a request when the SDK would; returns what the summariser was asked."""
        self._grow(history)
        found = self._forgotten_range()
        if found is None:
            return None
        start, end = found
        forgotten = self.view[start:end]
        text = "\n".join(line for line in map(_gist, forgotten) if line)[-COMPACTION_SUMMARY_CHARS:]
        self.view = [*self.view[:start], summary_event(text, time_ms), *self.view[end:]]
        folded = list({id(e.message): e.message for e in forgotten if e.message is not None}.values())
        return Compaction(folded, text, prompt=events_prompt(forgotten), head_tokens=TEMPLATE_TOKENS)
