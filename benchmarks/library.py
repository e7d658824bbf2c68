"""What the library facade costs an agent per request, as ratios to `json.dumps` of that request.

Run: .venv/bin/python benchmarks/library.py [--turns 300 1000]

An agent sends `[system, *ctx.messages()]` with every model call and serialises it anyway, so the
baseline is `json.dumps` of the pruned request; `messages()` is the engine's render plus the conversion
back to OpenAI's shape, measured on the same history right after a flush and on a no-op request.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable

from condense import OpenAICondenser

REPEATS = 10


def seconds(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    for _ in range(REPEATS):
        work()
    return (time.perf_counter() - start) / REPEATS


async def history(turns: int) -> OpenAICondenser:
    """A conversation of `turns` file reads (2.6 kB each), flushed once."""
    ctx = OpenAICondenser(config={"prune_on": "on-demand"})
    await ctx.add([{"role": "user", "content": "read every file"}])
    for n in range(turns):
        call = {"id": f"call_{n}", "type": "function",
                "function": {"name": "read", "arguments": json.dumps({"path": f"src/f{n}.py"})}}
        await ctx.add([{"role": "assistant", "content": None, "tool_calls": [call]},
                       {"role": "tool", "tool_call_id": f"call_{n}", "content": "line of code\n" * 200}])
    await ctx.flush()
    return ctx


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[300, 1000])
    args = parser.parse_args()
    print(f"{'tool turns':>10} {'messages':>9} {'messages()':>11} {'json.dumps':>11} {'ratio':>6}")
    for turns in args.turns:
        ctx = asyncio.run(history(turns))
        request = ctx.messages()
        facade = seconds(ctx.messages)
        baseline = seconds(lambda: json.dumps(request))  # noqa: B023 - measured before the next turn count
        ratio = facade / baseline
        print(f"{turns:>10} {len(request):>9} {facade * 1000:>9.1f}ms {baseline * 1000:>9.1f}ms {ratio:>5.1f}x")


if __name__ == "__main__":
    main()
