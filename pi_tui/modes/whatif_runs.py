"""One strategy of `pi-tui whatif` run over a recorded session: the recording, which price table
prices each request, and how each strategy builds the context of every request. `whatif` runs them
and compares the results.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from condense import BatchFilter, CondenseEngine
from condense.config import CondenseConfig
from condense.messages import AgentMessage, plain_messages
from condense.occurrence import message_key
from condense.query import QUERY_TOOL_DESCRIPTION, QUERY_TOOL_NAME, QUERY_TOOL_PARAMETERS
from condense.simulate import (
    ANTHROPIC_EDITS,
    OPENHANDS_SDK,
    PRUNE_AFTER_READ,
    STICKY_EDITS,
    Compaction,
    ContextEditing,
    Lookup,
    Meter,
    ObservationMasking,
    PiCompaction,
    PriceTable,
    Query,
    RecordedRequest,
    Recovery,
    RecoveryCost,
    RetentionMeter,
    SdkCondenser,
    Segment,
    ServerCompaction,
    StrategySimulation,
    SummarizingCondenser,
    check_recovery,
    condense_config,
    condense_config_with,
    model_summary_tokens,
    openai_compaction,
    recorded_requests,
)
from condense.simulate.retention import RECOVERABLE
from pi_tui.ai.pricing import price_table
from pi_tui.ai.types import ModelSpec
from pi_tui.errors import UserError
from pi_tui.modes.provider_view import ProviderView
from pi_tui.modes.replay import Replayer, is_pruner_entry, output_session
from pi_tui.session.context import SessionContext, build_context, entry_message, extend_context
from pi_tui.session.store import Session

FALLBACK_PRICING = "claude-sonnet-4-5"


# ----- prices ---------------------------------------------------------------------------------------

def known_price_table(model: str) -> PriceTable:
    """`price_table`, or one line saying litellm's map has no prices for `model`."""
    table = price_table(model)
    if table is None:
        raise UserError(f"--pricing {model}: litellm's price map does not know this model")
    return table


@dataclass
class Pricing:
    """Each request priced with the table of the model that answered it, unless one is forced; with
    1-hour cache entries, writes cost what Anthropic charges for those."""

    forced: PriceTable | None = None
    one_hour: bool = False
    tables: dict[str, PriceTable] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.forced is not None and self.one_hour:
            self.forced = self.forced.with_one_hour_writes()

    def for_model(self, model: str) -> PriceTable:
        if self.forced is not None:
            return self.forced
        table = self.tables.get(model)
        if table is None:
            table = price_table(model)
            if table is None:
                self.notes.append(f"no litellm prices for {model or '(unknown model)'}:"
                                  f" priced as {FALLBACK_PRICING}")
                table = known_price_table(FALLBACK_PRICING)
            self.tables[model] = table.with_one_hour_writes() if self.one_hour else table
        return self.tables[model]

    def describe(self) -> str:
        """Each model that answered, and whose prices stood in for it when litellm has none: the prices
        of one model must not read as if it had answered."""
        if self.forced is not None:
            return f"{self.forced.name} (forced)"
        answered = sorted({t.name for m, t in self.tables.items() if m == t.name.split(",")[0]})
        stand_ins = [f"{t.name} for {m or '(unknown model)'}, which litellm has no prices for"
                     for m, t in sorted(self.tables.items()) if m != t.name.split(",")[0]]
        return ", ".join(([", ".join(answered) + " (the model that answered)"] if answered else []) + stand_ins)


# ----- the recorded session ------------------------------------------------------------------------

def without_compactions(session: Session) -> Session:
    """The session's branch with its compaction entries taken out, in memory only. Strategies that
    prune by other means start from the full history: the recording's compactions were Pi's answer
    to a context those strategies never build (`pi-compaction` simulates that answer on its own)."""
    entries: list[dict[str, Any]] = []
    parent: str | None = None
    for entry in session.branch_entries():
        if entry.get("type") == "compaction":
            continue
        entries.append(entry if entry.get("parentId") == parent else {**entry, "parentId": parent})
        parent = entry.get("id")
    return Session(dict(session.header), entries, None)


@dataclass
class Recording:
    """The session's branch, its messages with nothing removed, and one RecordedRequest per request."""

    session: Session
    branch: list[dict[str, Any]]
    history: list[dict[str, Any]] = field(init=False)
    requests: list[RecordedRequest] = field(init=False)
    before: list[int] = field(init=False)  # per request: how many history messages precede it
    entry_at: list[int] = field(init=False)  # per request: its entry's position in the branch
    specs: list[ModelSpec] = field(init=False)

    def __post_init__(self) -> None:
        self.before, self.entry_at, self.specs = [], [], []
        history: list[AgentMessage] = []
        for position, entry in enumerate(self.branch):
            message = entry_message(entry) if not is_pruner_entry(entry) else None
            if message is None:
                continue
            if message.get("role") == "assistant":
                self.before.append(len(history))
                self.entry_at.append(position)
                self.specs.append(ModelSpec(provider=str(message.get("provider", "")),
                                            id=str(message.get("model", "")),
                                            api=str(message.get("api", "openai-completions"))))
            history.append(message)
        self.history = plain_messages(history)  # the very objects: the meter keys sizes on identity
        self.requests = recorded_requests(self.history)

    @property
    def main_model(self) -> str:
        billed = [r.model for r in self.requests if r.billed]
        return max(set(billed), key=billed.count) if billed else FALLBACK_PRICING


# ----- running one strategy ------------------------------------------------------------------------

@dataclass
class StrategyRun:
    """Prices the requests of one strategy as they are produced."""

    recording: Recording
    meter: Meter
    pricing: Pricing
    sim: StrategySimulation
    retention: RetentionMeter | None = None
    sent: int = 0
    edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None  # the provider's, server-side
    lookup: Lookup | None = None  # condense's refs, for the retention measure
    recovering: RecoveryCost = field(default_factory=RecoveryCost)
    system: Segment | None = None  # the system prompt and tools, where the strategy adds a tool
    # what must be read before a hidden output can be asked for (condense: a fold's transcript), as a
    # key that is no history position and its tokens
    detour: Callable[[dict[str, Any]], tuple[int, float] | None] | None = None
    view: ProviderView = field(default_factory=ProviderView)  # converts only what changed since the last request

    def request(self, number: int, context: Sequence[Mapping[str, Any]]) -> None:
        recorded = self.recording.requests[number]
        self.sent = number + 1
        if not recorded.billed:
            return
        prompt = self.meter.prompt(self.provider_view(context, number), head_segment=self.system)
        prices = self.pricing.for_model(recorded.model)
        outcome = self.sim.request(prompt, recorded, prices)
        hidden = []
        if self.retention is not None and self.retention.wants(number):
            hidden = self.retention.observe(number, "\n".join(s.text for s in prompt.segments), self.lookup)
        history = self.recording.history
        needed = [(h.source, self.meter.segment(history[h.source]).tokens) for h in hidden]
        first = [step for h in hidden if h.kind == RECOVERABLE and self.detour is not None
                 and (step := self.detour(history[h.source])) is not None]
        self.recovering.request(prompt.tokens, outcome.bust, needed, prices, first)

    def provider_view(self, context: Sequence[Mapping[str, Any]], number: int) -> list[dict[str, Any]]:
        """What the model reads of `context`: converted, transformed for the model, edited server-side."""
        plain = self.view.of(context, self.recording.specs[number])
        return plain if self.edit is None else self.edit(plain)

    def server_summary(self, context: Sequence[Mapping[str, Any]], output: str, number: int) -> None:
        """The provider's own summarising step on request `number` (it reads that request's prompt)."""
        recorded = self.recording.requests[number]
        if not recorded.billed:
            return
        prompt = self.meter.prompt(self.provider_view(context, number), head_segment=self.system)
        self.sim.server_call(prompt, self.meter.text_tokens(output), recorded.time_ms,
                             self.pricing.for_model(recorded.model))

    def summariser_call(self, prompt: str | list[dict[str, Any]], output: str, time_ms: int,
                        head_tokens: float = 0.0) -> None:
        """Priced at the session's model and at the length a model writes, not the extractive text's (see
        `summary_length`); a text prompt comes after `head_tokens` of fixed instructions."""
        current = self.recording.requests[max(0, self.sent - 1)]
        meter = self.meter
        asked = meter.text_prompt(prompt, head_tokens) if isinstance(prompt, str) \
            else meter.prompt(prompt, system=False)
        written = model_summary_tokens(prompt, meter.text_tokens(output)) if isinstance(prompt, str) \
            else meter.text_tokens(output)
        self.sim.summariser_call(asked, written, time_ms, self.pricing.for_model(current.model))


def _run_recorded(run: StrategyRun) -> Recovery:
    """Each request carries the context of the branch before it, grown entry by entry (rebuilt only at
    a compaction), so the whole run is linear in the session's length."""
    branch = run.recording.branch
    context, built = SessionContext(), 0
    for number, position in enumerate(run.recording.entry_at):
        for end in range(built + 1, position + 1):
            if not extend_context(context, branch[end - 1]):
                context = build_context(branch[:end])
        built = position
        run.request(number, context.messages)
    final = build_context(branch).messages
    return check_recovery(run.recording.history, final, None)


def _run_none(run: StrategyRun) -> Recovery:
    history = run.recording.history
    for number, before in enumerate(run.recording.before):
        run.request(number, history[:before])
    return check_recovery(history, history, None)


def _run_masking(run: StrategyRun) -> Recovery:
    history, masking = run.recording.history, ObservationMasking()
    for number, before in enumerate(run.recording.before):
        run.request(number, masking.apply(history[:before]))
    return check_recovery(history, masking.apply(history), None)


def _run_summarising(run: StrategyRun,
                     summariser: PiCompaction | SummarizingCondenser | SdkCondenser | ServerCompaction) -> Recovery:
    """A strategy that folds old history into one summary before a request when its rule says so."""
    history = run.recording.history
    for number, before in enumerate(run.recording.before):
        time_ms = run.recording.requests[number].time_ms
        done: Compaction | None = summariser.maybe_compact(history[:before], time_ms)
        if done is not None and isinstance(summariser, ServerCompaction):
            run.server_summary(done.folded, done.summary, number)
        elif done is not None:
            asked = done.folded if done.prompt is None else done.prompt
            run.summariser_call(asked, done.summary, time_ms, done.head_tokens)
        run.request(number, summariser.context(history[:before]))
    return check_recovery(history, summariser.context(history), None)


def _run_context_edit(run: StrategyRun, editing: ContextEditing) -> Recovery:
    """The full history every time, edited by the provider: nothing it clears can be asked back."""
    history = run.recording.history
    run.edit = editing.apply
    for number, before in enumerate(run.recording.before):
        run.request(number, history[:before])
    final = run.provider_view(history, len(run.recording.before) - 1) if run.recording.before else history
    return check_recovery(history, final, None)


def _latest_time(session: Session) -> int:
    for entry in reversed(session.entries):
        message = entry.get("message")
        if isinstance(message, dict) and isinstance(stamp := message.get("timestamp"), int):
            return stamp
    return 0


def _read_turns_only(run: StrategyRun) -> BatchFilter:
    """Keeps batches whose results no request has carried yet out of every flush (see
    `PRUNE_AFTER_READ`): when request k is sent, the model has read the turns before k."""
    return lambda batch: batch.turn_index < run.sent - 1


def _output_ref(engine: CondenseEngine, message: dict[str, Any]) -> str:
    return engine.index.get_short_ref(message_key(message)) or str(message.get("toolCallId"))


def _unlisted_fold(engine: CondenseEngine, message: dict[str, Any]) -> str | None:
    """The fold whose stretch holds this output when the block in view does not list the output's ref
    (older than the requests it lists): the model finds the ref in that fold's transcript."""
    return engine.history_fold.unlisted(message_key(message), _output_ref(engine, message),
                                        engine.host.context_messages())


def _condense_lookup(engine: CondenseEngine) -> Lookup:
    """A pruned output's ref as condense's placeholders show it (a short ref, else the call's id; for an
    output a fold no longer lists, the fold's ref) and what `context_tree_query` answers for it, as the
    engine stands at the moment it is asked."""
    def lookup(message: dict[str, Any]) -> tuple[str, str] | None:
        key = message_key(message)
        if not engine.index.is_summarized(key):
            return None
        return _unlisted_fold(engine, message) or _output_ref(engine, message), engine.query([key])[0]
    return lookup


def _fold_detour(engine: CondenseEngine, meter: Meter) -> Callable[[dict[str, Any]], tuple[int, float] | None]:
    """For an output only a fold's transcript names: that transcript (keyed -N for fold fN), which the
    model reads first to find the output's ref."""
    def detour(message: dict[str, Any]) -> tuple[int, float] | None:
        ref = _unlisted_fold(engine, message)
        if ref is None:
            return None
        return -int(ref[1:]), meter.text_tokens(engine.query([ref])[0])
    return detour


def _with_query_tool(meter: Meter) -> Segment:
    """The system prompt and tools plus `context_tree_query`'s definition, which condense adds to every
    request: its tokens count against condense."""
    tool = json.dumps({"name": QUERY_TOOL_NAME, "description": QUERY_TOOL_DESCRIPTION,
                       "input_schema": QUERY_TOOL_PARAMETERS})
    return meter.fixed_segment("<system prompt, tools and context_tree_query>",
                               meter.system.tokens + meter.text_tokens(tool))


def _run_condense(run: StrategyRun, config: CondenseConfig, window: int, after_read: bool = False) -> Recovery:
    run.system = _with_query_tool(run.meter)
    source = without_compactions(run.recording.session)
    with tempfile.TemporaryDirectory(prefix="pi-tui-whatif-") as folder:
        out = output_session(source, Path(folder) / "replay.jsonl")
        counter = iter(range(len(run.recording.requests)))
        # every summary condense asks for is reported with the prompt a model would have been sent (the
        # extractive summariser builds that prompt only to be priced)
        replayer = Replayer(source, out, config, window,
                            on_render=lambda _before, rendered: run.request(next(counter), rendered),
                            batch_filter=_read_turns_only(run) if after_read else None,
                            on_summary=lambda asked, text: run.summariser_call(asked, text, _latest_time(out)))
        run.lookup = _condense_lookup(replayer.engine)
        run.detour = _fold_detour(replayer.engine, run.meter)
        asyncio.run(replayer.run())
        engine = replayer.engine
        final = engine.render(out.messages())
        query: Query = lambda key: engine.query([key])[0]  # noqa: E731
        return check_recovery(run.recording.history, final, query)  # spill sidecars still exist here


def run_strategy(name: str, run: StrategyRun, window: int, variants: dict[str, dict[str, Any]],
                 condense: CondenseConfig) -> Recovery:
    """Runs the strategy `name` (a baseline, a condense strategy or one of `variants`); its recovery check."""
    if name == "recorded":
        return _run_recorded(run)
    if name == "none":
        return _run_none(run)
    if name == "masking":
        return _run_masking(run)
    if name == "pi-compaction":
        return _run_summarising(run, PiCompaction(run.meter, window))
    if name == "openhands-condenser":
        return _run_summarising(run, SummarizingCondenser())
    if name == "anthropic-compaction":
        return _run_summarising(run, ServerCompaction(run.meter))
    if name == "openai-compaction":
        return _run_summarising(run, openai_compaction(run.meter, window))
    if name in OPENHANDS_SDK:
        max_size, keep_first = OPENHANDS_SDK[name]
        return _run_summarising(run, SdkCondenser(run.meter, max_size, keep_first, max_tokens=window))
    if name in ANTHROPIC_EDITS:
        return _run_context_edit(run, ContextEditing(run.meter, ANTHROPIC_EDITS[name], sticky=name in STICKY_EDITS))
    if name in variants:
        return _run_condense(run, condense_config_with(variants[name], condense), window)
    return _run_condense(run, condense_config(name, condense), window, name in PRUNE_AFTER_READ)

