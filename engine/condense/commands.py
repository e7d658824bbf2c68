"""`/pruner` and its subcommands: read and change the engine's settings, flush on demand, report.

Every answer goes through `host.notify`, so the same command works in the TUI, in print mode and in
tests. Settings changes are validated by the config model before anything is saved.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Any

from pydantic import ValidationError

from condense.config import CondenseConfig, one_line_error
from condense.engine import CondenseEngine
from condense.host import Level
from condense.metrics import status_block
from condense.plural import counted

Handler = Callable[[CondenseEngine, str], Awaitable[None]]

HELP: dict[str, str] = {
    "status": "settings, stats and diagnostics",
    "on": "turn pruning on",
    "off": "turn pruning off (outputs stay recoverable)",
    "now": "summarize all pending tool work now",
    "compact": "compress every closed chain now, whatever the rolling window says",
    "stats": "summarizer calls, tokens and cost of this session",
    "model": "summarizer model: default | extractive | provider/id",
    "thinking": "summarizer thinking: default | off | minimal | low | medium | high | xhigh",
    "prune-on": "when to flush: agent-message | on-demand",
    "batching": "one summary per: turn | agent-message",
    "protected-tools": "tool names kept verbatim, comma-separated ('-' clears)",
    "protected-paths": "path globs kept verbatim, comma-separated ('-' clears)",
    "min-batch-chars": "skip batches smaller than N characters (0 disables)",
    "recovery-grace": "user turns a recovered output stays verbatim (0 disables)",
    "dedup": "reuse summaries of identical outputs: on | off | status",
    "help": "this list",
}


# the subcommands that take no argument: a word after one is a mistake to say, not to drop
NO_ARGUMENT = frozenset({"status", "on", "off", "now", "compact", "stats", "help"})


def extra_argument(name: str, args: str, takes_none: Collection[str] = NO_ARGUMENT) -> str | None:
    """The one line refusing `args` after a subcommand that takes none (a host adds its own), or None."""
    if name in takes_none and args.strip():
        return f"pruner: {name} takes no argument, got {args.strip()!r}; try /pruner help"
    return None


def _notify(engine: CondenseEngine, text: str, level: Level = "info") -> None:
    engine.host.notify(text, level)


def _update(engine: CondenseEngine, **changes: Any) -> None:
    data = engine.config.model_dump()
    for key, value in changes.items():
        data[key] = value
    try:
        config = CondenseConfig.model_validate(data)
    except ValidationError as exc:
        _notify(engine, f"pruner: {one_line_error(exc, CondenseConfig)}", "error")
        return
    if engine.configure(config):
        _notify(engine, "pruner: " + ", ".join(f"{k.replace('_', '-')} = {v}" for k, v in changes.items()))


def _as_list(args: str) -> list[str]:
    return [] if args.strip() == "-" else [p.strip() for p in args.split(",") if p.strip()]


def _as_int(engine: CondenseEngine, args: str, key: str) -> int | None:
    try:
        return int(args)
    except ValueError:
        _notify(engine, f"pruner: {key} takes a whole number, got {args!r}", "error")
        return None


def _waiting(engine: CondenseEngine) -> int:
    """The outputs a flush would take now: on a session just opened the engine has captured no batch yet,
    while the transcript marks its unsummarised outputs pending (a count of batches said 0)."""
    return sum(len(batch.tool_calls) for batch in engine.flusher.collect(engine.is_protected))


async def _status(engine: CondenseEngine, _: str) -> None:
    c = engine.config
    lines = [
        f"pruner: {engine.status().removeprefix('prune: ')}",  # the footer's words, said once
        f"prune on:     {c.prune_on}   batching: {c.batching_mode}",
        f"summarizer:   {c.summarizer_model} (thinking {c.summarizer_thinking})",
        f"protected:    tools {c.protected_tools or '-'}; paths {c.protected_paths or '-'}",
        f"thresholds:   min batch {c.min_batch_chars} chars, spill {c.spill_threshold} chars, "
        f"grace {counted(c.recovery_grace_turns, 'turn')}, dedup {'on' if c.dedup_by_content_hash else 'off'}",
        f"budget:       threshold {c.auto_budget_threshold or 'off'}, turn delta {c.budget_turn_delta or 'off'}",
        f"indexed:      {counted(len(engine.index), 'output')}, {_waiting(engine)} pending (what /pruner now takes)",
    ]
    skips = engine.flusher.trivial_skips
    if skips:
        lines.append(f"last flush:   {counted(skips, 'batch')} too small for a summary of their own"
                     " (a compressed chain may still hold them)")
    lines.append(engine.stats.describe(engine.chains.entries()))
    counts = engine.diagnostics.counts()
    # what the footer's "N warnings" counts: each kind of degraded pruning, as the session's entries name it
    lines.append("warnings:     " + (", ".join(f"{k} {v}" for k, v in counts.items() if v) or "none"))
    lines.extend(status_block(engine.context_metrics(), engine.rearmed))
    _notify(engine, "\n".join(lines))


async def _now(engine: CondenseEngine, _: str) -> None:
    result = await engine.flush("manual", sequential=True)
    if result.outcome == "empty":
        _notify(engine, "pruner: nothing pending — no batches to summarize")
    elif not result.halted:  # a halted flush has said why, once
        batches = counted(result.captured, "batch")
        _notify(engine, f"pruner: {result.outcome}: {result.summarized} of {batches} summarized")


async def _compact(engine: CondenseEngine, _: str) -> None:
    ids = await engine.compact()
    if not ids:
        _notify(engine, "pruner: no closed chain left to compress")


async def _on(engine: CondenseEngine, _: str) -> None:
    _update(engine, enabled=True)


async def _off(engine: CondenseEngine, _: str) -> None:
    _update(engine, enabled=False)


async def _stats(engine: CondenseEngine, _: str) -> None:
    _notify(engine, engine.stats.describe(engine.chains.entries()))


async def _model(engine: CondenseEngine, args: str) -> None:
    if args:
        _update(engine, summarizer_model=args.strip())
    else:
        _notify(engine, f"pruner: summarizer model is {engine.config.summarizer_model}")


async def _thinking(engine: CondenseEngine, args: str) -> None:
    _update(engine, summarizer_thinking=args.strip() or "default")


async def _prune_on(engine: CondenseEngine, args: str) -> None:
    _update(engine, prune_on=args.strip())


async def _batching(engine: CondenseEngine, args: str) -> None:
    _update(engine, batching_mode=args.strip())


async def _protected_tools(engine: CondenseEngine, args: str) -> None:
    if args:
        _update(engine, protected_tools=_as_list(args))
    else:
        _notify(engine, f"pruner: protected tools: {', '.join(engine.config.protected_tools) or '(none)'}")


async def _protected_paths(engine: CondenseEngine, args: str) -> None:
    if args:
        _update(engine, protected_paths=_as_list(args))
    else:
        _notify(engine, f"pruner: protected paths: {', '.join(engine.config.protected_paths) or '(none)'}")


async def _min_batch(engine: CondenseEngine, args: str) -> None:
    value = _as_int(engine, args, "min-batch-chars")
    if value is not None:
        _update(engine, min_batch_chars=value)


async def _grace(engine: CondenseEngine, args: str) -> None:
    value = _as_int(engine, args, "recovery-grace")
    if value is not None:
        _update(engine, recovery_grace_turns=value)


async def _dedup(engine: CondenseEngine, args: str) -> None:
    word = args.strip() or "status"
    if word in ("on", "off"):
        _update(engine, dedup_by_content_hash=word == "on")
    elif word == "status":
        _notify(engine, f"pruner: dedup is {'on' if engine.config.dedup_by_content_hash else 'off'}")
    else:
        _notify(engine, f"pruner: dedup takes on, off or status, got {word!r}", "error")


async def _help(engine: CondenseEngine, _: str) -> None:
    _notify(engine, "\n".join(f"/pruner {name:<16} {text}" for name, text in HELP.items()))


HANDLERS: dict[str, Handler] = {
    "status": _status, "on": _on, "off": _off, "now": _now, "compact": _compact, "stats": _stats, "model": _model,
    "thinking": _thinking, "prune-on": _prune_on, "batching": _batching, "protected-tools": _protected_tools,
    "protected-paths": _protected_paths, "min-batch-chars": _min_batch, "recovery-grace": _grace,
    "dedup": _dedup, "help": _help,
}


async def run_command(engine: CondenseEngine, text: str) -> None:
    name, _, args = text.strip().partition(" ")
    handler = HANDLERS.get(name or "status")
    if handler is None:
        _notify(engine, f"pruner: unknown subcommand {name!r}; try /pruner help", "warning")
        return
    refusal = extra_argument(name, args)
    if refusal:
        _notify(engine, refusal, "error")
        return
    await handler(engine, args.strip())
