"""Whether a summariser model can write summaries here, asked before it is used.

The engine falls back to the session's model when the configured one is not available, so a summariser
with an unknown provider or no key would otherwise be accepted, and the error would come later and name
another provider. `replay`, `whatif` and `/pruner model` ask here first and name the model at fault.
"""

from __future__ import annotations

from pi_tui.ai.errors import MISSING_KEY
from pi_tui.ai.models import DEMO_REF, ModelRefError, check_provider, has_key, key_variable, parse_model_ref
from pi_tui.ai.types import ModelSpec

EXTRACTIVE = "extractive"
DEFAULT = "default"


def unknown_provider(ref: str) -> str | None:
    """The one line refusing `ref` (`provider/id`) when its provider does not exist, or None."""
    try:
        check_provider(parse_model_ref(ref))
    except ModelRefError as exc:
        return str(exc)
    return None


def missing_summarizer_key(spec: ModelSpec) -> str | None:
    """The line naming the key `spec` lacks, or None. Any provider counts: without its key the engine
    would not call it (a `--base-url` server or the demo needs none)."""
    if spec.provider == DEMO_REF or spec.base_url or has_key(spec.provider):
        return None
    return f"{MISSING_KEY}{spec.provider}: set {key_variable(spec.provider)}"


def summarizer_problem(ref: str, session: ModelSpec | None) -> str | None:
    """Why summariser `ref` ("extractive", "default" or `provider/id`) cannot write summaries for a
    session whose model is `session`, in one line naming the model; None when it can."""
    if ref == EXTRACTIVE:
        return None
    if ref == DEFAULT:
        if session is None or session.provider == "unknown":
            return "the session records no model to summarise with; name one (provider/id) or use extractive"
        problem = missing_summarizer_key(session)
        return f"the session's model {session.ref}: {problem}" if problem else None
    unknown = unknown_provider(ref)
    if unknown:
        return unknown
    missing = missing_summarizer_key(parse_model_ref(ref))
    return f"{ref}: {missing}" if missing else None
