"""A typed tool loop on the openai SDK with condense pruning its history (docs/LIBRARY.md).

The agent hands condense the SDK's own objects (the reply's `ChatCompletionMessage`, its tool calls) and
sends `ctx.messages()` and `ctx.tool` straight to `client.chat.completions.create`: `mypy --strict`
accepts it as written (tests/condense/test_typed_agents.py checks it, and runs it against a local
OpenAI-compatible server). Point it at any such server with OPENAI_BASE_URL and OPENAI_API_KEY.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path

from openai import AsyncOpenAI
from openai.types.chat import (
    ChatCompletionFunctionToolParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionToolMessageParam,
)

from condense import OpenAICondenser

MODEL = os.environ.get("AGENT_MODEL", "gpt-4o-mini")
SYSTEM: ChatCompletionSystemMessageParam = {"role": "system", "content": "Use the read tool to look at files."}
READ_TOOL: ChatCompletionFunctionToolParam = {"type": "function", "function": {
    "name": "read", "description": "Read a text file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}


async def run(client: AsyncOpenAI, ctx: OpenAICondenser, prompt: str) -> str:
    """One user prompt through the tool loop: every request is condense's pruned history."""
    await ctx.add([{"role": "user", "content": prompt}])
    while True:
        response = await client.chat.completions.create(model=MODEL, messages=[SYSTEM, *ctx.messages()],
                                                        tools=[READ_TOOL, ctx.tool])
        reply = response.choices[0].message
        results: list[ChatCompletionToolMessageParam] = []
        for call in reply.tool_calls or []:
            if call.type != "function":
                continue
            if call.function.name == ctx.tool_name:
                results.append(ctx.answer(call))  # the original output, straight from condense
            else:
                path = json.loads(call.function.arguments)["path"]
                results.append({"role": "tool", "tool_call_id": call.id, "content": Path(path).read_text()})
        await ctx.add([reply, *results], usage=response.usage)
        if not results:
            return reply.content or ""


async def main(prompts: list[str]) -> None:
    client = AsyncOpenAI()  # OPENAI_BASE_URL, OPENAI_API_KEY
    with OpenAICondenser(tempfile.mkdtemp(), model=f"openai/{MODEL}") as ctx:
        for prompt in prompts:
            print(await run(client, ctx, prompt))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:] or ["What do the files in this folder say?"]))
