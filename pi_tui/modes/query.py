"""`pi-tui query`: what `context_tree_query` would return for refs of a session, as the model would read it."""

from __future__ import annotations

from dataclasses import dataclass

from condense import unknown_refs
from condense.config import CondenseConfig
from pi_tui.modes.offline import offline_engine
from pi_tui.session.store import Session


@dataclass(frozen=True)
class QueryAnswer:
    text: str
    missing: list[str]  # refs the session does not know: a script must not take "not found" for an answer


def query_refs(session: Session, config: CondenseConfig, refs: list[str]) -> QueryAnswer:
    engine, _ = offline_engine(session, config)
    text, _ = engine.query(refs)
    return QueryAnswer(text, unknown_refs(engine, refs))
