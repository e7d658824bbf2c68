"""A session's comparison as data (`--json`) and as the table a person reads."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from condense.simulate.recorded import MissRate
from condense.simulate.retention import Shares
from condense.simulate.simulation import Calibration, StrategyResult

COLUMNS = ("strategy", "requests", "mean ctx", "peak ctx", "cache hit", "busts", "main $", "summ. $",
           "total $", "prefix $", "vs base", "w/ recovery $", "vs base", "recoverable", "ids vis/rec/lost",
           "earlier turn")


class SessionReport(BaseModel):
    session: str
    tokenizer: str
    pricing: str
    pricing_forced: bool
    cache_model: str
    cache_ttl_ms: int
    context_window: int
    baseline: str | None  # the cheapest runnable strategy that is not condense
    baseline_with_recovery: str | None = None  # the same, by cost with recovery
    miss_rate: MissRate
    unpriced_requests: int
    calibration: Calibration | None
    strategies: list[StrategyResult]
    notes: list[str] = []


def _recoverable(result: StrategyResult) -> str:
    share = result.recovery.share
    if share is None:
        return "-"
    return f"{share:.0%} of {result.recovery.pruned}"


def _shares(shares: Shares | None) -> str:
    """Visible, recoverable and lost, in percent of the uses."""
    if shares is None or not shares.uses:
        return "-"
    cells = (round(100 * n / shares.uses) for n in (shares.visible, shares.recoverable, shares.lost))
    return "/".join(map(str, cells)) + f"% of {shares.uses}"


def _ratio(result: StrategyResult, ratio: float | None) -> str:
    if not result.can_run:
        return "cannot run"
    return "-" if ratio is None else f"{ratio:.2f}x"


def _row(result: StrategyResult) -> tuple[str, ...]:
    return (result.name, f"{result.requests}", f"{result.mean_context_tokens:,.0f}",
            f"{result.peak_context_tokens:,.0f}", f"{result.cache_hit_rate:.1%}", f"{result.cache_busts}",
            f"{result.main_cost:.2f}", f"{result.summariser_cost:.2f}", f"{result.total_cost:.2f}",
            f"{result.prefix_model_cost:.2f}", _ratio(result, result.ratio_to_baseline),
            f"{result.cost_with_recovery:.2f}", _ratio(result, result.ratio_with_recovery), _recoverable(result),
            _shares(result.retention.all if result.retention else None),
            _shares(result.retention.earlier_turn if result.retention else None))


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    return lines


def _millions(tokens: float) -> str:
    return f"{tokens / 1e6:.2f}M"


def calibration_lines(calibration: Calibration, forced: bool) -> list[str]:
    c = calibration
    lines = [f"calibration, `recorded` against the usage in the recording ({c.requests} requests):",
             f"  prompt tokens {_millions(c.simulated_prompt_tokens)} simulated vs "
             f"{_millions(c.recorded_prompt_tokens)} recorded ({c.prompt_tokens_error:+.1%}; per request "
             f"{c.mean_abs_prompt_error:.1%} mean absolute error)",
             f"  cost ${c.simulated_cost:.2f} simulated vs ${c.recorded_cost:.2f} recorded "
             f"({c.cost_error:+.1%}; per request {c.mean_abs_cost_error:.1%} mean absolute error)"]
    if forced:
        lines.append("  (prices forced with --pricing: the cost comparison is not like for like)")
    return lines


def _miss_line(miss: MissRate) -> str:
    if not miss.misses:
        return (f"cache misses: none of the {miss.firsts} first requests after a user message missed the"
                " cache in the recording, so none is modelled.")
    return (f"cache misses: in the recording {miss.misses} of {miss.firsts} first requests after a user"
            f" message read nothing from the cache ({miss.rate:.0%}); a prefix cache does not predict these,"
            " so every strategy prices such requests in expectation at that rate.")


def format_report(report: SessionReport) -> str:
    priced = report.strategies[0].requests if report.strategies else 0
    unpriced = report.unpriced_requests
    left_out = f" ({unpriced} with no recorded usage left out)" if unpriced else ""
    miss = report.miss_rate
    base = report.baseline or "none could run"
    base_recovering = report.baseline_with_recovery or "none could run"
    lines = [f"{Path(report.session).name}: {priced} priced requests{left_out}",
             f"tokens: {report.tokenizer}; prices: {report.pricing}; cache model {report.cache_model}, "
             f"TTL {report.cache_ttl_ms / 60000:g} min; window {report.context_window:,}",
             f"vs base: against {base}, the cheapest strategy that fits the window and is not condense;"
             " prefix $: the total under the `prefix` cache model",
             "w/ recovery $: the total plus fetching back each hidden identifier the model used (a"
             f" context_tree_query, or re-running the tool), and its vs base against {base_recovering}",
             "ids vis/rec/lost: of the tool-given identifiers the model used for the first time, the share"
             " its context showed, held behind a condense ref, or lost (earlier turn: from a tool output of"
             " an earlier user turn)", ""]
    lines += _table([COLUMNS, *(_row(r) for r in report.strategies)])
    lines += ["", _miss_line(miss)]
    if report.calibration is not None:
        lines += calibration_lines(report.calibration, report.pricing_forced)
    lines += [f"note: {note}" for note in report.notes]
    return "\n".join(lines) + "\n"
