"""A card's mark is the same live and after reopening the session: the index a reload rebuilds gives each
output the ref and block the live one gave it."""

from __future__ import annotations

from pi_tui.conversation.model import Conversation
from pi_tui.tui.app import PiApp


def marks(app: PiApp) -> dict[str, str]:
    """Each call's mark, as its card or history line shows it."""
    live = app.live
    assert live is not None
    conversation = Conversation.from_messages(live.host.session.messages())
    return {call.id: live.transcript.look.mark_for(call)
            for item in conversation.items for call in item.calls.values()}


async def test_a_deduplicated_output_in_a_later_chain_keeps_its_mark_after_reopening(make_app, send, wait) -> None:
    """The second task reads invoicer/models.py again, byte for byte: a dedup alias of the first read,
    then its chain's own ref; a reload replayed the alias last and showed the first chain's block."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        for text in ("fix the failing test", "/pruner now", "add a csv export", "/pruner now"):
            await send(pilot, text)
        live = marks(app)
        path = app.runtime.host.session.path
    assert live["demo_t2_s2_1"].startswith("in chain b2")  # what the model reads: task 2's block
    reopened = make_app(session=path)
    async with reopened.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        assert marks(reopened) == live
