"""`/pruner` in the TUI: the subcommands that need the terminal (a picker of all of them, the settings
form, the tree of summaries, a flush with live progress rows), and the engine's own text subcommands
(condense/commands.py, the same as in print mode) for the rest."""

from __future__ import annotations

from typing import Any

from condense.commands import HELP as ENGINE_HELP
from condense.commands import NO_ARGUMENT, extra_argument
from condense.config import CondenseConfig
from pi_tui.agent.condense_host import PRUNER_HELP
from pi_tui.ai.summarizer_check import summarizer_problem, unknown_provider
from pi_tui.commands.context import CommandContext, idle_or_warn
from pi_tui.commands.look import save_setting
from pi_tui.commands.registry import Command, Handler
from pi_tui.runtime.build import DEMO_CONDENSE
from pi_tui.screens.form import SettingsFormScreen, field_specs
from pi_tui.screens.picker import Choice, PickerScreen
from pi_tui.screens.pruner_tree import PrunerTreeScreen

SCREENS = {"settings": "every pruning setting, saved as you change it",
           "tree": "browse summaries, chains and the original outputs"}
NEEDS_ARGUMENT = {"model", "thinking", "prune-on", "batching", "protected-tools", "protected-paths",
                  "min-batch-chars", "recovery-grace"}


def subcommands(_: CommandContext) -> dict[str, str]:
    """The screens' subcommands and the engine's, with what each does."""
    return {**SCREENS, **ENGINE_HELP}


async def pruner(context: CommandContext, args: str) -> None:
    name, _, rest = args.partition(" ")
    handler = TERMINAL.get(name)
    refusal = extra_argument(name, rest, NO_ARGUMENT | SCREENS.keys())
    if refusal:
        context.notify(refusal, "error")
    elif handler is not None:
        await handler(context, args)
    else:  # the engine's own subcommands answer through notifications
        await context.runtime.host.prompt(f"/pruner {args}")


async def picker(context: CommandContext, _: str) -> None:
    """Bare `/pruner`: choose a subcommand; one that takes an argument goes to the editor to be completed."""
    sub = await context.ask(PickerScreen(
        "/pruner", [Choice(name, name, description) for name, description in subcommands(context).items()]))
    if not sub:
        return
    if sub in NEEDS_ARGUMENT:
        context.set_editor_text(f"/pruner {sub} ")
    else:
        await pruner(context, sub)


async def tree(context: CommandContext, _: str) -> None:
    runtime = context.runtime
    context.show(PrunerTreeScreen(runtime.engine, runtime.host.session.branch_entries()))


async def settings(context: CommandContext, _: str) -> None:
    """Every `[condense]` setting in a form; a change is saved as `/settings` saves one, and the engine
    takes it from the live settings."""
    runtime = context.runtime

    def change(path: tuple[str, ...], value: Any) -> str | None:
        return save_setting(context, ("condense", *path), value)

    title = "Pruning settings ([condense] in settings.toml)"
    if runtime.model.provider == "demo":
        overrides = ", ".join(f"{key} {value}" for key, value in DEMO_CONDENSE.items())
        title += f"\nthe demo uses {overrides}"  # in memory, while it runs
    # the file's values, not the engine's: those are the demo's while it runs
    context.show(SettingsFormScreen(
        title, field_specs(CondenseConfig), lambda: context.settings.condense.model_dump(mode="json"), change))


async def summarizer_model(context: CommandContext, args: str) -> None:
    """`/pruner model X`: a provider that does not exist is refused; a model whose key is missing is
    kept (the key may come later) with a warning naming it, since the engine uses the session's model
    meanwhile. The demo summarises extractively whatever is saved, so there it changes nothing."""
    ref = args.partition(" ")[2].strip()
    runtime = context.runtime
    problem = unknown_provider(ref) if "/" in ref else None
    if problem:
        context.notify(f"pruner: {problem}", "error")
        return
    if ref and runtime.model.provider == "demo":
        context.notify("pruner: the demo always summarises extractively (it calls no model); choose the"
                       " summariser in a session with a real model", "warning")
        return
    before = runtime.engine.config.summarizer_model
    await runtime.host.prompt(f"/pruner {args}")
    if ref and runtime.engine.config.summarizer_model != before:  # taken, not refused
        problem = summarizer_problem(ref, runtime.model)
        if problem:
            context.notify(f"pruner: {problem}; until then summaries come from {runtime.model.ref}", "warning")


async def flush_now(context: CommandContext, _: str) -> None:
    """`/pruner now` with live rows above the editor, one per batch."""
    if not idle_or_warn(context, "/pruner now"):
        return
    context.clear_progress()
    try:
        with context.working("Summarizing pending tool work… (esc to abort)"):
            result = await context.runtime.engine.flush("manual", sequential=True, progress=context.show_progress)
    finally:
        context.clear_progress(later=True)
    if result.outcome == "empty":
        context.notify("pruner: nothing pending — no batches to summarize")
    elif not result.halted:  # a halted flush has said why, once
        context.notify(f"pruner: {result.outcome}: {result.summarized} of {result.captured} batches summarized")
    context.status_changed()


TERMINAL: dict[str, Handler] = {"": picker, "tree": tree, "settings": settings, "now": flush_now,
                                 "model": summarizer_model}

COMMANDS = (Command("pruner", PRUNER_HELP, pruner, subcommands),)
