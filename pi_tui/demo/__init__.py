"""The offline demo: a scripted model that works on a copy of a bundled sample project.

It is what a new user sees when no API key is configured, and what tests and benchmarks drive end to
end: real tools, real files, a realistic session shape, and no network.
"""

from __future__ import annotations

from pi_tui.ai.types import ModelSpec

DEMO_MODEL = ModelSpec(provider="demo", id="demo", context_window=200_000, max_tokens=16_384, api="demo")

__all__ = ["DEMO_MODEL"]
