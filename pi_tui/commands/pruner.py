"""`/pruner` in the TUI: the subcommands that need the terminal (a picker of all of them, the settings
form, the tree of summaries, a flush with live progress rows), and the engine's own text subcommands
(condense/commands.py, the same as in print mode) for the rest."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from condense import prune_tree
from condense.commands import HELP as ENGINE_HELP
from condense.commands import NO_ARGUMENT, extra_argument
from condense.config import CondenseConfig
from condense.plural import counted
from condense.stats import format_tokens
from pi_tui.agent.condense_host import PRUNER_HELP
from pi_tui.ai.summarizer_check import summarizer_problem, unknown_provider
from pi_tui.commands.context import CommandContext, idle_or_warn
from pi_tui.commands.look import save_setting
from pi_tui.commands.registry import Command, Handler
from pi_tui.runtime.build import DEMO_CONDENSE, Runtime
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


@dataclass(frozen=True)
class Pruned:
    """What condense has pruned on the branch at one moment: a flush's line says what it added."""

    summaries: int
    outputs: int
    chains: int
    folds: int
    saved_tokens: int  # what pruning keeps out of the next request

    @classmethod
    def of(cls, runtime: Runtime) -> Pruned:
        tree = prune_tree(runtime.engine, runtime.host.session.branch_entries())
        reclaim = runtime.engine.stats.live_reclaim()
        return cls(len(tree.summaries), tree.call_count, len(tree.chains), len(tree.folds),
                   reclaim.saved_tokens if reclaim else 0)


async def flush_now(context: CommandContext, _: str) -> None:
    """`/pruner now` with live rows above the editor, one per batch, and a line in the transcript when it
    ends: the rows go, and a toast or the footer alone left no trace of what it did."""
    if not idle_or_warn(context, "/pruner now"):
        return
    runtime = context.runtime
    before = Pruned.of(runtime)
    context.clear_progress()
    try:
        with context.working("Summarizing pending tool work… (esc to abort)"):
            result = await runtime.engine.flush("manual", sequential=True, progress=context.show_progress)
    finally:
        context.clear_progress(later=True)
    if result.outcome == "empty":
        await context.note(f"/pruner now: nothing to do: {nothing_pending(runtime, before)}")
    elif result.outcome == "already-flushing":
        await context.note("/pruner now: a flush is already running; the footer shows what it saves when it ends")
    elif result.outcome not in ("error", "summarizer-failed") and not result.halted:  # those said why, once
        await context.note(f"/pruner now: {what_it_did(before, Pruned.of(runtime))}")
    context.status_changed()


def nothing_pending(runtime: Runtime, pruned: Pruned) -> str:
    """Why a flush found no work."""
    if not runtime.engine.config.enabled:
        return "pruning is off (/pruner on turns it on)"
    roles = [message["role"] for message in runtime.host.session.messages()]
    outputs = roles.count("toolResult")
    if not outputs and "compactionSummary" in roles:
        return "the model reads no tool output since the compaction, whose summary stands for the work before it"
    if not outputs:
        return "the conversation has no tool output yet"
    done = f"; {pruned.outputs} pruned already (/pruner tree)" if pruned.outputs else ""
    return (f"none of its {counted(outputs, 'tool output')} waits for a summary (those since the last flush "
            f"are protected or too small to be worth one{done})")


def what_it_did(before: Pruned, after: Pruned) -> str:
    """The outputs a flush pruned, then how (summaries, chains, folds), and the tokens the next request saves:
    "12 summaries of 370 outputs" read as if every output were summarised, when most went into chains."""
    outputs = after.outputs - before.outputs
    how = [f"{counted(after.summaries - before.summaries, 'summary')}" if after.summaries > before.summaries else "",
           f"{counted(after.chains - before.chains, 'chain')} compressed" if after.chains > before.chains else "",
           f"{counted(after.folds - before.folds, 'fold')} of the oldest requests" if after.folds > before.folds
           else ""]
    how_text = ", ".join(part for part in how if part)
    head = f"{counted(outputs, 'tool output')} pruned" if outputs else ""
    done = f"{head}: {how_text}" if head and how_text else head or how_text
    if not done:
        return "done, nothing changed: the pending tool work was too small to summarize or repeated earlier outputs"
    saved = after.saved_tokens - before.saved_tokens
    return done + (f"; the next request is ~{format_tokens(saved)} tokens smaller" if saved > 0 else "")


TERMINAL: dict[str, Handler] = {"": picker, "tree": tree, "settings": settings, "now": flush_now,
                                 "model": summarizer_model}

COMMANDS = (Command("pruner", PRUNER_HELP, pruner, subcommands),)
