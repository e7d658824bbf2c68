"""Requests as token sequences, cut into one segment per message, so prefixes compare fast.

A provider's prefix cache matches tokens from the start of the prompt. Comparing whole serialised
requests would cost O(context) per request, and re-tokenising them would cost far more, so a prompt
here is a tuple of segments: a fixed block standing for the system prompt and tool definitions, then
one segment per message. Each distinct message text is serialised and tokenised once and shared by
every request (and every strategy) that carries it, so two prompts share a segment exactly when they
share the object, and the common prefix of two prompts is the run of shared segments plus the common
token prefix of the first segment that differs.

Tokens come from an `Encoder` the host supplies (a real tokenizer), or `CharEncoder`, which counts
characters and converts at a fixed rate. Both yield sequences, so the prefix arithmetic is the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Protocol

from condense.measure import CHARS_PER_TOKEN, SYSTEM_TOKENS
from condense.messages import Part, content_parts


class Encoder(Protocol):
    name: str
    units_per_token: float  # 1 for a tokenizer; characters per token for a character estimate

    def encode(self, text: str) -> Sequence[Any]: ...


class CharEncoder:
    """Characters as units, `chars_per_token` of them to a token: deterministic and dependency-free."""

    def __init__(self, chars_per_token: float = CHARS_PER_TOKEN) -> None:
        self.units_per_token = chars_per_token
        self.name = f"chars/{chars_per_token:g}"

    def encode(self, text: str) -> Sequence[Any]:
        return text


@dataclass(frozen=True, eq=False)
class Segment:
    """One message's tokens. Compared by identity: the meter makes one object per distinct text.
    `blocks` is how many content blocks the provider sees for it: Anthropic's cache lookback counts
    blocks, not messages."""

    text: str
    units: Sequence[Any]
    tokens: float
    blocks: int = 1


@dataclass(frozen=True, eq=False)
class Prompt:
    """A request's segments and its cache breakpoints: segment counts `n` such that the provider
    transform puts `cache_control` on the last block of `segments[n - 1]`. `sums[n]` is the tokens of
    the first n segments: a prompt built from the one before it (`Meter.prompt`) carries that one's
    sums for the segments they share, so pricing a request costs what it added, not its length."""

    segments: tuple[Segment, ...]
    breakpoints: tuple[int, ...] = ()
    sums: tuple[float, ...] = ()
    tokens: float = field(init=False)

    def __post_init__(self) -> None:
        if len(self.sums) != len(self.segments) + 1:
            object.__setattr__(self, "sums", tuple(accumulate((s.tokens for s in self.segments), initial=0.0)))
        object.__setattr__(self, "tokens", self.sums[-1])

    def tokens_before(self, end: int) -> float:
        return self.sums[end]

    def extended(self, shared: int, more: Sequence[Segment], breakpoints: tuple[int, ...]) -> Prompt:
        """This prompt's first `shared` segments, then `more`."""
        sums = self.sums[:shared + 1] + tuple(accumulate((s.tokens for s in more), initial=self.sums[shared]))[1:]
        return Prompt(self.segments[:shared] + tuple(more), breakpoints, sums)


def common_units(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Length of the common prefix of two sequences. Windows of doubling width are compared from the
    start, then the one that differs is halved: slice comparisons keep the loops in C, and the cost is
    about one pass over the common prefix (a context that changed near its end, as most do between two
    requests, is not compared whole a dozen times)."""
    end = min(len(a), len(b))
    low, width = 0, 1
    while low < end:
        high = min(end, low + width)
        if a[low:high] == b[low:high]:
            low, width = high, width * 2
            continue
        while high - low > 1:  # the first difference is in [low, high)
            middle = (low + high) // 2
            if a[low:middle] == b[low:middle]:
                low = middle
            else:
                high = middle
        return low
    return end


def common_prefix_tokens(previous: Prompt, current: Prompt, units_per_token: float) -> float:
    shared = common_units(previous.segments, current.segments)
    matched = current.tokens_before(shared)
    if shared == min(len(previous.segments), len(current.segments)):
        return matched
    return matched + common_units(previous.segments[shared].units, current.segments[shared].units) / units_per_token


# ----- what the model reads of a message ---------------------------------------------------------

def _part_text(part: Part) -> str:
    if part.kind == "toolCall":
        return f"call {part.source.get('name')} {part.source.get('id')} {part.text}"
    return "[image]" if part.kind == "image" else part.text


def _content_text(content: Any) -> str:
    return "\n".join(text for text in map(_part_text, content_parts(content)) if text)


def message_text(message: dict[str, Any]) -> str:
    """A stable rendering of everything a provider tokenises in a message: role, texts, thinking,
    tool calls with ids and arguments, tool results with their call. Accepts the roles the host
    converts later (summaries, shell runs, custom messages) so baselines can measure them too."""
    role = message.get("role")
    if role == "toolResult":
        status = " error" if message.get("isError") else ""
        head = f"result {message.get('toolName')} {message.get('toolCallId')}{status}"
        return f"{head}\n{_content_text(message.get('content'))}"
    if role in ("compactionSummary", "branchSummary"):
        return f"user\n{message.get('summary') or ''}"
    if role == "bashExecution":
        return f"user\n{message.get('command') or ''}\n{message.get('output') or ''}"
    return f"{role}\n{_content_text(message.get('content'))}"


def block_count(message: dict[str, Any]) -> int:
    """Content blocks the provider receives for a message: one per text, thinking, tool call or image;
    a tool result is one `tool_result` block."""
    content = message.get("content")
    if message.get("role") == "toolResult" or not isinstance(content, list):
        return 1
    return max(1, sum(1 for block in content if isinstance(block, dict)))


def breakpoints(messages: Sequence[dict[str, Any]], offset: int) -> tuple[int, ...]:
    """Where pi-tui's provider conversion puts `cache_control` among `messages`: on the newest message
    that is not the assistant's (a user message or a tool result); `offset` segments come first."""
    for position in range(len(messages) - 1, -1, -1):
        if messages[position].get("role") != "assistant":
            return (offset + position + 1,)
    return ()


class Meter:
    """Turns message lists into prompts, remembering every text (and every message object) it saw.

    Message objects are pinned while remembered, so an `id()` is never reused for another message;
    `forget_messages` drops them between strategies while keeping the (shared) texts."""

    def __init__(self, encoder: Encoder, system_tokens: int = SYSTEM_TOKENS) -> None:
        self.encoder = encoder
        self.units_per_token = encoder.units_per_token
        self._by_text: dict[tuple[str, int], Segment] = {}
        self._fixed: dict[tuple[str, int], Segment] = {}
        self.system = self.fixed_segment("<system prompt and tools>", system_tokens)
        self._by_message: dict[int, tuple[Any, Segment]] = {}
        self._last: dict[Segment | None, tuple[list[dict[str, Any]], Prompt]] = {}  # by head: messages, prompt

    def fixed_segment(self, label: str, tokens: float) -> Segment:
        """A stretch of `tokens` tokens whose text is not modelled (a system prompt, another program's
        instructions), the same object every time it is asked for."""
        units = round(tokens * self.units_per_token)
        segment = self._fixed.get((label, units))
        if segment is None:
            segment = Segment(label, (None,) * units, units / self.units_per_token)
            self._fixed[(label, units)] = segment
        return segment

    def segment_of_text(self, text: str, blocks: int = 1) -> Segment:
        segment = self._by_text.get((text, blocks))
        if segment is None:
            units = self.encoder.encode(text)
            segment = Segment(text, units, len(units) / self.units_per_token, blocks)
            self._by_text[(text, blocks)] = segment
        return segment

    def segment(self, message: dict[str, Any]) -> Segment:
        pinned = self._by_message.get(id(message))
        if pinned is not None:
            return pinned[1]
        segment = self.segment_of_text(message_text(message), block_count(message))
        self._by_message[id(message)] = (message, segment)
        return segment

    def prompt(self, messages: Sequence[dict[str, Any]], system: bool = True, head_segment: Segment | None = None
               ) -> Prompt:
        """The request for `messages`; with `system`, the system prompt (a breakpoint of its own)
        comes first: `head_segment` where a strategy sends more tools than the others."""
        head = (head_segment or self.system,) if system else ()
        marks = ((1,) if system else ()) + breakpoints(messages, len(head))
        # built from the last prompt after the same head: a context that grew costs its new messages
        key = head[0] if head else None
        last_messages, last = self._last.get(key, ([], Prompt(head)))
        shared = common_units(last_messages, messages)
        prompt = last.extended(len(head) + shared, [self.segment(m) for m in messages[shared:]], marks)
        self._last[key] = (list(messages), prompt)
        return prompt

    def text_prompt(self, text: str, head_tokens: float = 0.0) -> Prompt:
        """A one-message request (a summariser call), after `head_tokens` of fixed instructions when
        given: its only breakpoint is at its end."""
        head = (self.fixed_segment("<instructions>", head_tokens),) if head_tokens else ()
        segments = (*head, self.segment_of_text(text))
        return Prompt(segments, (len(segments),))

    def tokens(self, messages: Sequence[dict[str, Any]]) -> float:
        """What a context of these messages weighs, system prompt included."""
        return self.system.tokens + sum(self.segment(m).tokens for m in messages)

    def text_tokens(self, text: str) -> float:
        return self.segment_of_text(text).tokens

    def forget_messages(self) -> None:
        self._by_message.clear()
        self._last.clear()
