"""The seam between the agent loop and whatever produces assistant messages.

The loop asks a `ModelClient` to stream one assistant reply for a request and receives events that
each carry the partial Pi-shaped assistant message; the last event is `done` or `error` with the
final message. litellm (every real provider) and the offline demo model both sit behind this, so
the loop, the TUI and condense never know which one answered.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from condense.messages import AssistantMessage, Message
from pi_tui.abort import AbortSignal
from pi_tui.ai.model_map import Prices


@dataclass(frozen=True)
class ModelSpec:
    """A model the user can pick: `provider/id` on the command line. The limits and prices here are
    defaults until `models.parse_model_ref` fills them from litellm's map or the settings."""

    provider: str
    id: str
    context_window: int = 128_000
    max_tokens: int = 16_384
    reasoning: bool = False
    api: str = "openai-completions"
    base_url: str | None = None
    prices: Prices = field(default_factory=Prices)
    # A models.json provider litellm does not know is called through the litellm provider that speaks
    # its API (`openai` for openai-completions), with its own key and headers. These hold the values
    # as models.json writes them (an environment variable's name or a literal key), resolved
    # only when a request is made, and never shown: a repr can reach a log.
    route: str | None = None
    key_source: str | None = field(default=None, repr=False)
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @property
    def ref(self) -> str:
        return f"{self.provider}/{self.id}"

    @property
    def litellm_ref(self) -> str:
        """The name litellm is called with: `route/id` for a models.json provider, else `ref`."""
        return f"{self.route or self.provider}/{self.id}"


@dataclass
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class ModelRequest:
    model: ModelSpec
    system_prompt: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    thinking_level: str = "off"
    max_tokens: int | None = None
    idle_timeout: float | None = None  # seconds the reply may send nothing before it is given up; None: no limit


EventType = Literal[
    "start",
    "text_delta",
    "thinking_delta",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_end",
    "done",
    "error",
]


@dataclass
class StreamEvent:
    """One step of a streamed reply. `message` is the assistant message so far (final on done/error);
    an error may carry the wait the provider asked for before a retry (its Retry-After)."""

    type: EventType
    message: AssistantMessage
    delta: str = ""
    content_index: int = -1
    retry_after_ms: int | None = None


class ModelClient(Protocol):
    def stream(self, request: ModelRequest, signal: AbortSignal) -> AsyncIterator[StreamEvent]:
        """Stream one reply. Never raises for provider failures: those end with an `error` event
        whose message has `stopReason` "error" (or "aborted") and an `errorMessage`."""
        ...
