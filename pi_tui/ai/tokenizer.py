"""One tokenizer for every strategy `pi-tui whatif` compares, so their token counts differ only by
what each strategy sends, never by how it is counted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from condense.simulate import CharEncoder, Encoder
from pi_tui.ai.litellm_client import import_litellm

TOKENIZER_MODEL = "claude-sonnet-4-5"


class LitellmEncoder:
    """litellm's tokenizer for a fixed model (its bundled Anthropic tokenizer for Claude models)."""

    units_per_token = 1.0

    def __init__(self, model: str = TOKENIZER_MODEL) -> None:
        litellm = import_litellm()
        self._encode = litellm.encode
        self._tokenizer = litellm.utils.select_tokenizer(model=model)
        self.name = f"litellm.encode, {model} tokenizer ({self._tokenizer['type']})"

    def encode(self, text: str) -> Sequence[Any]:
        tokens: Sequence[Any] = self._encode(text=text, custom_tokenizer=self._tokenizer)
        return tokens


def default_encoder() -> Encoder:
    """litellm's tokenizer; offline, when it has none to load, a deterministic estimate that says so
    in its name (the report prints it)."""
    try:
        return LitellmEncoder()
    except Exception:
        return CharEncoder()
