"""A session keeps its branch and context as it grows, so a model request does not rebuild them, and
they still follow every change: appends, moving the leaf, compactions."""

from __future__ import annotations

from condense.messages import AgentMessage, UserMessage
from pi_tui.session.context import build_context
from pi_tui.session.store import Session


def user(text: str, ts: int) -> UserMessage:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def reply(text: str, ts: int) -> dict[str, object]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "p", "model": "m",
            "stopReason": "stop", "timestamp": ts}


def fresh(session: Session) -> list[AgentMessage]:
    """The context built from scratch, the way a session without caches would."""
    return build_context(session.branch_entries()).messages


def test_the_context_follows_appends_branches_and_compactions() -> None:
    session = Session.in_memory()
    first = session.append_message(user("one", 1))
    session.append_message(reply("two", 2))  # type: ignore[arg-type]
    session.append_custom_message("note", "a custom message", True)
    assert session.messages() == fresh(session) and len(session.messages()) == 3
    session.branch(first)
    session.append_message(reply("other", 3))  # type: ignore[arg-type]
    assert [m.get("content") for m in session.messages()] == [m.get("content") for m in fresh(session)]
    assert len(session.messages()) == 2
    kept = session.append_message(user("three", 4))
    session.append_compaction("summary of before", kept, 1000)
    assert session.messages()[0]["role"] == "compactionSummary"
    assert session.messages() == fresh(session)
    session.append_model_change("prov", "model-2")
    assert session.build_context().model == ("prov", "model-2")


def test_messages_are_the_same_objects_across_requests_and_the_list_is_the_caller_s() -> None:
    session = Session.in_memory()
    session.append_message(user("one", 1))
    session.append_custom_message("note", "a custom message", True)
    before = session.messages()
    session.append_message(reply("two", 2))  # type: ignore[arg-type]
    after = session.messages()
    # a render reuses its previous work only when the earlier messages are the very same objects
    assert all(a is b for a, b in zip(before, after, strict=False)) and len(after) == 3
    after.append(user("not in the session", 3))
    session.build_context().messages.clear()
    assert len(session.messages()) == 3
