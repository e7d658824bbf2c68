"""Price tables and context windows by model name, for pricing recorded requests (`pi-tui whatif`).

A recording names the model that answered each request as litellm keys its map (`claude-opus-4-5`), so
the lookup is by that name, in the same bundled map the live agent reads its limits from (`model_map`,
no litellm import). The tables are the engine's `PriceTable`: the simulator never looks prices up.
"""

from __future__ import annotations

from typing import Any

from condense.simulate import PriceTable
from pi_tui.ai.model_map import bundled_map

DEFAULT_WINDOW = 200_000


def _priced_entry(model: str) -> dict[str, Any] | None:
    entry = bundled_map().get(model)
    return entry if entry is not None and entry.get("input_cost_per_token") else None


def price_table(model: str) -> PriceTable | None:
    """The map's prices for `model`, or None when it has none. A map that has a cache-read price but
    no cache-write price is an OpenAI-style automatic cache, which bills uncached tokens at the plain
    input price."""
    entry = _priced_entry(model)
    if entry is None:
        return None
    input_price = float(entry["input_cost_per_token"])
    read = entry.get("cache_read_input_token_cost")
    write = entry.get("cache_creation_input_token_cost")
    if write is None and read is not None:
        write = input_price
    output_price = float(entry.get("output_cost_per_token") or 0.0)
    return PriceTable.from_prices(model, input_price, output_price, None if read is None else float(read),
                                  None if write is None else float(write))


def context_window(model: str) -> int:
    """The model's input window, the one figure every strategy must fit in; 200k for a model the map
    has no prices for."""
    entry = _priced_entry(model) or {}
    return int(entry.get("max_input_tokens") or DEFAULT_WINDOW)
