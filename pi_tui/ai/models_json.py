"""Pi's models.json: custom providers and models, and changes to built-in ones, read as Pi reads them.

Two files: Pi's (`~/.pi/agent/models.json`) and pi-tui's (`~/.pi-tui/models.json`), in that order; a
provider in pi-tui's file replaces the provider of that name in Pi's. The shape and the checks are
Pi's (`{"providers": {name: {baseUrl, api, apiKey, headers, models: [...], modelOverrides: {...}}}}`):
a provider that defines models needs `baseUrl` and `apiKey` and each model an `api`; one without
models changes a built-in provider (its `baseUrl`, `apiKey`, `headers`) or some of its models'
limits and prices (`modelOverrides`). A file that breaks a rule is reported in one line and nothing in
it is used, as in Pi. `compat` and `authHeader` are accepted and have no effect here.

Each model is called through the litellm provider that speaks its `api` (`ROUTES`), at its base URL.
`apiKey` and header values are kept as written (an environment variable's name or a literal) and
turned into secrets only for a request (`config_values`); a `!command` value, which Pi runs, is
reported instead. The files are read at every use, so
`/model` and `/reload` always see what is on disk.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from condense.plural import counted
from pi_tui.ai.config_values import command_problem, is_command
from pi_tui.ai.model_map import with_prices_per_million
from pi_tui.ai.types import ModelSpec
from pi_tui.paths import home_dir
from pi_tui.redaction import url_with_credentials_hidden
from pi_tui.resources.places import pi_agent_dir

MODELS_FILE = "models.json"
DEFAULT_CONTEXT_WINDOW = 128_000  # Pi's defaults for a custom model that gives none
DEFAULT_MAX_TOKENS = 16_384
# Pi's `api` -> the litellm provider that speaks it (chat completions for both of OpenAI's)
ROUTES = {"openai-completions": "openai", "openai-responses": "openai", "anthropic-messages": "anthropic",
          "google-generative-ai": "gemini"}

Headers = tuple[tuple[str, str], ...]
Contents = bytes | str | None  # a file's bytes, the line saying why it cannot be read, or None: there is none


class _Schema(BaseModel):
    # strict, as Pi's schema check: `"contextWindow": "128000"` is a mistake worth naming
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class Cost(_Schema):
    """Dollars per million tokens."""

    input: float | None = None
    output: float | None = None
    cache_read: float | None = Field(None, alias="cacheRead")
    cache_write: float | None = Field(None, alias="cacheWrite")


class ModelLimits(_Schema):
    """What a model definition and a `modelOverrides` entry share."""

    reasoning: bool | None = None
    cost: Cost | None = None
    context_window: float | None = Field(None, alias="contextWindow")
    max_tokens: float | None = Field(None, alias="maxTokens")
    headers: dict[str, str] | None = None


class _Model(ModelLimits):
    id: str = Field(min_length=1)
    api: str | None = None
    base_url: str | None = Field(None, alias="baseUrl")


class _Provider(_Schema):
    base_url: str | None = Field(None, alias="baseUrl", min_length=1)
    api_key: str | None = Field(None, alias="apiKey", min_length=1)
    api: str | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    models: list[_Model] = Field(default_factory=list)
    model_overrides: dict[str, ModelLimits] = Field(default_factory=dict, alias="modelOverrides")


class _File(_Schema):
    providers: dict[str, _Provider]


@dataclass(frozen=True)
class ProviderChange:
    """What models.json says of a provider for the models it does not list (a built-in provider's, or
    any id of a custom provider): where to reach it, through which API, with which key and headers."""

    base_url: str | None = None
    route: str | None = None
    key_source: str | None = field(default=None, repr=False)
    headers: Headers = field(default=(), repr=False)


@dataclass(frozen=True)
class Catalog:
    models: dict[str, ModelSpec] = field(default_factory=dict)  # `provider/id` -> a custom model
    providers: dict[str, ProviderChange] = field(default_factory=dict)
    overrides: dict[str, ModelLimits] = field(default_factory=dict)  # `provider/id` -> its changed limits
    problems: tuple[str, ...] = ()  # one line each

    def customize(self, spec: ModelSpec) -> ModelSpec:
        """A built-in provider's model as models.json changes it; a base URL given already (the command
        line's) wins over the file's."""
        change = self.providers.get(spec.provider, ProviderChange())
        spec = replace(spec, base_url=spec.base_url or change.base_url, route=change.route or spec.route,
                       key_source=change.key_source or spec.key_source, headers=change.headers or spec.headers)
        override = self.overrides.get(spec.ref)
        return with_limits(spec, override) if override is not None else spec

    def counts(self) -> str:
        """`models.json: 1 provider, 2 models`: what /reload says it read."""
        names = {spec.provider for spec in self.models.values()} | set(self.providers)
        return f"models.json: {counted(len(names), 'provider')}, {counted(len(self.models), 'model')}"


def with_limits(spec: ModelSpec, limits: ModelLimits) -> ModelSpec:
    """`spec` with what `limits` gives (window, output limit, reasoning, prices) in place of its own."""
    cost = limits.cost or Cost()
    return replace(
        spec, context_window=spec.context_window if limits.context_window is None else int(limits.context_window),
        max_tokens=spec.max_tokens if limits.max_tokens is None else int(limits.max_tokens),
        reasoning=spec.reasoning if limits.reasoning is None else limits.reasoning,
        prices=with_prices_per_million(spec.prices, cost.input, cost.output, cost.cache_read, cost.cache_write))


def model_files() -> list[Path]:
    """Pi's file, then pi-tui's (whose providers replace Pi's of the same name)."""
    return [pi_agent_dir() / MODELS_FILE, home_dir() / MODELS_FILE]


def _contents(path: Path) -> Contents:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path}: cannot read it ({exc.strerror or exc})"


def catalog() -> Catalog:
    """What the files hold now: they are small, read at every call, and parsed again only when their
    bytes changed (a clock's granularity could hide an edit from a check of times)."""
    return _load(tuple((path, _contents(path)) for path in model_files()))


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"])
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where + ': ' if where else ''}{first['msg']}{more}"


def _credentials_problem(name: str, provider: _Provider) -> str | None:
    """The line refusing a base URL that carries a user name or password (never shown), or None."""
    for url in (provider.base_url, *(model.base_url for model in provider.models)):
        shown = url_with_credentials_hidden(url or "")
        if shown is not None:
            return (f'provider {name}: "baseUrl" {shown} holds a user name or password, which cannot be sent'
                    ' beside the key: give the URL without it and the key in "apiKey"')
    return None


def _rule_broken(parsed: _File) -> str | None:
    """Pi's checks beyond the shape, as one line, or None."""
    for name, provider in parsed.providers.items():
        if not provider.models and not (provider.base_url or provider.compat or provider.model_overrides):
            return f'provider {name}: give "baseUrl", "compat", "modelOverrides" or "models"'
        if provider.models and not provider.base_url:
            return f'provider {name}: "baseUrl" is required when it defines models'
        if provider.models and not provider.api_key:
            return f'provider {name}: "apiKey" is required when it defines models'
        credentials = _credentials_problem(name, provider)
        if credentials is not None:
            return credentials
        for model in provider.models:
            if not (model.api or provider.api):
                return f'provider {name}, model {model.id}: no "api": set it on the provider or the model'
            for value, key in ((model.context_window, "contextWindow"), (model.max_tokens, "maxTokens")):
                if value is not None and value <= 0:
                    return f"provider {name}, model {model.id}: {key} must be above 0"
    return None


def _parse(path: Path, data: bytes) -> tuple[_File | None, str | None]:
    try:
        parsed = _File.model_validate_json(data)
    except ValidationError as exc:
        return None, f"{path}: {_first_error(exc)}; nothing in it is used"
    broken = _rule_broken(parsed)
    return (None, f"{path}: {broken}; nothing in it is used") if broken else (parsed, None)


def _custom_model(name: str, provider: _Provider, model: _Model) -> ModelSpec | str:
    """The model as pi-tui calls it, or the line saying why it cannot."""
    api = model.api or provider.api or ""
    route = ROUTES.get(api)
    if route is None:
        return (f"{MODELS_FILE}: {name}/{model.id}: pi-tui cannot call api {api!r}; use one of"
                f" {', '.join(ROUTES)}")
    spec = ModelSpec(provider=name, id=model.id, context_window=DEFAULT_CONTEXT_WINDOW,
                     max_tokens=DEFAULT_MAX_TOKENS, api=api, base_url=model.base_url or provider.base_url,
                     route=route, key_source=provider.api_key,
                     headers=tuple({**(provider.headers or {}), **(model.headers or {})}.items()))
    return with_limits(spec, model)


def _command_problems(providers: dict[str, _Provider]) -> list[str]:
    """One line per secret written as a command, which pi-tui does not run (`config_values`)."""
    problems = [command_problem(name, "apiKey") for name, p in providers.items() if p.api_key and is_command(p.api_key)]
    for name, provider in providers.items():
        headers = [provider.headers or {}, *(model.headers or {} for model in provider.models)]
        problems += [command_problem(name, f"header {header}") for table in headers
                     for header, value in table.items() if is_command(value)]
    return problems


@functools.lru_cache(maxsize=4)
def _load(files: tuple[tuple[Path, Contents], ...]) -> Catalog:
    providers: dict[str, _Provider] = {}
    problems: list[str] = []
    for path, contents in files:
        parsed, problem = _parse(path, contents) if isinstance(contents, bytes) else (None, contents)
        problems += [problem] if problem else []
        providers.update(parsed.providers if parsed else {})
    models: dict[str, ModelSpec] = {}
    for name, provider in providers.items():
        for model in provider.models:
            built = _custom_model(name, provider, model)
            if isinstance(built, str):
                problems.append(built)
            else:
                models[built.ref] = built
    problems += _command_problems(providers)
    changes = {name: ProviderChange(p.base_url, ROUTES.get(p.api or ""), p.api_key, tuple((p.headers or {}).items()))
               for name, p in providers.items() if p.base_url or p.api_key or p.headers}
    overrides = {f"{name}/{model_id}": limits for name, p in providers.items()
                 for model_id, limits in p.model_overrides.items()}
    return Catalog(models, changes, overrides, tuple(problems))

