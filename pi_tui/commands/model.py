"""`/model`: choose the model (a searchable picker, or a typed provider/id), rebuilding the runtime.

The picker lists models.json's own models, then every chat model litellm's map knows, the ones whose
provider has a key first (each provider's usual model leading); each says whether its key is there.
Typing searches them as every picker does (`gpt`, `son45`). A model that cannot be used (no key, a
malformed name, a provider litellm does not know) is refused with one line in the transcript.
"""

from __future__ import annotations

from condense.stats import format_tokens
from pi_tui.ai.model_map import KnownModel, chat_models
from pi_tui.ai.models import (
    DEMO_REF,
    PROVIDERS,
    check_provider,
    has_key,
    key_variable,
    keyed_models,
    missing_key,
    parse_model_ref,
)
from pi_tui.ai.models_json import catalog
from pi_tui.ai.types import ModelSpec
from pi_tui.commands.context import CommandContext, idle_or_warn, model_ref
from pi_tui.commands.registry import Command
from pi_tui.commands.session import rebuild
from pi_tui.errors import UserError
from pi_tui.runtime.launch import LaunchOptions
from pi_tui.screens.picker import Choice, PickerScreen


def _listed_first(model: KnownModel, keys: dict[str, bool]) -> tuple[bool, bool]:
    """Models with a key first, and of those each provider's usual model before its others."""
    usual = PROVIDERS.get(model.provider, ("", ""))[1] == model.id
    return not keys[model.provider], not usual


def _choice(ref: str, window: int | None, keyed: bool, where: str = "") -> Choice:
    context = f"{format_tokens(window)} context · " if window else ""
    key = "✓ key" if keyed else f"no key: set {key_variable(ref.partition('/')[0])}"
    return Choice(ref, ref, context + where + key)


def keyed_refs(context: CommandContext) -> list[str]:
    """The demo, the models with a key (`keyed_models`) and the current model (what Ctrl+P cycles through
    when no models are chosen)."""
    current_ref = model_ref(context.runtime)
    refs = [DEMO_REF, *keyed_models()]
    return refs if current_ref in refs else [*refs, current_ref]


def model_choices(context: CommandContext) -> list[Choice]:
    """The demo, models.json's models, then every chat model litellm knows (those with a key first), and
    the current model if it is none of them."""
    known = chat_models()
    keys = {provider: has_key(provider) for provider in {model.provider for model in known}}
    custom = catalog().models
    choices = [Choice(DEMO_REF, DEMO_REF, "offline scripted demo"),
               *(_choice(ref, spec.context_window, has_key(spec.provider), "models.json · ")
                 for ref, spec in custom.items())]
    ordered = sorted(known, key=lambda model: _listed_first(model, keys))
    choices += [_choice(model.ref, model.context_window, keys[model.provider]) for model in ordered
                if model.ref not in custom]
    current_ref = model_ref(context.runtime)
    if current_ref not in {choice.value for choice in choices}:
        window = parse_model_ref(current_ref, models=context.settings.models).context_window
        choices.insert(1, Choice(current_ref, current_ref, f"{format_tokens(window)} context · in use"))
    return choices


async def model(context: CommandContext, args: str) -> None:
    current_ref = model_ref(context.runtime)
    ref = args if "/" in args or args == DEMO_REF else await context.ask(PickerScreen(
        f"Model · {len(chat_models())} that litellm knows, ✓ where a key is set · Enter on a typed provider/id"
        " uses it", model_choices(context), query=args, current=current_ref, custom=lambda text: text))
    if ref and ref != current_ref and (switched := await switch_model(context, ref)):
        context.notify(switched)


def base_url_for(current: ModelSpec, ref: str) -> str | None:
    """A server named with --base-url serves its own provider's models; another provider is its own service.
    A models.json model's URL is its provider's, which serves only the models it lists."""
    same_server = current.base_url and ref.partition("/")[0] == current.provider
    return current.base_url if same_server and current.ref not in catalog().models else None


async def switch_model(context: CommandContext, ref: str) -> str | None:
    """The same session on another model: the runtime is rebuilt and the change recorded in the session.
    Returns the line saying what changed, for the caller to show as it shows its work; None when nothing
    changed (a refusal is said here)."""
    if not idle_or_warn(context, "/model"):
        return None
    current = context.runtime.model
    base_url = base_url_for(current, ref)
    refused = f"/model {ref}: not switched, still on {model_ref(context.runtime)}"
    try:
        spec = parse_model_ref(ref, base_url)
        check_provider(spec)
    except UserError as exc:
        context.notify(f"{refused}: {exc}", "error")
        return None
    if problem := missing_key(spec):  # said now, not after the next prompt fails
        context.notify(f"{refused}: {problem}", "error")
        return None
    if spec.provider == "demo" and current.provider != "demo":
        # the demo edits files: it gets its own copy of the sample project, never this folder
        await rebuild(context, "new", LaunchOptions(model=DEMO_REF, launch_dir=context.launch_dir))
        return "demo: started a new session on a copy of the sample project"
    session = context.runtime.host.session
    options = LaunchOptions(model=ref, base_url=base_url, launch_dir=context.launch_dir)
    runtime = await rebuild(context, "reload", options, session)
    if runtime is None:
        return None
    if runtime.host.session.build_context().model != (spec.provider, spec.id):
        runtime.host.session.append_model_change(spec.provider, spec.id)
    context.status_changed()
    return f"model: {ref}"


COMMANDS = (
    Command("model", "choose the model (every model litellm knows, searchable)", model,
            lambda context: {choice.label: choice.description for choice in model_choices(context)}),
)
