"""condense: the context pruning engine, usable by any Python agent.

Depends on the standard library and pydantic only; it never imports textual or litellm and reaches
its agent through the small Protocol in `condense.host`. Agents that only hold a list of messages use
the facades (`OpenAICondenser`, `AnthropicCondenser`): see docs/LIBRARY.md.
"""

from importlib.metadata import PackageNotFoundError, version

from condense.adapters import MessageError, from_anthropic, from_openai, to_anthropic, to_openai
from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.facade import AnthropicCondenser, Condenser, OpenAICondenser
from condense.flush import FlushResult
from condense.host import CancelSignal, CompletionEvent, ContextUsage, Host
from condense.litellm_summary import litellm_summarizer
from condense.local_host import LocalHost, SummaryFunction

DISTRIBUTION = "pi-tui"  # condense ships inside pi-tui's distribution
FALLBACK_VERSION = "0.1.0"


def _version() -> str:
    """The installed distribution's version; the source tree's own when it is not installed."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return FALLBACK_VERSION


__version__ = _version()

__all__ = [
    "AnthropicCondenser",
    "CancelSignal",
    "CompletionEvent",
    "CondenseConfig",
    "CondenseEngine",
    "Condenser",
    "ContextUsage",
    "FlushResult",
    "Host",
    "LocalHost",
    "MessageError",
    "OpenAICondenser",
    "SummaryFunction",
    "__version__",
    "from_anthropic",
    "from_openai",
    "litellm_summarizer",
    "to_anthropic",
    "to_openai",
]
