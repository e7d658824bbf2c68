"""The conversation the transcript shows: condense's summaries stand beside the turns whose work they hold."""

from __future__ import annotations

from typing import Any

from pi_tui.conversation.model import Conversation
from tests.support.memory_host import assistant, call, result, user


def summary(*call_ids: str, legacy: bool = False) -> dict[str, Any]:
    refs = [{"shortId": f"t{n}", "toolCallId": cid, "resultTimestamp": n} for n, cid in enumerate(call_ids, 1)]
    details = {"toolCallIds": list(call_ids)} if legacy else {"toolCallRefs": refs}
    return {"role": "custom", "customType": "context-prune-summary", "content": f"summary of {call_ids}",
            "display": False, "details": details, "timestamp": 999}


def two_turns() -> list[Any]:
    return [user("go", 1), assistant(2, call("a")), result("a", "A", 3), assistant(4, call("b")),
            result("b", "B", 5), assistant(6, text="done")]


def test_a_summary_written_after_the_reply_stands_after_the_turn_it_covers() -> None:
    conversation = Conversation.from_messages([*two_turns(), summary("a"), summary("b")])
    assert [item.kind for item in conversation.items] == ["user", "assistant", "summary", "assistant", "summary",
                                                           "assistant"]
    assert conversation.items[2].message["content"] == "summary of ('a',)"


def test_a_summary_of_several_turns_stands_after_the_last_and_summaries_keep_their_order() -> None:
    conversation = Conversation.from_messages([*two_turns(), summary("a", "b"), summary("b", legacy=True)])
    assert [item.kind for item in conversation.items] == ["user", "assistant", "assistant", "summary", "summary",
                                                           "assistant"]
    assert [item.message["content"] for item in conversation.items[3:5]] == ["summary of ('a', 'b')",
                                                                             "summary of ('b',)"]


def test_a_summary_whose_calls_are_not_shown_goes_at_the_end() -> None:
    conversation = Conversation.from_messages([*two_turns(), summary("gone")])
    assert conversation.items[-1].kind == "summary"
