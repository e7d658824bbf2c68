"""condense over a session file with no live agent: `pi-tui context`, `query` and `replay`.

`context` and `query` must never change the file they read, so their host keeps whatever the engine
would append (a diagnostic, say) in memory. `replay` writes everything to its output session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.host import CancelSignal, CompletionEvent, ContextUsage, RecordedUI
from condense.measure import estimate_tokens
from condense.messages import AgentMessage
from pi_tui.ai.completion import stream_completion
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.models import has_key, parse_model_ref
from pi_tui.ai.transform import transform_messages
from pi_tui.ai.types import ModelSpec
from pi_tui.pruning import blobs_dir_of
from pi_tui.session.store import Session


def session_model(session: Session) -> ModelSpec:
    """The model a recorded session last talked to (for the provider transform, summaries and the budget
    triggers), resolved as the live agent resolves it: its window, output limit and prices from the map."""
    model = session.build_context().model
    if model is None or not model[0] or not model[1]:
        return ModelSpec(provider="unknown", id="unknown")
    return parse_model_ref("demo" if model[0] == "demo" else f"{model[0]}/{model[1]}")


class SessionHost(RecordedUI):
    """condense's Host over a session file. `persist=False` keeps the file untouched."""

    def __init__(self, session: Session, *, persist: bool, context_window: int = 200_000) -> None:
        super().__init__()
        self.session = session
        self.persist = persist
        self.context_window = context_window
        self.kept: list[tuple[str, Any]] = []
        self.engine: CondenseEngine | None = None

    def branch(self) -> list[dict[str, Any]]:
        return self.session.branch_entries()

    def append_entry(self, custom_type: str, data: Any) -> None:
        if self.persist:
            self.session.append_custom(custom_type, data)
        else:
            self.kept.append((custom_type, data))

    async def append_custom_message(self, custom_type: str, content: str, display: bool, details: Any) -> None:
        if self.persist:
            self.session.append_custom_message(custom_type, content, display, details)
        else:
            self.kept.append((custom_type, content))

    def blobs_dir(self) -> Path | None:
        return blobs_dir_of(self.session) if self.persist else None

    def cwd(self) -> str | None:
        return self.session.cwd or None

    def context_usage(self) -> ContextUsage | None:
        """Estimated from what the model would read now (the recorded usage predates any pruning)."""
        messages = self.session.messages()
        if self.engine is not None and self.engine.config.enabled:
            self.engine.render(messages)  # the request's own render, extended by what came since
            return ContextUsage(self.engine.rendered_tokens(), self.context_window)
        return ContextUsage(estimate_tokens(messages), self.context_window)

    def session_model(self) -> str | None:
        return session_model(self.session).ref

    def has_model(self, ref: str) -> bool:
        try:
            return has_key(parse_model_ref(ref).provider)
        except ValueError:
            return False

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        from pi_tui.runtime import client_for

        spec = parse_model_ref(model)
        return stream_completion(client_for(spec), spec, prompt, thinking, signal)


def offline_engine(session: Session, config: CondenseConfig, persist: bool = False) -> tuple[CondenseEngine,
                                                                                             SessionHost]:
    host = SessionHost(session, persist=persist)
    engine = CondenseEngine(host, config)
    host.engine = engine
    engine.on_session_start()
    return engine, host


def next_request(session: Session, config: CondenseConfig) -> list[AgentMessage]:
    """Exactly what the next model request would carry: condense's render, then the conversion to
    LLM messages and the provider transform for the session's model."""
    engine, _ = offline_engine(session, config)
    rendered = engine.render(session.messages())
    return transform_messages(convert_to_llm(rendered), session_model(session))  # type: ignore[return-value]
