"""Which model answers: parse `provider/id`, its limits and prices, keys, the offline demo fallback.

Keys come from the environment (litellm reads the same variables) or from models.json's `apiKey`
(`models_json`), and nothing here imports litellm: picking a model must not cost the seconds that
import takes. A model models.json defines is taken from there whole; any other's limits and prices
come from litellm's bundled map (`model_map`), then models.json's `modelOverrides`, and
`[models."provider/id"]` in the settings wins over both.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import replace

from pi_tui.ai.config_values import command_problem, is_command
from pi_tui.ai.errors import MISSING_KEY
from pi_tui.ai.model_map import litellm_providers, model_facts, with_prices_per_million
from pi_tui.ai.models_json import Catalog, catalog
from pi_tui.ai.types import ModelSpec
from pi_tui.errors import UserError
from pi_tui.settings.model import ModelSettings

ModelTable = Mapping[str, ModelSettings]

DEMO_REF = "demo"
# The offline demo's model. Its client is `pi_tui.demo`'s scripted one, which the runtime builds for it:
# choosing the model needs nothing from the demo package.
DEMO_MODEL = ModelSpec(provider="demo", id="demo", context_window=200_000, max_tokens=16_384, api="demo")

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

# other variables litellm also takes the key from: a user who set one of these has a key
_OTHER_KEY_VARIABLES = {"anthropic": ("ANTHROPIC_AUTH_TOKEN",), "gemini": ("GOOGLE_API_KEY",)}
# providers whose credentials are not a `PROVIDER_API_KEY`: the variable that says they are set up
_CREDENTIALS = {"bedrock": "AWS_ACCESS_KEY_ID", "bedrock_converse": "AWS_ACCESS_KEY_ID",
                "sagemaker": "AWS_ACCESS_KEY_ID", "vertex_ai": "GOOGLE_APPLICATION_CREDENTIALS"}

_API_BY_PROVIDER = {"anthropic": "anthropic-messages"}


class ModelRefError(UserError, ValueError):
    """A `--model` value that names no usable model."""


def parse_model_ref(ref: str, base_url: str | None = None, models: ModelTable | None = None) -> ModelSpec:
    """`provider/id` (the id may contain further slashes) or `demo`, with its limits and prices. A model
    models.json defines keeps its own base URL; `base_url` (`--base-url`) is for any other."""
    text = ref.strip()
    if text == DEMO_REF:
        return DEMO_MODEL
    provider, sep, model_id = text.partition("/")
    if not sep or not provider or not model_id:
        raise ModelRefError(f"model {ref!r} is not of the form provider/id (e.g. anthropic/claude-sonnet-4-5)"
                            " or 'demo'")
    table = catalog()
    custom = table.models.get(f"{provider}/{model_id}")
    if custom is None and base_url is None:
        _refuse_unlisted(provider, model_id, table)
    spec = custom or table.customize(_with_map_facts(ModelSpec(
        provider=provider, id=model_id, api=_API_BY_PROVIDER.get(provider, "openai-completions"), base_url=base_url)))
    return _with_settings(spec, (models or {}).get(spec.ref))


def _refuse_unlisted(provider: str, model_id: str, table: Catalog) -> None:
    """Pi calls only the models a models.json provider lists: another name would reach its server under a
    guessed window. A provider litellm knows keeps its other models, as Pi's built-in providers do."""
    listed = [spec.id for spec in table.models.values() if spec.provider == provider]
    if not listed or provider in PROVIDERS or provider in litellm_providers():
        return
    raise ModelRefError(f"models.json's provider {provider} has no model {model_id!r}: it has {', '.join(listed)};"
                        " add the model to models.json, or give --base-url to reach a server by any model name")


def _with_map_facts(spec: ModelSpec) -> ModelSpec:
    facts = model_facts(spec.provider, spec.id)
    if facts is None:
        return spec
    return replace(spec, context_window=facts.context_window or spec.context_window,
                   max_tokens=facts.max_tokens or spec.max_tokens,
                   reasoning=spec.reasoning if facts.reasoning is None else facts.reasoning, prices=facts.prices)


def _with_settings(spec: ModelSpec, override: ModelSettings | None) -> ModelSpec:
    if override is None:
        return spec
    return replace(
        spec, context_window=override.context_window or spec.context_window,
        max_tokens=override.max_tokens or spec.max_tokens,
        reasoning=spec.reasoning if override.reasoning is None else override.reasoning,
        prices=with_prices_per_million(spec.prices, override.input_cost, override.output_cost,
                                       override.cache_read_cost, override.cache_write_cost))


def limits_notice(spec: ModelSpec, models: ModelTable | None = None) -> str | None:
    """One line when neither litellm's map nor the settings give the model's context window."""
    override = (models or {}).get(spec.ref)
    table = catalog()
    changed = table.overrides.get(spec.ref)
    if spec.provider == "demo" or spec.ref in table.models or model_facts(spec.provider, spec.id) is not None or (
            override is not None and override.context_window) or (changed is not None and changed.context_window):
        return None
    return (f"{spec.ref} is not in litellm's model map: assuming a {spec.context_window:,}-token context window"
            f' and {spec.max_tokens:,} output tokens; set context_window and max_tokens under [models."{spec.ref}"]'
            " in settings.toml")


def check_provider(spec: ModelSpec) -> None:
    """Refuse, before any request, a provider litellm does not know: litellm's own refusal is several
    lines long and comes back as if the provider had answered. A `--base-url` server takes any name."""
    if spec.provider in (DEMO_REF, *PROVIDERS) or spec.base_url:
        return
    known = litellm_providers()
    if not known or spec.provider in known:
        return
    close = difflib.get_close_matches(spec.provider, sorted(known), n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    raise ModelRefError(f"unknown provider {spec.provider!r} in {spec.ref}: {hint}use {', '.join(PROVIDERS)}"
                        f" (or another of litellm's {len(known)} providers), or give --base-url for an"
                        " OpenAI-compatible server")


def key_variable(provider: str) -> str:
    """The environment variable litellm reads the provider's key from."""
    if provider in PROVIDERS:
        return PROVIDERS[provider][0]
    return _CREDENTIALS.get(provider, f"{provider.upper()}_API_KEY")


def _key_names(provider: str) -> tuple[str, ...]:
    return key_variable(provider), *_OTHER_KEY_VARIABLES.get(provider, ())


def environment_key(provider: str) -> bool:
    return any(os.environ.get(name) for name in _key_names(provider))


def has_key(provider: str) -> bool:
    """A key in the environment, or an `apiKey` in models.json (which, by Pi's rule, always gives one
    unless it is a command)."""
    change = catalog().providers.get(provider)
    return environment_key(provider) or bool(change and change.key_source and not is_command(change.key_source))


def models_json_key_applies(spec: ModelSpec) -> bool:
    """Whether a request for `spec` uses models.json's `apiKey`: Pi's order puts a built-in provider's
    own environment variable first."""
    return bool(spec.key_source) and not (spec.provider in PROVIDERS and environment_key(spec.provider))


def missing_key(spec: ModelSpec) -> str | None:
    """The line to show instead of sending a request that can only fail for lack of a key, or None.
    Only providers known to need one are checked: a local server (`--base-url`) needs none."""
    if spec.key_source and is_command(spec.key_source) and models_json_key_applies(spec):
        return f"{MISSING_KEY}{command_problem(spec.provider, 'apiKey')}"
    if spec.provider not in PROVIDERS or spec.base_url or spec.key_source or has_key(spec.provider):
        return None
    return f"{MISSING_KEY}{spec.provider}: set {key_variable(spec.provider)}"


class MissingKeyError(UserError):
    """A prompt for a model whose key is missing: refused before anything is written or sent."""


def require_key(spec: ModelSpec) -> None:
    """Raise MissingKeyError with `missing_key`'s line; Pi checks the key before a prompt starts too."""
    if problem := missing_key(spec):
        raise MissingKeyError(problem)


def available_providers() -> list[str]:
    return [name for name in PROVIDERS if has_key(name)]


def keyed_models() -> list[str]:
    """The models pi-tui may pick unasked, in Pi's order: each built-in provider with a key's usual model,
    then models.json's own models whose key is there."""
    usual = (f"{provider}/{PROVIDERS[provider][1]}" for provider in available_providers())
    custom = (ref for ref, spec in catalog().models.items() if has_key(spec.provider))
    return list(dict.fromkeys([*usual, *custom]))


def choose_model(requested: str | None, default: str | None, base_url: str | None = None,
                 models: ModelTable | None = None, recorded: str | None = None) -> tuple[ModelSpec, list[str]]:
    """The model to use, and one-line notices: we fell back to the demo (and how to change that), or
    the model's limits are guesses. `requested` (`--model`) must be usable; `recorded`, the model a
    continued session last used, is kept when pi-tui can call it and otherwise replaced, as Pi does
    on resume, by the model chosen without it, with a notice naming it: the recording is no reason to
    refuse to open the session."""
    if recorded and not requested:
        problem = restore_problem(recorded, base_url, models)
        if problem is None:
            return choose_model(recorded, default, base_url, models)
        chosen, notices = choose_model(None, default, base_url, models)
        using = DEMO_REF if chosen.provider == DEMO_REF else chosen.ref
        return chosen, [f"could not restore model {recorded} ({problem}): using {using}", *notices]
    spec, picked = _pick(requested, default, base_url, models)
    if spec is None:
        notice = ("no API key found: using the offline demo model. For a real model set e.g. ANTHROPIC_API_KEY"
                  " and run with --model anthropic/claude-sonnet-4-5")
        return parse_model_ref(DEMO_REF), [notice]
    check_provider(spec)
    limits = limits_notice(spec, models)
    return spec, [line for line in (picked, limits) if line]


def restore_problem(ref: str, base_url: str | None, models: ModelTable | None) -> str | None:
    """Why pi-tui cannot call the recorded model `ref` (unknown provider, no key), or None."""
    try:
        spec = parse_model_ref(ref, base_url, models)
    except ModelRefError as exc:
        return str(exc)
    try:
        check_provider(spec)
    except ModelRefError:
        return f"unknown provider {ref.partition('/')[0]!r}"
    return f"no key: set {key_variable(spec.provider)}" if missing_key(spec) else None


def _pick(requested: str | None, default: str | None, base_url: str | None,
          models: ModelTable | None) -> tuple[ModelSpec | None, str | None]:
    """The model, and when pi-tui picked it unasked (Pi's first available model), the line saying which
    and why: a user with one key set should not have to wonder what answers."""
    if requested:
        return parse_model_ref(requested, base_url, models), None
    why = "no --model or default_model chose one"
    if default:
        try:
            spec = parse_model_ref(default, base_url, models)
        except ModelRefError as exc:
            why = f"default_model {default}: {exc}"
        else:
            if spec.provider == DEMO_REF or has_key(spec.provider) or base_url:
                return spec, None
            why = f"default_model {default} has no key (set {key_variable(spec.provider)})"
    refs = keyed_models()
    if not refs:
        return None, None
    spec = parse_model_ref(refs[0], models=models)
    return spec, f"model {spec.ref}, the first with a key ({_key_origin(spec)}): {why}"


def _key_origin(spec: ModelSpec) -> str:
    """Where the model's key comes from, named without its value."""
    if not models_json_key_applies(spec):
        return next((name for name in _key_names(spec.provider) if os.environ.get(name)), "environment")
    source = spec.key_source or ""
    return f"{source} via models.json" if os.environ.get(source) else "models.json's apiKey"
