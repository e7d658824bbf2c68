"""What the model reads of each request's context in a whatif run, converted from where the previous
request's context stopped being the same.

A strategy's contexts mostly grow: request n carries request n-1's messages (the very objects) and a
few more. Converting (`convert_to_llm`) and transforming (`transform_messages`) every context whole made
the price of one request grow with the session. Both work message by message, except the pairing of
tool calls with their results, which starts afresh wherever no call awaits a result: the output up to
the last such point before the first message that differs from the previous context is kept, and only
the rest is converted again.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from condense.messages import plain_messages, tool_calls, typed_messages
from condense.simulate import common_units
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.transform import transform_messages
from pi_tui.ai.types import ModelSpec


def _stops(context: Sequence[Mapping[str, Any]], start: int) -> Iterator[tuple[int, bool]]:
    """Where to cut `context` from `start` (a settled point) into pieces converted apart: after each
    message past which no tool call awaits a result, then at its end (True: a settled point). The calls
    awaited are over-counted, never under: a user message closes the open turn, an assistant message
    opens its calls (even one the pairing skips), a result answers its own; other roles change nothing
    here, though some close the turn (a shell run left out of the context does not)."""
    awaited: set[Any] = set()  # call ids, as the pairing keys them
    for position in range(start, len(context)):
        message = context[position]
        role = message.get("role")
        if role == "assistant":
            awaited = {call.get("id") for call in tool_calls(message)}
        elif role == "toolResult":
            awaited.discard(message.get("toolCallId"))
        elif role == "user":
            awaited = set()
        if not awaited:
            yield position + 1, True
    if awaited or start == len(context):
        yield len(context), False


class ProviderView:
    """The provider's view of one strategy's contexts, request after request."""

    def __init__(self) -> None:
        self._spec: ModelSpec | None = None
        self._inputs: list[Mapping[str, Any]] = []
        self._out: list[dict[str, Any]] = []
        self._settled: list[tuple[int, int]] = []  # (inputs, outputs) at which no call awaits a result

    def of(self, context: Sequence[Mapping[str, Any]], spec: ModelSpec) -> list[dict[str, Any]]:
        """`context` converted and transformed for `spec`: the same messages as converting it whole."""
        if spec != self._spec:
            self._spec, self._inputs, self._out, self._settled = spec, [], [], []
        inputs = list(context)
        same = common_units(self._inputs, inputs)
        del self._settled[bisect.bisect_right(self._settled, same, key=lambda point: point[0]):]
        start, end = self._settled[-1] if self._settled else (0, 0)
        del self._out[end:]
        self._inputs = inputs
        for stop, settled in _stops(context, start):
            piece = transform_messages(convert_to_llm(typed_messages(context[start:stop])), spec)
            self._out += plain_messages(piece)
            if settled:
                self._settled.append((stop, len(self._out)))
            start = stop
        return list(self._out)
