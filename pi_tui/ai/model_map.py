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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAP_FILE = "model_prices_and_context_window_backup.json"
RULES_KEY = "fallback_generalizations"  # the map's block of rules for models it does not list yet
_DATED = re.compile(r"-\d{4}-\d{2}-\d{2}$")
_VERSION = re.compile(r"-\d+$")
_NUMBERED_VERSIONS = frozenset({"gemini", "vertex_ai", "databricks"})
ROUTERS = frozenset({"openrouter"})  # providers whose ids are `vendor/model`
CALLED_AS = {"bedrock_converse": "bedrock"}  # a provider of the map's that litellm is called through another
PER_MILLION = 1_000_000  # settings and providers list prices per million tokens; the map per token


@dataclass(frozen=True)
class Prices:
    """Dollars per token, as litellm's map gives them."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


def _per_token(per_million: float | None, fallback: float) -> float:
    return fallback if per_million is None else per_million / PER_MILLION


def with_prices_per_million(base: Prices, input_cost: float | None, output_cost: float | None,
                            cache_read_cost: float | None, cache_write_cost: float | None) -> Prices:
    """`base` with the prices a user wrote (per million tokens: settings, models.json) where given."""
    return Prices(_per_token(input_cost, base.input), _per_token(output_cost, base.output),
                  _per_token(cache_read_cost, base.cache_read), _per_token(cache_write_cost, base.cache_write))


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
def _raw_map() -> dict[str, Any]:
    path = _map_path()
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@functools.cache
def bundled_map() -> dict[str, dict[str, Any]]:
    """The installed litellm's map, read once; empty when litellm or its file is missing or unreadable
    (every model is then unknown, which the caller reports: it is not worth failing a start over).
    A row `{"alias_of": name}` (`claude-sonnet-latest`) is served as the row it names, as litellm
    serves it; one that names no model row is dropped, as litellm drops it."""
    rows = {k: v for k, v in _raw_map().items() if isinstance(v, dict) and k != RULES_KEY}
    served = {k: rows.get(v["alias_of"]) if "alias_of" in v else v for k, v in rows.items()}
    return {k: v for k, v in served.items() if isinstance(v, dict) and "alias_of" not in v}


@dataclass(frozen=True)
class _Rule:
    """One of the map's capability rules: what litellm assumes of a model its map does not list yet
    (`claude-opus-4-1`), and fills into a listed model's entry for the providers in `fill_for`."""

    pattern: re.Pattern[str]
    info: dict[str, Any]
    fill_for: frozenset[str]


def _rule(raw: Any) -> _Rule | None:
    """A capability rule as litellm installs it; routing rules, old-format and malformed ones are skipped."""
    if not isinstance(raw, dict) or "extends" in raw:
        return None
    pattern, info, fill_for = raw.get("pattern"), raw.get("model_info"), raw.get("fill_missing_for_providers", [])
    if not isinstance(pattern, str) or not isinstance(info, dict) or "litellm_provider" in info:
        return None
    if not isinstance(fill_for, list) or not all(isinstance(p, str) for p in fill_for):
        return None
    try:
        return _Rule(re.compile(pattern, re.IGNORECASE), info, frozenset(fill_for))
    except re.error:
        return None


@functools.cache
def _rules() -> tuple[_Rule, ...]:
    block = _raw_map().get(RULES_KEY)
    raw = block.get("rules") if isinstance(block, dict) else None
    return tuple(r for r in map(_rule, raw if isinstance(raw, list) else []) if r is not None)


def _union(rules: Iterable[_Rule], name: str) -> dict[str, Any]:
    """Every matching rule's facts, later rules winning, as litellm merges them."""
    return {k: v for rule in rules if rule.pattern.search(name) for k, v in rule.info.items()}


@functools.cache
def _keys_by_lowercase() -> dict[str, str]:
    return {key.lower(): key for key in bundled_map()}


def _provider_matches(entry: dict[str, Any], provider: str) -> bool:
    """litellm's rule: an entry of another provider only counts within the same family (vertex_ai-*)."""
    owner = entry.get("litellm_provider")
    return owner is None or owner == provider or str(owner).startswith(f"{provider}-")


def _candidates(provider: str, model_id: str) -> list[str]:
    """The names litellm tries for `provider/model_id`, in its order: with and without the provider,
    then without a date suffix (`-2024-08-06`; Gemini's and Vertex's numeric version `-001`), then the
    provider repeated, for providers whose own ids start with their name."""
    version = _VERSION if provider in _NUMBERED_VERSIONS else _DATED
    stripped = version.sub("", model_id)
    return [f"{provider}/{model_id}", model_id, f"{provider}/{stripped}", stripped, f"{provider}/{provider}/{model_id}"]


def _filled(key: str, entry: dict[str, Any]) -> dict[str, Any]:
    """A listed chat model's entry with what the rules flagged for its provider add (the entry wins)."""
    owner = entry.get("litellm_provider")
    if entry.get("mode", "chat") not in ("chat", "responses") or not isinstance(owner, str):
        return entry
    extra = _union((r for r in _rules() if owner in r.fill_for), key)
    return {**extra, **entry} if extra else entry


def map_entry(provider: str, model_id: str, guess: bool = True) -> dict[str, Any] | None:
    """The map's entry for `provider/model_id`, found as `litellm.get_model_info` finds it: the first
    of `_candidates` the map lists (keys match case-insensitively) for the same provider; failing
    that, when the map lists none of them at all, what the map's rules say of a model it does not list
    yet (`claude-opus-4-1`: a Claude, 200k), unless `guess` is False. A router's model the map does not list
    (`openrouter/anthropic/claude-sonnet-4.5`) is the vendor's model (`claude-sonnet-4-5`): same window
    and output limit, which litellm itself only finds through rules kept in its code."""
    keys = _keys_by_lowercase()
    candidates = _candidates(provider, model_id)
    listed = [keys[c.lower()] for c in candidates if c.lower() in keys]
    for key in listed:
        if _provider_matches(bundled_map()[key], provider):
            return _filled(key, bundled_map()[key])
    vendor, sep, vendor_id = model_id.partition("/")
    if provider in ROUTERS and sep:
        dashed = vendor_id.replace(".", "-")
        return map_entry(vendor, vendor_id, False) or map_entry(vendor, dashed, False) or map_entry(vendor, dashed)
    if listed or not guess:  # another provider's model: litellm does not guess from the rules either
        return None
    for candidate in candidates:
        facts = _union(_rules(), candidate)
        if facts:
            return {**facts, "litellm_provider": provider}
    return None


@dataclass(frozen=True)
class KnownModel:
    """A chat model of the map, as `/model` lists it."""

    provider: str
    id: str
    context_window: int | None

    @property
    def ref(self) -> str:
        return f"{self.provider}/{self.id}"


@functools.cache
def chat_models() -> tuple[KnownModel, ...]:
    """Every chat model litellm's map lists, once each, as the `provider/id` litellm is called with: the
    map's own prefix where a name has one (`vertex_ai/claude-sonnet-4-5`, whose entry's provider reads
    `vertex_ai-anthropic_models`), else its provider in front (`claude-sonnet-4-5` is Anthropic's; a
    family's `vertex_ai-language-models` is `vertex_ai`, and `bedrock_converse` is `bedrock`)."""
    models: dict[str, KnownModel] = {}
    for key, entry in bundled_map().items():
        provider = entry.get("litellm_provider")
        if not isinstance(provider, str) or entry.get("mode", "chat") not in ("chat", "responses"):
            continue
        family = provider.partition("-")[0]
        provider = family if family != provider and family in litellm_providers() else provider
        provider = CALLED_AS.get(provider, provider)
        prefix, slash, rest = key.partition("/")
        provider, model_id = (prefix, rest) if slash and prefix != provider and not key.startswith(
            f"{provider}/") else (provider, key.removeprefix(f"{provider}/"))
        window = _positive_int(entry.get("max_input_tokens")) or _positive_int(entry.get("max_tokens"))
        model = KnownModel(provider, model_id, window)
        models.setdefault(model.ref, model)
    return tuple(models.values())


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
