"""`[condense]` settings: every key's default, the design's normalisation rules, and the settings file.

The reference (`src/config.test.ts`) normalises silently; our settings loader reports each invalid value in
one line and falls back to that key's default, so the fallback scenarios also check the line.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pydantic import ValidationError

from condense.config import ChainCompressionConfig, CondenseConfig, PurgeErrorsConfig, one_line_error
from pi_tui.settings import LoadResult, load_settings, save_settings, validate_document


def load(tmp_path: Path, condense_table: str) -> LoadResult:
    path = tmp_path / "settings.toml"
    path.write_text(f'theme = "kept"\n[condense]\n{condense_table}\n', encoding="utf-8")
    result = load_settings(path)
    assert result.settings.theme == "kept"  # a bad [condense] value never costs the rest of the file
    return result


# ------------------------------------------------------------- recoveryGraceTurns normalisation


def test_preserves_an_explicit_0(tmp_path: Path) -> None:
    result = load(tmp_path, "recovery_grace_turns = 0")
    assert result.errors == []
    assert result.settings.condense.recovery_grace_turns == 0


def test_falls_back_to_the_default_for_a_negative_value(tmp_path: Path) -> None:
    result = load(tmp_path, "recovery_grace_turns = -1")
    assert result.settings.condense.recovery_grace_turns == 3
    assert result.errors == ["settings.toml: condense.recovery_grace_turns: expected an integer >= 0, got -1"]


def test_falls_back_to_the_default_for_nan(tmp_path: Path) -> None:
    result = load(tmp_path, "recovery_grace_turns = nan")  # TOML can write NaN
    assert result.settings.condense.recovery_grace_turns == 3
    line = "settings.toml: condense.recovery_grace_turns: expected an integer >= 0, got NaN"
    assert result.errors == [line]


def test_falls_back_to_the_default_for_null() -> None:
    # TOML has no null; a document from elsewhere (a JSON import) may. Reported like any bad value.
    settings, errors = validate_document({"condense": {"recovery_grace_turns": None}})
    assert settings.condense.recovery_grace_turns == 3
    assert errors == ["settings.toml: condense.recovery_grace_turns: expected an integer >= 0, got null"]


def test_floors_a_fractional_value(tmp_path: Path) -> None:
    result = load(tmp_path, "recovery_grace_turns = 2.7")
    assert result.errors == []  # floored silently, as the design does
    assert result.settings.condense.recovery_grace_turns == 2


def test_falls_back_to_the_default_when_unset(tmp_path: Path) -> None:
    result = load(tmp_path, "enabled = true")
    assert result.errors == []
    assert result.settings.condense.recovery_grace_turns == 3


# --------------------------------------------------------------------------- summarizer timeouts


def test_defaults_both_timeouts_when_absent(tmp_path: Path) -> None:
    config = load(tmp_path, "").settings.condense
    assert (config.summarizer_idle_timeout_ms, config.summarizer_max_timeout_ms) == (20000, 180000)


def test_preserves_explicit_0_disabled_for_both(tmp_path: Path) -> None:
    result = load(tmp_path, "summarizer_idle_timeout_ms = 0\nsummarizer_max_timeout_ms = 0")
    assert result.errors == []
    config = result.settings.condense
    assert (config.summarizer_idle_timeout_ms, config.summarizer_max_timeout_ms) == (0, 0)


def test_falls_back_to_default_for_a_negative_idle_timeout(tmp_path: Path) -> None:
    result = load(tmp_path, "summarizer_idle_timeout_ms = -5\nsummarizer_max_timeout_ms = 1000")
    assert result.settings.condense.summarizer_idle_timeout_ms == 20000
    assert result.settings.condense.summarizer_max_timeout_ms == 1000
    assert result.errors == [
        "settings.toml: condense.summarizer_idle_timeout_ms: expected an integer >= 0, got -5"
    ]


def test_falls_back_to_default_for_nan_max_timeout(tmp_path: Path) -> None:
    result = load(tmp_path, "summarizerMaxTimeoutMs = nan")
    assert result.settings.condense.summarizer_max_timeout_ms == 180000
    line = "settings.toml: condense.summarizer_max_timeout_ms: expected an integer >= 0, got NaN"
    assert result.errors == [line]


def test_floors_a_fractional_idle_timeout(tmp_path: Path) -> None:
    result = load(tmp_path, "summarizer_idle_timeout_ms = 1234.9")
    assert result.errors == []
    assert result.settings.condense.summarizer_idle_timeout_ms == 1234


# ----------------------------------------------------------------------------- unknown keys


def test_loads_and_round_trips_a_stale_thinking_strip_block_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path))
    path = tmp_path / "settings.toml"
    path.write_text(
        "[condense]\nenabled = true\n[condense.thinkingStrip]\nenabled = true\nkeepLast = 2\n",
        encoding="utf-8",
    )
    result = load_settings(path)
    # Ours differs from the reference (which loads it silently): extra="forbid" reports an unknown key once.
    assert result.errors == ["settings.toml: condense.thinking_strip: unknown setting, ignored"]
    assert result.settings.condense == CondenseConfig()
    assert "thinking_strip" not in CondenseConfig.model_fields

    saved = save_settings({"condense": {"min_batch_chars": 0}})
    assert saved.condense.min_batch_chars == 0
    assert tomllib.loads(path.read_text(encoding="utf-8")) == {
        "condense": {"enabled": True, "thinkingStrip": {"enabled": True, "keepLast": 2}, "min_batch_chars": 0}
    }


# --------------------------------------------------------------------- every key, both spellings


def test_every_key_has_the_designed_default() -> None:
    config = CondenseConfig()
    assert config.model_dump() == {
        "enabled": True,
        "prune_on": "agent-message",
        "batching_mode": "turn",
        "summarizer_model": "default",
        "summarizer_thinking": "default",
        "protected_tools": [],
        "protected_paths": ["**/skills/**/*.md"],
        "spill_threshold": 65536,
        "spill_preview_bytes": 2048,
        "min_batch_chars": 2000,
        "summary_names": 20,
        "dedup_by_content_hash": True,
        "recovery_grace_turns": 3,
        "quiet_oversized_skips": False,
        "summarizer_idle_timeout_ms": 20000,
        "summarizer_max_timeout_ms": 180000,
        "auto_budget_threshold": 0.735,
        "budget_turn_delta": 0.04,
        "keep_recent": 1,
        "cold_cache_ms": 300000,
        "fold_keep_turns": 3,
        "fold_min_chars": 32_000,
        "min_flush_chars": 0,
        "purge_summarized_args": False,
        "superseded_reads": True,
        "index_copies": False,
        "show_prune_status_line": True,
        "chain_compression": {
            "enabled": True,
            "rolling_window": 0,
            "strip_final_assistant_thinking": True,
            "fuse_range_summary": True,
            "min_chars": 500,
        },
        "purge_errors": {"enabled": True, "cooldown_turns": 2, "min_arg_chars": 500},
    }


def test_every_key_is_documented_for_the_settings_overlay() -> None:
    for model in (CondenseConfig, ChainCompressionConfig, PurgeErrorsConfig):
        undocumented = [name for name, info in model.model_fields.items() if not info.description]
        assert undocumented == [], model.__name__


def test_design_camel_case_and_snake_case_both_load(tmp_path: Path) -> None:
    camel = load(
        tmp_path,
        'pruneOn = "on-demand"\nbatchingMode = "agent-message"\n'
        'summarizerModel = "anthropic/claude-haiku-4-5"\n'
        "autoBudgetThreshold = 0.5\nshowPruneStatusLine = false\n"
        "[condense.purgeErrors]\ncooldownTurns = 4\n[condense.chainCompression]\nrollingWindow = 0\n",
    )
    snake = load(
        tmp_path,
        'prune_on = "on-demand"\nbatching_mode = "agent-message"\n'
        'summarizer_model = "anthropic/claude-haiku-4-5"\n'
        "auto_budget_threshold = 0.5\nshow_prune_status_line = false\n"
        "[condense.purge_errors]\ncooldown_turns = 4\n[condense.chain_compression]\nrolling_window = 0\n",
    )
    assert camel.errors == snake.errors == []
    assert camel.settings.condense == snake.settings.condense
    config = camel.settings.condense
    assert (config.prune_on, config.batching_mode) == ("on-demand", "agent-message")
    assert config.auto_budget_threshold == 0.5
    assert config.purge_errors.cooldown_turns == 4
    assert config.chain_compression.rolling_window == 0
    assert config.summarizer_model == "anthropic/claude-haiku-4-5"
    assert config.show_prune_status_line is False


def test_nested_tables_merge_with_defaults_key_by_key(tmp_path: Path) -> None:
    result = load(
        tmp_path, "[condense.purge_errors]\ncooldown_turns = 4\n[condense.chain_compression]\nenabled = false"
    )
    assert result.errors == []
    merged = PurgeErrorsConfig(enabled=True, cooldown_turns=4, min_arg_chars=500)
    assert result.settings.condense.purge_errors == merged
    chains = ChainCompressionConfig(enabled=False, rolling_window=0)
    assert result.settings.condense.chain_compression == chains


def test_a_bad_nested_value_falls_back_alone(tmp_path: Path) -> None:
    result = load(tmp_path, "[condense.purgeErrors]\ncooldownTurns = -1\nminArgChars = 10")
    line = "settings.toml: condense.purge_errors.cooldown_turns: expected an integer >= 0, got -1"
    assert result.errors == [line]
    assert result.settings.condense.purge_errors == PurgeErrorsConfig(cooldown_turns=2, min_arg_chars=10)


# ------------------------------------------------------------------------------ value checks


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ('prune_on = "every-turn"',
         'prune_on: expected one of "agent-message", "on-demand", got "every-turn"'),
        ('batching_mode = "user"', 'batching_mode: expected one of "turn", "agent-message", got "user"'),
        ('summarizer_thinking = "max"',
         'summarizer_thinking: expected one of "default", "off", "minimal", "low", "medium", "high", '
         '"xhigh", got "max"'),
        ('summarizer_model = "haiku"',
         'summarizer_model: expected "default", "extractive" or "provider/model-id", got "haiku"'),
        ("spill_threshold = 0", "spill_threshold: expected an integer > 0, got 0"),
        ('min_batch_chars = "1000"', 'min_batch_chars: expected an integer >= 0, got "1000"'),
        ("enabled = 1", "enabled: expected true or false, got 1"),
        ('protected_tools = "todowrite"', 'protected_tools: expected a list of strings, got "todowrite"'),
        ("auto_budget_threshold = 1.5",
         "auto_budget_threshold: expected a number > 0 and <= 1, or 0 to turn the trigger off, got 1.5"),
        ("budget_turn_delta = -0.1",
         "budget_turn_delta: expected a number > 0 and <= 1, or 0 to turn the trigger off, got -0.1"),
    ],
)
def test_each_bad_value_is_one_line_and_falls_back(tmp_path: Path, line: str, error: str) -> None:
    result = load(tmp_path, line)
    assert result.errors == [f"settings.toml: condense.{error}"]
    assert result.settings.condense == CondenseConfig()


def test_extractive_and_default_are_summarizer_models() -> None:
    assert CondenseConfig(summarizer_model="extractive").summarizer_model == "extractive"
    assert CondenseConfig(summarizer_model="default").summarizer_model == "default"


def test_a_budget_fraction_of_0_turns_the_trigger_off_and_saves_back_as_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path))
    result = load(tmp_path, "auto_budget_threshold = 0\nbudget_turn_delta = 1")
    assert result.errors == []
    assert result.settings.condense.auto_budget_threshold is None
    assert result.settings.condense.budget_turn_delta == 1.0

    # None cannot be written to TOML (it would drop the key and bring the default back): it is saved as 0.
    off = result.settings.model_copy(update={"condense": CondenseConfig(budget_turn_delta=None)})
    assert save_settings(off).condense.budget_turn_delta is None
    on_disk = tomllib.loads((tmp_path / "settings.toml").read_text(encoding="utf-8"))
    assert on_disk["condense"]["budget_turn_delta"] == 0


def test_no_refusal_shows_a_regex_pattern() -> None:
    """Every pattern-checked setting says in words what it takes (`x-expected`), never the pattern."""
    patterned = [name for name, field in CondenseConfig.model_fields.items()
                 if any(getattr(m, "pattern", None) for m in field.metadata)]
    assert patterned, "the check below must cover something"
    for name in patterned:
        with pytest.raises(ValidationError) as caught:
            CondenseConfig.model_validate({name: "no such value"})
        line = one_line_error(caught.value, CondenseConfig)
        assert line.startswith(f"{name}: expected ") and "pattern" not in line and "^" not in line, line
