"""Every benchmark in one go, with one summary table.

Run: .venv/bin/python benchmarks/run.py

First `pi-tui whatif` on each of the four corpus sessions, one process per session (every strategy: cost,
ratio to the cheapest runnable strategy that is not condense, context size, cache busts, calibration of the
`recorded` strategy; and the wall time of the session's run and that time per priced request, which should
stay flat from the smallest session to the largest), then every other `benchmarks/*.py` that defines a
`main`, each in its own process so none skews another's timings. The summary table comes first, then each
benchmark's own output under its name. Exits 1 when any benchmark failed.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
SESSIONS = ("pi-large-session.jsonl", "pi-before-compaction.jsonl", "pi-compact-hooks.jsonl",
            "pi-compaction-check.jsonl")
TIMEOUT_S = 1800


@dataclass
class Run:
    name: str
    returncode: int
    seconds: float
    stdout: str
    stderr: str


def run(name: str, args: list[str], home: Path) -> Run:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PI_TUI_HOME"] = str(home)
    start = time.perf_counter()
    try:
        done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
                              check=False)
    except subprocess.TimeoutExpired:
        return Run(name, -1, time.perf_counter() - start, "", f"timed out after {TIMEOUT_S} s")
    return Run(name, done.returncode, time.perf_counter() - start, done.stdout, done.stderr)


def has_main(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body)


def other_benchmarks() -> list[Path]:
    here = Path(__file__).resolve()
    return [p for p in sorted(here.parent.glob("*.py")) if p.resolve() != here and has_main(p)]


def whatif_rows(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    session = Path(report["session"]).name
    rows = []
    for result in report["strategies"]:
        ratio = " (cannot run)" if not result["can_run"] else "" if result["ratio_to_baseline"] is None \
            else f" = {result['ratio_to_baseline']:.2f}x {report['baseline']}"
        recovery = result["recovery"]
        kept = f"; {recovery['recoverable']}/{recovery['pruned']} recoverable" if recovery["pruned"] else ""
        rows.append(("whatif", f"{session}: {result['name']}",
                     f"${result['total_cost']:.2f}{ratio}; mean ctx {result['mean_context_tokens']:,.0f};"
                     f" {result['cache_busts']} busts{kept}"))
    calibration = report.get("calibration")
    if calibration:
        rows.append(("whatif", f"{session}: calibration of `recorded`",
                     f"${calibration['simulated_cost']:.2f} vs ${calibration['recorded_cost']:.2f} recorded"
                     f" ({calibration['cost_error']:+.1%})"))
    return rows


def whatif_timing(report: dict[str, Any], seconds: float) -> tuple[str, str, str]:
    """Wall time of one session's whatif run, and per request priced (every strategy counted)."""
    priced = sum(result["requests"] for result in report["strategies"])
    return ("whatif", f"{Path(report['session']).name}: time",
            f"{seconds:.1f} s for {priced:,} priced requests = {seconds / priced * 1000:.1f} ms per request")


def status(result: Run) -> str:
    if result.returncode == 0:
        return f"ok in {result.seconds:.1f} s"
    last = (result.stderr.strip().splitlines() or ["no output"])[-1]
    return f"FAILED (exit {result.returncode}) after {result.seconds:.1f} s: {last}"


def print_table(rows: list[tuple[str, str, str]]) -> None:
    header = ("benchmark", "measurement", "result")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(2)]
    for row in [header, *rows]:
        print(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]}")


def main() -> int:
    sessions = [str(CORPUS / name) for name in SESSIONS if (CORPUS / name).exists()]
    rows: list[tuple[str, str, str]] = []
    runs: list[Run] = []
    with tempfile.TemporaryDirectory() as home:
        for session in sessions:
            whatif = run("whatif", [sys.executable, "-m", "pi_tui", "whatif", session, "--json"], Path(home))
            runs.append(whatif)
            if whatif.returncode == 0:
                for report in json.loads(whatif.stdout)["sessions"]:
                    rows += [*whatif_rows(report), whatif_timing(report, whatif.seconds)]
            rows.append(("whatif", f"{Path(session).name}, every strategy", status(whatif)))
        if not sessions:
            rows.append(("whatif", "corpus sessions", f"skipped: {CORPUS} not found"))
        for path in other_benchmarks():
            result = run(path.stem, [sys.executable, str(path)], Path(home))
            runs.append(result)
            rows.append((path.stem, "run", status(result)))
    print_table(rows)
    for result in runs:
        if result.name != "whatif" or result.returncode != 0:
            print(f"\n== {result.name} ==\n{(result.stdout or result.stderr).rstrip()}")
    return 0 if all(r.returncode == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
