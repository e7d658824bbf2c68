"""Summaries from any model litellm can reach, for agents that use condense as a library and do not
write their own call: `OpenAICondenser(summarizer=litellm_summarizer("openai/gpt-4o-mini"))`.

It lives with pi-tui's model access, not in condense: the engine never imports litellm. litellm is
imported when the first summary is asked for, so importing this module stays light.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any


def litellm_summarizer(model: str, **completion_args: Any) -> Callable[[str], Awaitable[str]]:
    """A summariser that sends the prompt to `model` through `litellm.acompletion`; `completion_args`
    go along with every call (`api_base`, `api_key`, `temperature`, ...). Keys come from the
    environment as litellm reads them."""

    async def summarize(prompt: str) -> str:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never wait on the network to import
        import litellm

        litellm.suppress_debug_info = True  # its "Give Feedback" banner would land in the agent's stdout
        response = await litellm.acompletion(model=model, messages=[{"role": "user", "content": prompt}],
                                             **completion_args)
        return response.choices[0].message.content or ""

    return summarize
