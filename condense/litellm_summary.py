"""Summaries from any model litellm can reach, for library users who do not write their own call.

The engine never imports litellm (it is slow to import and not the engine's business): this module
imports it only when the first summary is asked for, so `import condense` stays light.
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
