"""`/model`: choose the model (a searchable picker, or a typed provider/id), rebuilding the runtime."""

from __future__ import annotations

from condense.stats import format_tokens
from pi_tui.ai.models import DEMO_REF, PROVIDERS, available_providers, missing_key, parse_model_ref
from pi_tui.ai.models_json import catalog
from pi_tui.ai.types import ModelSpec
from pi_tui.commands.context import CommandContext, idle_or_warn, model_ref
from pi_tui.commands.registry import Command
from pi_tui.commands.session import rebuild
from pi_tui.errors import UserError
from pi_tui.runtime.launch import LaunchOptions
from pi_tui.screens.picker import Choice, PickerScreen


def model_choices(context: CommandContext) -> list[Choice]:
    """The demo, one model per provider with a key, models.json's models, and the current model, with
    their context windows."""
    current_ref = model_ref(context.runtime)
    refs = [DEMO_REF, *(f"{p}/{PROVIDERS[p][1]}" for p in available_providers()), *catalog().models]
    if current_ref not in refs:
        refs.append(current_ref)
    models = context.settings.models
    return [Choice(ref, ref, "offline scripted demo" if ref == DEMO_REF else
                   f"{format_tokens(parse_model_ref(ref, models=models).context_window)} context") for ref in refs]


async def model(context: CommandContext, args: str) -> None:
    current_ref = model_ref(context.runtime)
    ref = args if "/" in args or args == DEMO_REF else await context.ask(PickerScreen(
        "Model · Enter on a typed provider/id uses it", model_choices(context), query=args,
        current=current_ref, custom=lambda text: text))
    if ref and ref != current_ref:
        await switch_model(context, ref)


def base_url_for(current: ModelSpec, ref: str) -> str | None:
    """A server named with --base-url serves its own provider's models; another provider is its own service."""
    return current.base_url if current.base_url and ref.partition("/")[0] == current.provider else None


async def switch_model(context: CommandContext, ref: str) -> None:
    """The same session on another model: the runtime is rebuilt and the change recorded in the session."""
    if not idle_or_warn(context, "/model"):
        return
    current = context.runtime.model
    base_url = base_url_for(current, ref)
    try:
        spec = parse_model_ref(ref, base_url)
    except UserError as exc:
        context.notify(str(exc), "error")
        return
    if problem := missing_key(spec):  # said now, not after the next prompt fails
        context.notify(problem, "error")
        return
    if spec.provider == "demo" and current.provider != "demo":
        # the demo edits files: it gets its own copy of the sample project, never this folder
        await rebuild(context, "new", LaunchOptions(model=DEMO_REF, launch_dir=context.launch_dir))
        context.notify("demo: started a new session on a copy of the sample project")
        return
    session = context.runtime.host.session
    options = LaunchOptions(model=ref, base_url=base_url, launch_dir=context.launch_dir)
    runtime = await rebuild(context, "reload", options, session)
    if runtime is None:
        return
    if runtime.host.session.build_context().model != (spec.provider, spec.id):
        runtime.host.session.append_model_change(spec.provider, spec.id)
    context.notify(f"model: {ref}")
    context.status_changed()


COMMANDS = (
    Command("model", "choose the model (searchable)", model,
            lambda context: {choice.label: choice.description for choice in model_choices(context)}),
)
