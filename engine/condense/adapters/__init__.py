"""Conversions between other agents' message shapes and Pi's, the shape the engine reads and writes.

An agent that is not Pi holds its history as OpenAI chat-completions messages or Anthropic Messages;
these modules turn them into Pi messages for the engine and the pruned result back into the agent's
shape, so the agent never has to learn Pi's format.
"""

from condense.adapters.anthropic import from_anthropic, to_anthropic
from condense.adapters.common import Clock, llm_messages
from condense.adapters.openai import from_openai, to_openai
from condense.errors import MessageError

__all__ = ["Clock", "MessageError", "from_anthropic", "from_openai", "llm_messages", "to_anthropic", "to_openai"]
