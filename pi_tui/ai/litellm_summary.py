"""Summaries from any model litellm can reach, for agents that use condense as a library and do not
write their own call: `OpenAICondenser(summarizer=litellm_summarizer("openai/gpt-4o-mini"))`.

It lives with pi-tui's model access, not in condense: the engine never imports litellm. litellm is
imported when the first summary is asked for, so importing this module stays light.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pi_tui.ai.litellm_client import import_litellm_async


def litellm_summarizer(model: str, **completion_args: Any) -> Callable[[str], Awaitable[str]]:
    """A summariser that sends the prompt to `model` through `litellm.acompletion`; `completion_args`
    go along with every call (`api_base`, `api_key`, `temperature`, ...). Keys come from the
    environment as litellm reads them."""

    async def summarize(prompt: str) -> str:
        litellm = await import_litellm_async()  # quiet: its banner would land in the agent's stdout
        response = await litellm.acompletion(model=model, messages=[{"role": "user", "content": prompt}],
                                             **completion_args)
        return response.choices[0].message.content or ""

    return summarize
