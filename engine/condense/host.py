"""What condense needs from the agent it runs in, and nothing more.

The engine never imports the agent: pi-tui implements this Protocol (and so can a test, or a replay
of a recorded session). Everything is plain data: session entries and messages are Pi-shaped dicts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from condense.messages import AgentMessage

Level = Literal["info", "warning", "error"]
ErrorKind = Literal["context_overflow", "transient", "auth", "bad_request", "other"]


@dataclass
class CompletionEvent:
    """One event of a summariser call. `delta`/`thinking` carry text pieces; the last event is `done`
    (with the whole text, the stop reason and Pi-shaped usage) or `error` (message and kind)."""

    type: Literal["delta", "thinking", "done", "error"]
    text: str = ""
    stop_reason: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    error_kind: ErrorKind = "other"


@dataclass(frozen=True)
class ContextUsage:
    """How full the context is: `tokens` used (None when unknown) out of the model's `context_window`;
    `reply_tokens`, when the host knows it, what each request asks the model to keep for its reply
    (its max_tokens): what a request must leave free of the window."""

    tokens: int | None
    context_window: int
    reply_tokens: int | None = None

    @property
    def percent(self) -> float | None:
        """Tokens as a share of the window, in percent (Pi's `percent`; the footer shows it)."""
        return None if self.tokens is None else self.tokens / self.context_window * 100


class CancelSignal(Protocol):
    """Set when the user abandons the work a summariser call belongs to (a flush aborted with Esc)."""

    @property
    def aborted(self) -> bool: ...


class Host(Protocol):
    """The agent as the engine sees it: its session branch, a way to persist, a completion call, a UI."""

    # ----- the session -----
    def branch(self) -> list[dict[str, Any]]:
        """Session entries of the current branch, root to leaf (Pi's `getBranch`)."""
        ...

    def context_messages(self) -> list[AgentMessage]:
        """The messages the next request carries before pruning, as the agent builds them from the branch
        (only what follows its last compaction, custom messages in place): what a request is measured on."""
        ...

    def append_entry(self, custom_type: str, data: Any) -> None:
        """Persist a `custom` entry (never sent to the model). May raise; callers handle it."""
        ...

    async def append_custom_message(self, custom_type: str, content: str, display: bool, details: Any) -> None:
        """Persist a `custom_message` entry and put it into the conversation without starting a turn."""
        ...

    def blobs_dir(self) -> Path | None:
        """`<sessionDir>/<sessionId>-blobs`, or None for a session that is not saved to disk."""
        ...

    def cwd(self) -> str | None:
        """The session's working directory, which relative paths in tool calls are relative to (None: unknown)."""
        ...

    def context_usage(self) -> ContextUsage | None: ...

    def session_model(self) -> str | None:
        """`provider/id` of the model the session talks to."""
        ...

    def has_model(self, ref: str) -> bool:
        """Whether `provider/id` can be called (known, and its key is configured)."""
        ...

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        """Stream one single-user-message completion (the summariser's call)."""
        ...

    # ----- the UI (no-ops headless) -----
    def notify(self, text: str, level: Level = "info") -> None: ...
    def set_status(self, key: str, text: str | None) -> None: ...
    def set_widget(self, key: str, lines: list[str] | None) -> None: ...


@runtime_checkable
class CompactingHost(Protocol):
    """A host that can do what Pi does when a conversation outgrows the model's window: compact it (Pi's
    rule: the newest ~20k tokens stay, a summary by the session's model stands for the rest). The engine
    asks only once even the pruned request no longer fits (`condense.budget`)."""

    async def compact(self) -> bool:
        """Compact the branch; False when there was nothing to compact or it failed (the host said why)."""
        ...


@runtime_checkable
class EntryReader(Protocol):
    """A host that reads any entry of its session by id, on any branch. At `/tree`, the chains and folds
    the branch left behind recorded are then named on the new branch where they are held instead of
    copied onto it (`condense.branch_switch`); a host without it gets copies."""

    def entry(self, entry_id: str) -> dict[str, Any] | None:
        """The session's entry with this id, whichever branch holds it (None: there is none)."""
        ...


NoticeCallback = Callable[[Level, str], None]
"""Hears each notice as it is given: (level, text)."""


class RecordedUI:
    """The UI half of a host with no screen (offline commands, the library, tests): notices and status
    lines are kept for the caller to show or check; widget rows have nowhere to go. `on_notice` hears
    each notice as it comes; `keep_notices` bounds the list to the newest ones (a long-running agent
    would otherwise keep every notice it was ever given)."""

    def __init__(self, on_notice: NoticeCallback | None = None, keep_notices: int | None = None) -> None:
        self.notices: list[tuple[Level, str]] = []
        self.status: dict[str, str] = {}
        self.on_notice = on_notice
        self.keep_notices = keep_notices

    def notify(self, text: str, level: Level = "info") -> None:
        self.notices.append((level, text))
        if self.keep_notices is not None and len(self.notices) > self.keep_notices:
            del self.notices[:-self.keep_notices]
        if self.on_notice is not None:
            self.on_notice(level, text)

    def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.status.pop(key, None)
        else:
            self.status[key] = text

    def set_widget(self, key: str, lines: list[str] | None) -> None:
        return None
