"""Context window, output limit and prices of a model, from litellm's bundled model map.

litellm ships the map as a JSON file inside its package. Reading that file directly gives the same
figures `litellm.get_model_info` would, without the seconds `import litellm` costs and without the
network (the map is never fetched): the footer, the budget trigger and `/model` need the real window
before the first request, often before litellm has been imported at all.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAP_FILE = "model_prices_and_context_window_backup.json"
ROUTERS = frozenset({"openrouter"})  # providers whose ids are `vendor/model`
PER_MILLION = 1_000_000  # settings and providers list prices per million tokens; the map per token


@dataclass(frozen=True)
class Prices:
    """Dollars per token, as litellm's map gives them."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


@dataclass(frozen=True)
class ModelFacts:
    """What the map says about one model; None where it says nothing."""

    context_window: int | None
    max_tokens: int | None
    reasoning: bool | None
    prices: Prices


def _package_file(name: str) -> Path | None:
    """A file of the installed litellm package, found without importing it."""
    spec = importlib.util.find_spec("litellm")
    folders = list(spec.submodule_search_locations or []) if spec else []
    return next((Path(f) / name for f in folders if (Path(f) / name).is_file()), None)


def _map_path() -> Path | None:
    return _package_file(MAP_FILE)


_ENUM_MEMBER = re.compile(r'^\s+[A-Z0-9_]+\s*=\s*"([^"]+)"', re.MULTILINE)


@functools.cache
def litellm_providers() -> frozenset[str]:
    """Every provider name the installed litellm accepts in `provider/model`: its `LlmProviders` enum
    (read from the source text: importing litellm costs seconds), the providers it configures from
    JSON, and the owners of the map's entries. Empty when litellm cannot be read."""
    names: set[str] = {str(v.get("litellm_provider")) for v in bundled_map().values() if v.get("litellm_provider")}
    source = _package_file("types/utils.py")
    with contextlib.suppress(OSError, ValueError):
        text = source.read_text(encoding="utf-8") if source else ""
        start = text.find("class LlmProviders(")
        end = text.find("\n\n\n", start)
        if start >= 0:
            names.update(_ENUM_MEMBER.findall(text[start:end]))
        json_providers = _package_file("llms/openai_like/providers.json")
        if json_providers is not None:
            names.update(json.loads(json_providers.read_text(encoding="utf-8")))
    return frozenset(names)


@functools.cache
def bundled_map() -> dict[str, dict[str, Any]]:
    """The installed litellm's map, read once; empty when litellm or its file is missing or unreadable
    (every model is then unknown, which the caller reports: it is not worth failing a start over)."""
    path = _map_path()
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


@functools.cache
def _keys_by_lowercase() -> dict[str, str]:
    return {key.lower(): key for key in bundled_map()}


def _provider_matches(entry: dict[str, Any], provider: str) -> bool:
    """litellm's rule: an entry of another provider only counts within the same family (vertex_ai-*)."""
    owner = entry.get("litellm_provider")
    return owner is None or owner == provider or str(owner).startswith(f"{provider}-")


def map_entry(provider: str, model_id: str) -> dict[str, Any] | None:
    """The map's entry for `provider/model_id`, looked up in litellm's order: the provider-prefixed
    key (`gemini/gemini-2.5-pro`), then the bare id (`claude-sonnet-4-5`) when that entry belongs to
    the same provider; keys match case-insensitively, as in litellm. A router's model the map does
    not list (`openrouter/anthropic/claude-sonnet-4.5`) is the vendor's model (`claude-sonnet-4-5`):
    same window and output limit, which litellm itself only finds through rules kept in its code."""
    keys = _keys_by_lowercase()
    for candidate in (f"{provider}/{model_id}", model_id):
        key = keys.get(candidate.lower())
        if key is not None and _provider_matches(bundled_map()[key], provider):
            return bundled_map()[key]
    vendor, sep, vendor_id = model_id.partition("/")
    if provider in ROUTERS and sep:
        return map_entry(vendor, vendor_id) or map_entry(vendor, vendor_id.replace(".", "-"))
    return None


def _positive_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _price(entry: dict[str, Any], key: str) -> float:
    value = entry.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def model_facts(provider: str, model_id: str) -> ModelFacts | None:
    """Limits and prices of a model litellm knows, or None for one it does not."""
    entry = map_entry(provider, model_id)
    if entry is None:
        return None
    window = _positive_int(entry.get("max_input_tokens")) or _positive_int(entry.get("max_tokens"))
    output = _positive_int(entry.get("max_output_tokens")) or _positive_int(entry.get("max_tokens"))
    reasoning = entry.get("supports_reasoning")
    prices = Prices(_price(entry, "input_cost_per_token"), _price(entry, "output_cost_per_token"),
                    _price(entry, "cache_read_input_token_cost"), _price(entry, "cache_creation_input_token_cost"))
    return ModelFacts(window, output, reasoning if isinstance(reasoning, bool) else None, prices)
