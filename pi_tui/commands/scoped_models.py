"""`/scoped-models` and Ctrl+P / Shift+Ctrl+P: Pi's scoped models. Choose the models the keys cycle
through; with none chosen they cycle through every model that has a key. As in Pi, a choice applies to
this run at once and is saved (as `enabled_models`, Pi's `enabledModels`) only when asked, so closing
the list keeps it for the session and says so. A model whose key is missing is passed over, as in Pi."""

from __future__ import annotations

from pi_tui.ai.models import DEMO_REF, missing_key, parse_model_ref
from pi_tui.commands.context import CommandContext, model_ref
from pi_tui.commands.look import save_setting
from pi_tui.commands.model import base_url_for, keyed_refs, switch_model
from pi_tui.commands.registry import Command
from pi_tui.errors import UserError
from pi_tui.screens.picker import Choice, PickerScreen

SAVE = object()  # the picker's "done" row


def usable(context: CommandContext, ref: str) -> bool:
    """A model the keys may switch to now: known, and its key there (or served by --base-url)."""
    try:
        spec = parse_model_ref(ref, base_url_for(context.runtime.model, ref), context.settings.models)
    except UserError:
        return False
    return missing_key(spec) is None


def chosen_models(context: CommandContext) -> list[str]:
    """The models chosen for Ctrl+P: this session's choice, else the saved one."""
    return list(context.settings.enabled_models if context.scoped_models is None else context.scoped_models)


def cycle(context: CommandContext) -> list[str]:
    """The models Ctrl+P goes through, in order: the chosen ones that can be used, else every model with
    a key (the demo only while it runs: switching to it starts a new session)."""
    chosen = [ref for ref in chosen_models(context) if usable(context, ref)]
    if chosen:
        return chosen
    current = model_ref(context.runtime)
    return [ref for ref in keyed_refs(context) if ref != DEMO_REF or current == DEMO_REF]


async def cycle_model(context: CommandContext, step: int) -> None:
    """The next (`step` 1) or previous (-1) model of the cycle; from a model outside it, its first or last."""
    refs, current = cycle(context), model_ref(context.runtime)
    if not refs or (len(refs) == 1 and current in refs):
        scope = "chosen" if chosen_models(context) else "with a key"
        context.notify(f"only one model {scope}: choose the models Ctrl+P cycles with /scoped-models", "warning")
        return
    start = refs.index(current) if current in refs else (-1 if step > 0 else 0)
    if await switch_model(context, refs[(start + step) % len(refs)]):
        await context.note(switched_to(context))


def switched_to(context: CommandContext) -> str:
    """Pi's line after a cycle, in the transcript: the footer alone changes too quietly to be noticed."""
    model, level = context.runtime.model, context.runtime.host.config.thinking_level
    thinking = f" (thinking: {level})" if model.reasoning and level != "off" else ""
    return f"Switched to {model_ref(context.runtime)}{thinking}"


def valid_ref(context: CommandContext, ref: str) -> bool:
    try:
        parse_model_ref(ref)
    except UserError as exc:
        context.notify(str(exc), "error")
        return False
    return True


HINT = "Enter adds or removes · ✓ save writes settings.toml · Esc closes: the choice holds for this session only"


def _choices(candidates: list[str], chosen: list[str], saved: bool) -> list[Choice]:
    done = f"{len(chosen)} chosen" if chosen else "none chosen: Ctrl+P cycles every model with a key"
    rows = [Choice(SAVE, "✓ save", done if saved else f"{done} (not saved)")]
    return rows + [Choice(ref, f"[{'x' if ref in chosen else ' '}] {ref}") for ref in candidates]


def _cycled(chosen: list[str]) -> str:
    return ", ".join(chosen) if chosen else "every model with a key"


async def scoped_models(context: CommandContext, _: str) -> None:
    """Toggle models with Enter (a typed provider/id is added): each toggle applies to this session at
    once, as in Pi; the save row writes them to settings.toml, Esc keeps them for the session only."""
    saved = list(context.settings.enabled_models)
    chosen = chosen_models(context)
    candidates = [ref for ref in keyed_refs(context) if ref != DEMO_REF]
    current: object = SAVE
    while True:
        for ref in chosen:
            if ref not in candidates:
                candidates.append(ref)
        answer = await context.ask(PickerScreen(
            "Models Ctrl+P cycles · type to filter, or a provider/id to add",
            _choices(candidates, chosen, chosen == saved), current=current, custom=lambda text: text, hint=HINT))
        if answer is None or answer is SAVE:
            break
        if answer not in candidates and not valid_ref(context, answer):
            continue
        current = answer
        chosen = [ref for ref in chosen if ref != answer] if answer in chosen else [*chosen, answer]
        context.scoped_models = chosen
    if answer is SAVE:
        await _save(context, chosen)
    elif chosen != saved:
        await context.note(f"Ctrl+P and Shift+Ctrl+P cycle through {_cycled(chosen)} for this session, not saved: "
                           "/scoped-models and ✓ save keep them", "warning")


async def _save(context: CommandContext, chosen: list[str]) -> None:
    error = save_setting(context, ("enabled_models",), chosen)
    if error:
        await context.note(f"/scoped-models: {error} (the choice holds for this session)", "error")
        return
    context.scoped_models = None  # the saved choice is the one in use
    await context.note(f"Ctrl+P and Shift+Ctrl+P now cycle through {_cycled(chosen)} (saved in settings.toml)")


COMMANDS = (Command("scoped-models", "choose the models Ctrl+P cycles through", scoped_models),)
