"""`whatif` converts each request's context from where it stopped being the previous one's, and what
the model reads is the same as converting every context whole."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

import pi_tui.modes.provider_view as provider_view
from condense.messages import AgentMessage, Message, plain_messages, typed_messages
from condense.simulate import ObservationMasking
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.transform import transform_messages
from pi_tui.ai.types import ModelSpec
from pi_tui.modes.provider_view import ProviderView
from pi_tui.modes.whatif_runs import Recording
from pi_tui.session.store import Session
from tests.conftest import corpus_path
from tests.support.memory_host import assistant, call, result, user
from tests.support.typed import plain

SPEC = ModelSpec(provider="anthropic", id="claude-sonnet-4-5", api="anthropic-messages")


def whole(context: Sequence[Mapping[str, Any]], spec: ModelSpec) -> list[dict[str, Any]]:
    return plain_messages(transform_messages(convert_to_llm(typed_messages(context)), spec))


def recording(name: str) -> Recording:
    session = Session.open(corpus_path(name))
    return Recording(session, session.branch_entries())


@pytest.mark.parametrize("name", ["pi-large-session.jsonl", "pi-before-compaction.jsonl",
                                  "pi-compact-hooks.jsonl"])
def test_every_request_reads_as_its_whole_context_converted(name: str) -> None:
    """The full history request after request (`none`), and with older outputs masked (each request
    rewrites a message far back): the model reads exactly what converting the whole context gives."""
    record = recording(name)
    masking = ObservationMasking()
    contexts: list[Callable[[list[dict[str, Any]]], list[dict[str, Any]]]] = [list, masking.apply]
    for context_of in contexts:
        view = ProviderView()
        for number, before in enumerate(record.before):
            context = context_of(record.history[:before])
            assert view.of(context, record.specs[number]) == whole(context, record.specs[number]), number


def test_unanswered_calls_a_skipped_turn_and_a_model_switch_read_as_converting_whole() -> None:
    """A call whose result never came is answered by a synthetic error once the conversation moves on, an
    errored turn and the results of its calls are left out, thinking reads as text to another model:
    wherever the previous request's context ended, the view is that of the whole context."""
    thinking = {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"}
    errored = {**assistant(6, call("c3")), "stopReason": "error"}
    history = plain([
        user("go", 1), {**assistant(2, call("c1"), call("c2")), "content": [thinking, call("c1"), call("c2")]},
        result("c1", "a", 3), user("stop", 4), assistant(5, text="ok"), errored, result("c3", "late", 7),
        {"role": "custom", "customType": "note", "content": "n", "display": True, "timestamp": 8},
        assistant(9, call("c4")), result("c4", "d", 10), assistant(11, text="done")])
    session = ModelSpec(provider="prov", id="session-model", api="x")
    view = ProviderView()
    for end in range(len(history) + 1):
        for spec in (SPEC, SPEC, session):
            assert view.of(history[:end], spec) == whole(history[:end], spec), (end, spec)


def test_a_request_converts_only_what_followed_the_last_settled_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pricing a request converts the messages since the last point no call awaited a result, not the
    whole history: over pi-large-session, each message about once."""
    record = recording("pi-large-session.jsonl")
    converted: list[int] = []

    def counting(messages: list[AgentMessage]) -> list[Message]:
        converted.append(len(messages))
        return convert_to_llm(messages)

    monkeypatch.setattr(provider_view, "convert_to_llm", counting)
    view = ProviderView()
    for number, before in enumerate(record.before):
        view.of(record.history[:before], record.specs[number])
    assert sum(converted) < 1.2 * len(record.history)
