"""Which model answers: parse `provider/id`, find keys, fall back to the offline demo.

Only the environment is consulted for keys (litellm reads the same variables), and nothing here
imports litellm: picking a model must not cost the seconds that import takes.
"""

from __future__ import annotations

import os
from dataclasses import replace

from pi_tui.ai.types import ModelSpec
from pi_tui.errors import UserError

DEMO_REF = "demo"

# provider -> (environment variable holding its key, a sensible default model)
PROVIDERS: dict[str, tuple[str, str]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "claude-sonnet-4-5"),
    "openai": ("OPENAI_API_KEY", "gpt-5.1"),
    "gemini": ("GEMINI_API_KEY", "gemini-2.5-pro"),
    "openrouter": ("OPENROUTER_API_KEY", "anthropic/claude-sonnet-4.5"),
    "deepseek": ("DEEPSEEK_API_KEY", "deepseek-chat"),
    "mistral": ("MISTRAL_API_KEY", "mistral-large-latest"),
    "groq": ("GROQ_API_KEY", "llama-3.3-70b-versatile"),
    "xai": ("XAI_API_KEY", "grok-4"),
}

_API_BY_PROVIDER = {"anthropic": "anthropic-messages"}


class ModelRefError(UserError, ValueError):
    """A `--model` value that names no usable model."""


def parse_model_ref(ref: str, base_url: str | None = None) -> ModelSpec:
    """`provider/id` (the id may contain further slashes) or `demo`."""
    text = ref.strip()
    if text == DEMO_REF:
        from pi_tui.demo import DEMO_MODEL

        return DEMO_MODEL
    provider, sep, model_id = text.partition("/")
    if not sep or not provider or not model_id:
        raise ModelRefError(f"model {ref!r} is not of the form provider/id (e.g. anthropic/claude-sonnet-4-5)"
                            " or 'demo'")
    return ModelSpec(provider=provider, id=model_id, api=_API_BY_PROVIDER.get(provider, "openai-completions"),
                     base_url=base_url)


def has_key(provider: str) -> bool:
    env = PROVIDERS.get(provider, (f"{provider.upper()}_API_KEY", ""))[0]
    return bool(os.environ.get(env))


def available_providers() -> list[str]:
    return [name for name in PROVIDERS if has_key(name)]


def choose_model(requested: str | None, default: str | None, base_url: str | None = None
                 ) -> tuple[ModelSpec, str | None]:
    """The model to use and, when we fell back to the demo, a one-line notice saying how to change it."""
    if requested:
        return parse_model_ref(requested, base_url), None
    if default:
        spec = parse_model_ref(default, base_url)
        if spec.provider == "demo" or has_key(spec.provider) or base_url:
            return spec, None
    for provider in available_providers():
        return parse_model_ref(f"{provider}/{PROVIDERS[provider][1]}"), None
    notice = ("no API key found: using the offline demo model. For a real model set e.g. ANTHROPIC_API_KEY"
              " and run with --model anthropic/claude-sonnet-4-5")
    return parse_model_ref(DEMO_REF), notice


def with_limits(spec: ModelSpec, context_window: int, max_tokens: int, reasoning: bool) -> ModelSpec:
    return replace(spec, context_window=context_window, max_tokens=max_tokens, reasoning=reasoning)
