"""`pi-tui whatif` as a user runs it: on a small generated session, and on the large corpus session."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from condense.simulate import ANTHROPIC_EDITS, CONDENSE_STRATEGIES, STRATEGIES
from pi_tui.cli import main
from tests.conftest import corpus_path
from tests.support.priced_session import write_session

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def small_session(tmp_path: Path) -> Path:
    return write_session(tmp_path)


def test_whatif_prints_a_table_row_per_strategy_and_the_calibration(
        small_session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["whatif", str(small_session)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("strategy"))
    columns = ("requests", "mean ctx", "peak ctx", "cache hit", "busts", "total $", "prefix $", "vs base",
               "recoverable")
    for column in columns:
        assert column in header
    rows = {line.split()[0]: line for line in lines[lines.index(header) + 1:] if line.strip()}
    assert set(STRATEGIES) <= set(rows)
    assert rows["none"].split()[1] == "16", "every recorded request is priced"
    assert "calibration" in out and "first requests after a user message" in out
    assert "cache model anthropic" in out and "vs base: against " in out


def test_whatif_json_holds_every_strategy_and_condense_loses_no_output(
        small_session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["whatif", str(small_session), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["sessions"][0]
    results = {s["name"]: s for s in report["strategies"]}
    assert list(results) == list(STRATEGIES)
    assert results["none"]["ratio_to_none"] == 1.0
    assert results["recorded"]["total_cost"] == pytest.approx(results["none"]["total_cost"])
    for name in CONDENSE_STRATEGIES:
        recovery = results[name]["recovery"]
        assert recovery["pruned"] > 0 and recovery["recoverable"] == recovery["pruned"], name
        assert results[name]["mean_context_tokens"] < results["none"]["mean_context_tokens"], name
        assert results[name]["summariser_calls"] > 0 and results[name]["summariser_cost"] > 0, name
    assert results["masking"]["recovery"]["recoverable"] == 0 < results["masking"]["recovery"]["pruned"]
    assert results["every-turn"]["cache_busts"] > results["condense"]["cache_busts"]
    assert report["calibration"]["recorded_cost"] > 0 and report["miss_rate"]["firsts"] == 3
    assert report["context_window"] == 200_000 and report["cache_model"] == "anthropic"
    assert report["baseline"] in results and not report["baseline"].startswith("condense")
    for result in results.values():
        assert result["can_run"] and result["total_cost"] > 0 and result["peak_context_tokens"] > 0
        assert result["prefix_model_cost"] > 0
        assert result["ratio_to_baseline"] >= 1.0 or result["name"] in CONDENSE_STRATEGIES
        assert set(result["recovery"]) == {"pruned", "recoverable", "truncated"}


def test_whatif_baselines_the_small_session_never_triggers_leave_the_context_whole(
        small_session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The small session stays under 100k tokens and 120 events: Anthropic's edit and OpenHands'
    condenser never fire, so they cost exactly what keeping everything costs."""
    names = ",".join(["none", *ANTHROPIC_EDITS, "openhands-condenser"])
    assert main(["whatif", str(small_session), "--json", "--strategies", names]) == 0
    results = {s["name"]: s for s in json.loads(capsys.readouterr().out)["sessions"][0]["strategies"]}
    for name in [*ANTHROPIC_EDITS, "openhands-condenser"]:
        assert results[name]["total_cost"] == pytest.approx(results["none"]["total_cost"]), name
        assert results[name]["recovery"]["pruned"] == 0


def test_whatif_cache_model_and_ttl_change_the_price_the_way_the_provider_would(
        small_session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def total(*args: str) -> tuple[float, float, dict[str, Any]]:
        assert main(["whatif", str(small_session), "--json", "--strategies", "masking", *args]) == 0
        report = json.loads(capsys.readouterr().out)["sessions"][0]
        row = report["strategies"][0]
        return row["total_cost"], row["prefix_model_cost"], report

    anthropic, prefix_figure, _ = total()
    prefix, _, prefix_report = total("--cache-model", "prefix")
    assert prefix_report["cache_model"] == "prefix" and prefix == pytest.approx(prefix_figure)
    assert anthropic > prefix, "masking rewrites old outputs: Anthropic reads nothing past the rewrite"
    hour, _, hour_report = total("--cache-ttl", "1h")
    assert hour_report["cache_ttl_ms"] == 3_600_000 and "1h cache" in hour_report["pricing"]
    assert hour > anthropic, "no request here waits 5 minutes, so 1-hour entries only cost more to write"


def test_whatif_plot_writes_a_valid_svg_with_a_line_per_strategy(small_session: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    chart = tmp_path / "chart.svg"
    args = ["whatif", "--strategies", "none,masking", str(small_session), "--strategies", "condense",
            "--plot", str(chart)]
    assert main(args) == 0
    assert "condense" in capsys.readouterr().out
    svg = ET.fromstring(chart.read_text(encoding="utf-8"))
    assert svg.tag == f"{SVG}svg"
    titles = [line.findtext(f"{SVG}title") for line in svg.iter(f"{SVG}polyline")]
    assert titles == ["none", "masking", "condense"]
    texts = {t.text for t in svg.iter(f"{SVG}text")}
    assert {"none", "masking", "condense", "cache bust", "model request", "prompt tokens"} <= texts


def test_whatif_forced_pricing_prices_every_request_with_that_table(
        small_session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    totals = {}
    for pricing in ("claude-sonnet-4-5", "claude-opus-4-5"):
        args = ["whatif", str(small_session), "--strategies", "none", "--json", "--pricing", pricing]
        assert main(args) == 0
        report = json.loads(capsys.readouterr().out)["sessions"][0]
        assert report["pricing_forced"] and report["pricing"].startswith(pricing)
        totals[pricing] = report["strategies"][0]["total_cost"]
    assert totals["claude-opus-4-5"] == pytest.approx(totals["claude-sonnet-4-5"] * 5 / 3)


@pytest.mark.parametrize("args, message", [
    (["--strategies", "condense,bogus"], "--strategies: unknown bogus"),
    (["--pricing", "gpt-2"], "--pricing gpt-2: choose one of"),
    (["--cache-ttl", "0"], "--cache-ttl 0: give a duration"),
    (["--cache-ttl", "7m"], "--cache-ttl 7m: Anthropic's cache lives 5m or 1h"),
    (["--cache-model", "lru"], "--cache-model lru: choose one of anthropic, prefix"),
])
def test_whatif_bad_options_fail_with_one_line(small_session: Path, capsys: pytest.CaptureFixture[str],
                                               args: list[str], message: str) -> None:
    assert main(["whatif", str(small_session), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pi-tui: error: {message}") and err.count("\n") == 1


# The recording (the calibration), the baseline and condense cover what a user reads in the table; the
# other strategies cost a replay of 439 requests each, so they run under `-m slow`.
DEFAULT_RUN = ["recorded", "none", "condense"]


@pytest.mark.xdist_group("serial")
@pytest.mark.parametrize("strategies", [
    pytest.param(DEFAULT_RUN, id="recorded-none-condense"),
    pytest.param(list(STRATEGIES), id="all", marks=pytest.mark.slow),
])
def test_whatif_on_the_large_corpus_session_is_calibrated_within_15_percent(
        capsys: pytest.CaptureFixture[str], strategies: list[str]) -> None:
    source = str(corpus_path("pi-large-session.jsonl"))
    assert main(["whatif", source, "--json", "--strategies", ",".join(strategies)]) == 0
    report = json.loads(capsys.readouterr().out)["sessions"][0]
    results = {s["name"]: s for s in report["strategies"]}
    assert list(results) == strategies
    assert all(r["requests"] == 439 for r in results.values())
    calibration = report["calibration"]
    assert calibration["recorded_cost"] == pytest.approx(30.33, abs=0.01)
    assert abs(calibration["cost_error"]) < 0.15
    assert abs(calibration["prompt_tokens_error"]) < 0.15
    for name in CONDENSE_STRATEGIES.intersection(strategies):
        recovery = results[name]["recovery"]
        assert recovery["recoverable"] == recovery["pruned"] > 0, name
        assert results[name]["total_cost"] < results["none"]["total_cost"], name


def test_the_help_names_every_strategy_whatif_runs(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "2000")  # argparse would wrap inside a hyphenated name
    with pytest.raises(SystemExit):
        main(["whatif", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    missing = [name for name in STRATEGIES if name not in text]
    assert missing == []


def test_whatif_progress_counts_strategies_as_they_finish(small_session: Path) -> None:
    """Strategies run in parallel processes: the progress line counts them as each one ends (it named
    them all at once, then sat still for minutes on a long session)."""
    from pi_tui.modes.whatif import run_whatif, whatif_options
    from pi_tui.session.store import Session

    heard: list[tuple[int, int, str]] = []
    names = ["none", "masking", "condense"]
    run_whatif(Session.open(small_session), whatif_options([",".join(names)], None, "5m"),
               progress=lambda done, total, name: heard.append((done, total, name)))
    assert [done for done, _, _ in heard] == list(range(len(names) + 1))
    assert {total for _, total, _ in heard} == {len(names)}
    assert {name for _, _, name in heard if name} == set(names)


def test_whatif_into_a_log_says_each_session_once(small_session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["whatif", str(small_session), "--strategies", "none,masking"]) == 0
    err = capsys.readouterr().err
    assert err == f"whatif: {small_session.name}: 2 strategies\n"
