"""Let whatif choose condense's defaults: a sweep of its settings over the four corpus sessions.

Run: .venv/bin/python benchmarks/sweep.py [NAME ...]     (default: every variant below; `a+b` combines two)

Each variant is condense with some settings changed from the defaults (extractive summaries, priced
as a model's), replayed by `pi-tui whatif` under Anthropic's cache rule. The table gives, per session,
the variant's cost with recovery against the cheapest runnable strategy that is not condense, also with
recovery (the baselines below are run once per session), and the share of the tool-given identifiers
the model used that its context showed; then whether it beats the defaults on every session, and
whether nothing was lost (every pruned output came back whole from `context_tree_query`, no use lost).
Paste the table into docs/WHATIF.md.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from condense.simulate.strategies import CONDENSE_STRATEGIES, STRATEGIES  # noqa: E402
from pi_tui.modes.whatif import WhatifOptions, run_whatif  # noqa: E402
from pi_tui.session.store import Session  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
SESSIONS = ("pi-large-session", "pi-before-compaction", "pi-compact-hooks", "pi-compaction-check")
BASELINES = [name for name in STRATEGIES if name not in CONDENSE_STRATEGIES]  # every strategy that is not condense

VARIANTS: dict[str, dict[str, Any]] = {
    "defaults": {},
    **{f"K={k}": {"chain_compression": {"rolling_window": k}} for k in (0, 1, 2, 4, 5)},
    **{f"min_batch_chars={n}": {"min_batch_chars": n} for n in (0, 500, 2000, 3000, 4000)},
    "batching=agent-message": {"batching_mode": "agent-message"},
    "auto_budget_threshold=0.5": {"auto_budget_threshold": 0.5},
    "auto_budget_threshold=off": {"auto_budget_threshold": 0},
    "budget_turn_delta=0.02": {"budget_turn_delta": 0.02},
    "budget_turn_delta=off": {"budget_turn_delta": 0},
    "purge_summarized_args": {"purge_summarized_args": True},
    **{f"keep_recent={n}": {"keep_recent": n} for n in (0, 2)},
    "cold_cache=off": {"cold_cache_ms": 0},
    "superseded_reads": {"superseded_reads": True},
    "superseded_reads=off": {"superseded_reads": False},  # on by default since the sweep in docs/WHATIF.md
    **{f"min_flush_chars={n // 1000}k": {"min_flush_chars": n} for n in (20_000, 50_000, 100_000)},
    **{f"fold_keep_turns={n}": {"fold_keep_turns": n} for n in (0, 2, 5, 8)},
    **{f"fold_min_chars={n // 1000}k": {"fold_min_chars": n} for n in (16_000, 64_000)},
    **{f"summary_names={n}": {"summary_names": n} for n in (0, 10, 20, 40, 80)},
}


def settings(name: str) -> dict[str, Any]:
    """A variant's changes; `a+b` combines two variants (nested tables merge key by key)."""
    merged: dict[str, Any] = {}
    for part in name.split("+"):
        for key, value in VARIANTS[part].items():
            merged[key] = {**merged.get(key, {}), **value} if isinstance(value, dict) else value
    return merged


def sweep(names: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """variant -> session -> {ratio, cost, visible, kept}; the baseline per session under "baseline"."""
    table: dict[str, dict[str, dict[str, Any]]] = {}
    variants = {name: settings(name) for name in names}
    for session in SESSIONS:
        print(f"sweep: {session}", file=sys.stderr, flush=True)
        options = WhatifOptions([*BASELINES, *variants], variants=variants)
        report = run_whatif(Session.open(CORPUS / f"{session}.jsonl"), options)
        rows = {r.name: r for r in report.strategies}
        base = report.baseline_with_recovery
        table.setdefault("baseline", {})[session] = {"name": base,
                                                     "cost": rows[base].cost_with_recovery if base else 0}
        for name in variants:
            row = rows[name]
            recovery, retention = row.recovery, row.retention
            table.setdefault(name, {})[session] = {
                "ratio": row.ratio_with_recovery, "cost": row.cost_with_recovery, "can_run": row.can_run,
                "visible": retention.all.visible_share if retention else None,
                "kept": recovery.recoverable == recovery.pruned and not (retention and retention.all.lost)}
    return table


def _cell(result: dict[str, Any]) -> str:
    if not result["can_run"]:
        return "cannot run"
    visible = "" if result["visible"] is None else f", {result['visible']:.0%} visible"
    return f"{result['ratio']:.3f}x (${result['cost']:.2f}{visible})"


def markdown(table: dict[str, dict[str, dict[str, Any]]]) -> str:
    base = table["baseline"]
    head = "| variant | " + " | ".join(SESSIONS) + " | beats defaults on all | nothing lost |"
    lines = [head, "|" + "---|" * (len(SESSIONS) + 3),
             "| baseline (cheapest runnable, not condense, with recovery) | "
             + " | ".join(f"{base[s]['name']} ${base[s]['cost']:.2f}" for s in SESSIONS) + " | | |"]
    defaults = table.get("defaults")
    for name, per in table.items():
        if name == "baseline":
            continue
        cells = [_cell(per[s]) for s in SESSIONS]
        wins = "-" if defaults is None or name == "defaults" else \
            "yes" if all(per[s]["cost"] < defaults[s]["cost"] for s in SESSIONS) else "no"
        kept = "yes" if all(per[s]["kept"] for s in SESSIONS) else "no"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {wins} | {kept} |")
    return "\n".join(lines)


def main() -> int:
    names = sys.argv[1:] or list(VARIANTS)
    unknown = [n for n in names if any(part not in VARIANTS for part in n.split("+"))]
    if unknown:
        print(f"sweep: unknown variants {', '.join(unknown)}; choose from {', '.join(VARIANTS)}", file=sys.stderr)
        return 2
    if "defaults" not in names:
        names.insert(0, "defaults")
    print(markdown(sweep(names)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
