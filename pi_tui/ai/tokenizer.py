"""One tokenizer for every strategy `pi-tui whatif` compares, so their token counts differ only by
what each strategy sends, never by how it is counted.

It is litellm's: the Claude tokenizer litellm bundles, which `litellm.encode` runs through the
`tokenizers` library. whatif reads that file with `tokenizers` itself, finding litellm's package without
importing it (seconds of CPU and a few hundred MB, once per run and in every worker it starts): the same
tokens, pinned by a test against `litellm.encode`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from condense.simulate import CharEncoder, Encoder

TOKENIZER_MODEL = "claude-sonnet-4-5"
BUNDLED = Path("litellm_core_utils", "tokenizers", "anthropic_tokenizer.json")


def bundled_tokenizer() -> Path:
    """Where litellm keeps its Claude tokenizer; found from its package's location, not by importing it."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("litellm is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / BUNDLED


class BundledEncoder:
    """litellm's tokenizer for Claude models, read from its bundled file."""

    units_per_token = 1.0

    def __init__(self, model: str = TOKENIZER_MODEL) -> None:
        from tokenizers import Tokenizer  # a few ms; litellm's own dependency

        self._tokenizer = Tokenizer.from_file(str(bundled_tokenizer()))
        self.name = f"litellm's {model} tokenizer (huggingface_tokenizer)"

    def encode(self, text: str) -> Sequence[Any]:
        ids: Sequence[Any] = self._tokenizer.encode(text).ids
        return ids


def default_encoder() -> Encoder:
    """litellm's tokenizer; offline, when it has none to load, a deterministic estimate that says so
    in its name (the report prints it)."""
    try:
        return BundledEncoder()
    except Exception:
        return CharEncoder()
