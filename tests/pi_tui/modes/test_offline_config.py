"""`replay` and `whatif` run with the same condense settings: the design's defaults, then
`--settings FILE`, then `--set` in order; never the user's own settings.toml implicitly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from condense.config import CondenseConfig
from pi_tui.cli import main
from pi_tui.errors import UserError
from pi_tui.modes.offline_config import offline_condense_config
from pi_tui.session.store import Session
from tests.support.priced_session import write_session


@pytest.fixture
def user_settings_off(isolated_home: Path) -> None:
    """The user turned pruning off and raised the batch minimum: replay and whatif must not care."""
    (isolated_home / "settings.toml").write_text("[condense]\nenabled = false\nmin_batch_chars = 99999\n",
                                                 encoding="utf-8")


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_defaults_are_the_designs_not_the_users(user_settings_off: None) -> None:
    assert offline_condense_config(None, []) == CondenseConfig()


def test_the_file_then_each_set_in_order(tmp_path: Path) -> None:
    file = write(tmp_path / "s.toml", 'default_model = "demo"\n[condense]\nminBatchChars = 50\n'
                                      "[condense.purge_errors]\ncooldown_turns = 5\n")
    config = offline_condense_config(file, ["min_batch_chars=7", "chain_compression.enabled=false",
                                            "min_batch_chars=9"])
    assert config.min_batch_chars == 9
    assert config.purge_errors.cooldown_turns == 5  # from the file, kept beside the --set of another table
    assert config.chain_compression.enabled is False
    assert config.chain_compression.rolling_window == CondenseConfig().chain_compression.rolling_window


def test_the_start_is_kept_where_the_file_says_nothing(tmp_path: Path) -> None:
    file = write(tmp_path / "s.toml", "[condense]\nmin_batch_chars = 50\n")
    config = offline_condense_config(file, [], CondenseConfig(summarizer_model="extractive"))
    assert (config.summarizer_model, config.min_batch_chars) == ("extractive", 50)


@pytest.mark.parametrize(("settings", "pairs", "message"), [
    (None, ["no_such_key=1"], "--set: unknown setting no_such_key"),
    (None, ["min_batch_char=1"], "--set: unknown setting min_batch_char (did you mean min_batch_chars?)"),
    (None, ["purge_errors.cooldown_turn=1"],
     "--set: unknown setting purge_errors.cooldown_turn (did you mean purge_errors.cooldown_turns?)"),
    (None, ["purge_errors=3"],
     "--set: purge_errors is a table: set its keys, e.g. purge_errors.cooldown_turns=3"),
    (".", [], "--settings .: is a folder; give the settings file in it"),
    (None, ["min_batch_chars=-5"], "--set: min_batch_chars:"),
    (None, ["min_batch_chars.x=1"], "--set min_batch_chars.x=1: min_batch_chars is a value, not a table"),
    (None, ["min_batch_chars"], "--set min_batch_chars: expected KEY=VALUE"),
    ("missing.toml", [], "--settings missing.toml: no such file"),
    ("bad.toml", [], "--settings bad.toml: "),
])
def test_bad_settings_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: str | None,
                                   pairs: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "bad.toml", "[condense]\nmin_batch_chars = \"many\"\n")
    with pytest.raises(UserError) as raised:
        offline_condense_config(settings, pairs)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)
    assert "instance of" not in str(raised.value) and "inputs are not permitted" not in str(raised.value)


def summaries(path: Path) -> int:
    return sum(1 for e in Session.open(path).entries if e.get("customType") == "context-prune-summary")


def test_replay_ignores_the_users_settings_and_follows_settings_and_set(
        user_settings_off: None, tmp_path: Path) -> None:
    source = str(write_session(tmp_path))
    assert main(["replay", source, "-o", str(tmp_path / "a.jsonl")]) == 0
    assert summaries(tmp_path / "a.jsonl") > 0  # the design's defaults: pruning on
    off = write(tmp_path / "off.toml", "[condense]\nenabled = false\n")
    assert main(["replay", source, "-o", str(tmp_path / "b.jsonl"), "--settings", off]) == 0
    assert summaries(tmp_path / "b.jsonl") == 0
    assert main(["replay", source, "-o", str(tmp_path / "c.jsonl"), "--settings", off, "--set", "enabled=true"]) == 0
    assert summaries(tmp_path / "c.jsonl") == summaries(tmp_path / "a.jsonl")


def pruned_by_condense(args: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    assert main(["whatif", *args, "--strategies", "condense", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["sessions"][0]
    pruned: int = report["strategies"][0]["recovery"]["pruned"]
    return pruned


def test_whatif_ignores_the_users_settings_and_follows_settings_and_set(
        user_settings_off: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = str(write_session(tmp_path))
    assert pruned_by_condense([source], capsys) > 0
    off = write(tmp_path / "off.toml", "[condense]\nenabled = false\n")
    assert pruned_by_condense([source, "--settings", off], capsys) == 0
    assert pruned_by_condense([source, "--set", "enabled=false"], capsys) == 0


@pytest.mark.parametrize("command", ["replay", "whatif"])
def test_a_bad_set_stops_either_command_with_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    source = str(write_session(tmp_path))
    extra = ["-o", str(tmp_path / "out.jsonl")] if command == "replay" else []
    assert main([command, source, *extra, "--set", "min_batch_chars=lots"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pi-tui: error: --set: min_batch_chars:") and err.count("\n") == 1
    assert not (tmp_path / "out.jsonl").exists()
