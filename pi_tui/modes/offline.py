"""condense over a session file with no live agent: `pi-tui context`, `query` and `replay`.

The host is condense's own LocalHost (the one the library and the tests run) over the session file
and pi-tui's model access. `context` and `query` must never change the file they read, so their log
drops whatever the engine would append; `replay` writes everything to its output session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.host import CancelSignal, CompletionEvent
from condense.local_host import LocalHost
from condense.messages import Message
from pi_tui.agent.condense_host import blobs_dir_of
from pi_tui.ai.completion import stream_completion
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.models import has_key, parse_model_ref
from pi_tui.ai.transform import transform_messages
from pi_tui.ai.types import ModelSpec
from pi_tui.session.store import Session


def session_model(session: Session) -> ModelSpec:
    """The model a recorded session last talked to (for the provider transform, summaries and the budget
    triggers), resolved as the live agent resolves it: its window, output limit and prices from the map."""
    ref = session.model_ref()
    return parse_model_ref(ref) if ref else ModelSpec(provider="unknown", id="unknown")


class SessionLog:
    """A pi-tui Session as condense's entry log. `persist=False` drops whatever the engine would append
    (a diagnostic, say), so the file read stays untouched; its blobs folder is still named, as that is
    where `query` finds spilled outputs (the engine writes there only at a turn end or a compression,
    which `context` and `query` never run)."""

    def __init__(self, session: Session, persist: bool) -> None:
        self.session = session
        self.persist = persist

    @property
    def session_id(self) -> str:
        return self.session.session_id

    def branch(self) -> list[dict[str, Any]]:
        return self.session.branch_entries()

    def messages(self) -> list[Any]:
        return self.session.messages_view()  # the engine keeps nothing of it: it copies what it keeps

    def append(self, kind: str, fields: dict[str, Any]) -> object:
        return self.session.append(kind, fields) if self.persist else None

    def entry(self, entry_id: str) -> dict[str, Any] | None:
        """Any entry of the file: what a record `/tree` carried names on another branch."""
        return self.session.get(entry_id)

    def blobs_dir(self) -> Path | None:
        return blobs_dir_of(self.session)

    def cwd(self) -> str | None:
        return self.session.cwd or None


class SessionModels:
    """Summaries from the models pi-tui can call: the session's own, or any with a configured key."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def session_model(self) -> str | None:
        return session_model(self.session).ref

    def has_model(self, ref: str) -> bool:
        try:
            return has_key(parse_model_ref(ref).provider)
        except ValueError:
            return False

    def complete(self, model: str, prompt: str, thinking: str | None,
                 signal: CancelSignal) -> AsyncIterator[CompletionEvent]:
        from pi_tui.runtime.build import client_for

        spec = parse_model_ref(model)
        return stream_completion(client_for(spec), spec, prompt, thinking, signal)


def offline_host(session: Session, *, persist: bool, context_window: int = 200_000) -> LocalHost:
    """condense's host over a session file. The recorded usage predates any pruning, so the context
    usage is an estimate of what the model would read now."""
    return LocalHost(SessionLog(session, persist), summarize=SessionModels(session), context_window=context_window,
                     reported_usage=False)


def offline_engine(session: Session, config: CondenseConfig, persist: bool = False) -> tuple[CondenseEngine,
                                                                                             LocalHost]:
    host = offline_host(session, persist=persist)
    engine = CondenseEngine(host, config)
    host.attach(engine)
    engine.on_session_start()
    return engine, host


def next_request(session: Session, config: CondenseConfig) -> list[Message]:
    """Exactly what the next model request would carry: condense's render, then the conversion to
    LLM messages and the provider transform for the session's model."""
    engine, _ = offline_engine(session, config)
    rendered = engine.render(session.messages())
    return transform_messages(convert_to_llm(rendered), session_model(session))
