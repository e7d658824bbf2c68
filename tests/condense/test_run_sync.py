"""The library's `*_sync` methods work where `asyncio.run` refuses to: inside a running event loop, as in a
notebook (Jupyter) or an async agent's synchronous helper; and outside one, as before."""

from __future__ import annotations

import asyncio

from condense import OpenAICondenser
from condense.run_sync import run_sync
from tests.condense.test_facade import openai_turn, output


def tool_outputs(condenser: OpenAICondenser) -> list[object]:
    return [m.get("content") for m in condenser.messages() if m["role"] == "tool"]


async def test_the_sync_api_works_inside_a_running_event_loop() -> None:
    asyncio.get_running_loop()  # what a notebook cell runs in
    condenser = OpenAICondenser(config={"prune_on": "on-demand"})
    condenser.add_sync([{"role": "user", "content": "fix the handler"}, *openai_turn(0)])
    condenser.add_sync([{"role": "assistant", "content": "Fixed."}])
    assert tool_outputs(condenser) == [output(0)]  # on demand: nothing pruned yet
    result = condenser.flush_sync()
    assert result.refs == ("t1",) and tool_outputs(condenser) != [output(0)]
    await condenser.add([{"role": "user", "content": "and the tests?"}])  # the async API, in the same loop
    assert condenser.messages()[-1] == {"role": "user", "content": "and the tests?"}


def test_the_sync_api_works_without_an_event_loop() -> None:
    condenser = OpenAICondenser()
    condenser.add_sync([{"role": "user", "content": "fix the handler"}, *openai_turn(0)])
    assert condenser.add_sync([{"role": "assistant", "content": "Fixed."}]).refs == ("t1",)
    assert condenser.shrink_sync() is False  # nothing left to prune


async def test_run_sync_gives_back_the_result_and_the_exception_of_the_work() -> None:
    async def answer() -> int:
        return 42

    async def fail() -> None:
        raise LookupError("no such ref")

    assert run_sync(answer()) == 42
    try:
        run_sync(fail())
    except LookupError as error:
        assert str(error) == "no such ref"
    else:
        raise AssertionError("the work's exception was lost")
