"""A typed tool loop on the anthropic SDK with condense pruning its history (docs/LIBRARY.md).

The agent hands condense the SDK's own `Message` (its usage is recorded with it) and `tool_use` blocks,
and sends `ctx.messages()` and `ctx.tool` straight to `client.messages.create`: `mypy --strict` accepts
it as written (tests/condense/test_typed_agents.py checks it). With `cache_breakpoints=True` condense
marks the prompt cache's breakpoints itself. Needs ANTHROPIC_API_KEY.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from anthropic import AsyncAnthropic
from anthropic.types import MessageParam, ToolParam, ToolResultBlockParam

from condense import AnthropicCondenser

MODEL = os.environ.get("AGENT_MODEL", "claude-haiku-4-5")
SYSTEM = "Use the read tool to look at files."
READ_TOOL: ToolParam = {"name": "read", "description": "Read a text file", "input_schema": {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}


async def run(client: AsyncAnthropic, ctx: AnthropicCondenser, prompt: str) -> str:
    """One user prompt through the tool loop: every request is condense's pruned history."""
    await ctx.add([{"role": "user", "content": prompt}])
    while True:
        response = await client.messages.create(model=MODEL, max_tokens=2048, system=SYSTEM,
                                                messages=ctx.messages(), tools=[READ_TOOL, ctx.tool])
        results: list[ToolResultBlockParam] = []
        for block in response.content:
            if block.type != "tool_use":
                continue
            if block.name == ctx.tool_name:
                results.append(ctx.answer(block))  # the original output, straight from condense
            else:
                path = str(block.input.get("path"))
                results.append({"type": "tool_result", "tool_use_id": block.id, "content": Path(path).read_text()})
        answers: list[MessageParam] = [{"role": "user", "content": results}] if results else []
        await ctx.add([response, *answers])  # the reply's usage comes with it
        if not results:
            return "".join(block.text for block in response.content if block.type == "text")


async def main(prompts: list[str]) -> None:
    client = AsyncAnthropic()
    with AnthropicCondenser(tempfile.mkdtemp(), model=f"anthropic/{MODEL}", cache_breakpoints=True) as ctx:
        for prompt in prompts:
            print(await run(client, ctx, prompt))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:] or ["What do the files in this folder say?"]))
