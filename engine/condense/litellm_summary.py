"""Summaries from any model litellm can reach, for agents that do not write their own call:
`OpenAICondenser(summarizer=litellm_summarizer("openai/gpt-4o-mini"))` (the `[litellm]` extra).

The only module of condense that imports litellm, and only when the first summary is asked for: importing
condense, or this module, stays light. litellm takes seconds to import, so from an event loop the import
runs in a thread; it is configured once, quietly (its banner would land in the agent's stdout, and it would
fetch its price map from the network). pi-tui's client takes litellm from here too, configured the same way.
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from condense.errors import ConfigError

LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")


@functools.cache
def import_litellm() -> Any:
    """Import and configure litellm once: local price map (never the network), no banners, quiet logs."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    for name in LITELLM_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    return litellm


async def import_litellm_async() -> Any:
    """litellm without blocking the event loop on a first import (or on one still running in a thread)."""
    if import_litellm.cache_info().currsize:
        return import_litellm()
    return await asyncio.to_thread(import_litellm)


def litellm_summarizer(model: str, **completion_args: Any) -> Callable[[str], Awaitable[str]]:
    """A summariser that sends the prompt to `model` through `litellm.acompletion`; `completion_args`
    go along with every call (`api_base`, `api_key`, `temperature`, ...). Keys come from the
    environment as litellm reads them. ConfigError when litellm is not installed, said when the agent is
    set up rather than at its first flush."""
    if importlib.util.find_spec("litellm") is None:
        raise ConfigError(f"condense: litellm_summarizer({model!r}) needs litellm, which is not installed;"
                          " pip install 'condense-engine[litellm]'")

    async def summarize(prompt: str) -> str:
        litellm = await import_litellm_async()
        response = await litellm.acompletion(model=model, messages=[{"role": "user", "content": prompt}],
                                             **completion_args)
        return response.choices[0].message.content or ""

    return summarize
