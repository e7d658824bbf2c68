"""condense: the context pruning engine, usable by any Python agent.

The condense-engine distribution: it depends on pydantic and filelock only, never imports textual, and
imports litellm only in `condense.litellm_summary` (the `[litellm]` extra) when a summary is asked for. It
reaches its agent through the small Protocol in `condense.host`. Agents that only hold a list of messages use
the facades (`OpenAICondenser`, `AnthropicCondenser`): see docs/LIBRARY.md.

The public names below load on first use (PEP 562), so importing one light module such as
`condense.messages` does not pay for the engine, the pydantic configuration and the facades: pi-tui's
first frame needs only those light modules.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from condense.adapters import from_anthropic, from_openai, to_anthropic, to_openai
    from condense.config import CondenseConfig
    from condense.engine import CondenseEngine
    from condense.entry_log import EntryLog, FileLog, MemoryLog
    from condense.errors import (
        CondenseError,
        ConfigError,
        MessageError,
        StoreFormatError,
        StoreInUseError,
        StoreWriteError,
    )
    from condense.facade import AnthropicCondenser, Condenser, OpenAICondenser
    from condense.flush import BatchFilter, FlushResult
    from condense.host import CancelSignal, CompletionEvent, ContextUsage, Host
    from condense.inspect import (
        CallMark,
        CallView,
        ChainMark,
        ChainView,
        PruneTree,
        SummaryView,
        call_mark,
        chain_marks,
        prune_tree,
        unknown_refs,
    )
    from condense.local_host import LocalHost, ModelAccess, SummaryFunction
    from condense.prune_result import PruneResult
    from condense.summarize import SummarizerAborted, SummaryHook

__version__ = "0.1.0"  # the one source of the version: the condense-engine distribution's metadata reads it

_HOME = {  # public name -> the module that defines it
    "from_anthropic": "adapters", "from_openai": "adapters",
    "to_anthropic": "adapters", "to_openai": "adapters", "CondenseConfig": "config",
    "CondenseEngine": "engine", "AnthropicCondenser": "facade", "Condenser": "facade",
    "OpenAICondenser": "facade", "FlushResult": "flush", "CancelSignal": "host", "CompletionEvent": "host",
    "ContextUsage": "host", "Host": "host", "LocalHost": "local_host", "ModelAccess": "local_host",
    "SummaryFunction": "local_host", "PruneResult": "prune_result", "BatchFilter": "flush", "SummaryHook": "summarize",
    "EntryLog": "entry_log", "FileLog": "entry_log", "MemoryLog": "entry_log",
    "StoreInUseError": "errors", "StoreWriteError": "errors", "CondenseError": "errors", "ConfigError": "errors",
    "StoreFormatError": "errors", "MessageError": "errors", "SummarizerAborted": "summarize",
    "CallMark": "inspect", "CallView": "inspect", "ChainMark": "inspect", "ChainView": "inspect",
    "PruneTree": "inspect", "SummaryView": "inspect", "call_mark": "inspect", "chain_marks": "inspect",
    "prune_tree": "inspect", "unknown_refs": "inspect",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'condense' has no attribute {name!r}")
    value = getattr(import_module(f"condense.{_HOME[name]}"), name)
    globals()[name] = value  # later uses skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "AnthropicCondenser",
    "BatchFilter",
    "CallMark",
    "CallView",
    "CancelSignal",
    "ChainMark",
    "ChainView",
    "CompletionEvent",
    "CondenseConfig",
    "CondenseEngine",
    "CondenseError",
    "Condenser",
    "ConfigError",
    "ContextUsage",
    "EntryLog",
    "FileLog",
    "FlushResult",
    "Host",
    "LocalHost",
    "MemoryLog",
    "MessageError",
    "ModelAccess",
    "OpenAICondenser",
    "PruneResult",
    "PruneTree",
    "StoreFormatError",
    "StoreInUseError",
    "StoreWriteError",
    "SummarizerAborted",
    "SummaryFunction",
    "SummaryHook",
    "SummaryView",
    "__version__",
    "call_mark",
    "chain_marks",
    "from_anthropic",
    "from_openai",
    "prune_tree",
    "to_anthropic",
    "to_openai",
    "unknown_refs",
]
