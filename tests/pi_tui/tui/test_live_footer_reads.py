"""The footer's `reads` right after `/pruner now` on a loaded session is what the next request carries, as
a request is measured: on a long session, and on one that ends in a compaction (the request carries only
the summary and what follows it; the context figure stays unknown until a reply reports usage)."""

from __future__ import annotations

import pytest

from condense.measure import estimate_tokens
from tests.conftest import corpus_copy
from tests.support.footer import FIGURE, footer_figures, tokens


@pytest.mark.parametrize("name", ["pi-large-session.jsonl", "pi-compaction-check.jsonl"])
async def test_reads_after_a_flush_is_the_estimate_of_the_next_request(make_app, send, wait, tmp_path,
                                                                        name) -> None:
    copy = corpus_copy(name, tmp_path)
    app = make_app(session=copy)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        compacted = name == "pi-compaction-check.jsonl"
        assert (footer_figures(app)[0] == "?%/200k") == compacted  # its replies measured the history before
        await send(pilot, "/pruner now")
        figure = FIGURE.fullmatch(app.bridge.statuses["condense"])
        assert figure, app.bridge.statuses
        reads, reads_off = tokens(figure[1])
        host, engine = app.runtime.host, app.runtime.engine
        request = engine.full_render(list(host.agent.messages))  # what the next request sends
        assert abs(reads - estimate_tokens(request)) <= reads_off
        context = footer_figures(app)[0]
        if compacted:
            assert context == "?%/200k"
        else:
            assert abs(float(context.split("%")[0]) / 100 * 200_000 - reads) <= reads_off + 100
