"""Model refs get their real limits and prices (litellm's bundled map, then the settings), and a
missing key is said in one line before any request is sent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pi_tui.ai.model_map import PER_MILLION, map_entry
from pi_tui.ai.models import choose_model, missing_key, parse_model_ref
from pi_tui.ai.types import ModelSpec
from pi_tui.settings import ModelSettings, load_settings


@pytest.mark.parametrize(("ref", "window", "output"), [
    ("anthropic/claude-sonnet-4-5", 200_000, 64_000),  # the bare key `claude-sonnet-4-5`
    ("openai/gpt-5.1", 272_000, 128_000),
    ("gemini/gemini-2.5-pro", 1_048_576, 65_536),  # the provider-prefixed key wins over the bare one
    ("openrouter/anthropic/claude-sonnet-4.5", 200_000, 64_000),  # the vendor's model behind the router
])
def test_known_models_get_the_window_and_output_limit_of_litellms_map(ref: str, window: int, output: int) -> None:
    spec = parse_model_ref(ref)
    assert (spec.context_window, spec.max_tokens) == (window, output)
    assert spec.prices.input > 0 and spec.prices.output > spec.prices.input


def test_an_entry_of_another_provider_is_not_taken_for_this_one() -> None:
    assert map_entry("anthropic", "claude-sonnet-4-5") is not None
    assert map_entry("openai", "claude-sonnet-4-5") is None  # the bare key belongs to anthropic


def test_an_unknown_model_keeps_the_defaults_with_a_one_line_notice() -> None:
    spec, notices = choose_model("openai/my-model", None, "http://127.0.0.1:1/v1")
    default = ModelSpec(provider="x", id="y")
    assert (spec.context_window, spec.max_tokens) == (default.context_window, default.max_tokens)
    assert spec.prices.input == 0.0
    assert len(notices) == 1 and "\n" not in notices[0]
    assert 'openai/my-model' in notices[0] and '[models."openai/my-model"]' in notices[0]


def test_settings_give_an_unknown_model_its_limits_and_prices(isolated_home: Path) -> None:
    (isolated_home / "settings.toml").write_text(
        '[models."openai/My-Model"]\ncontextWindow = 32768\nmax_tokens = 4096\ninput_cost = 0.5\n'
        'output_cost = 2\n', encoding="utf-8")
    loaded = load_settings()
    assert loaded.errors == []
    spec, notices = choose_model("openai/My-Model", None, "http://127.0.0.1:1/v1", loaded.settings.models)
    assert (spec.context_window, spec.max_tokens) == (32_768, 4_096)
    assert spec.prices.input == pytest.approx(0.5 / PER_MILLION)
    assert spec.prices.output == pytest.approx(2 / PER_MILLION)
    assert notices == []


def test_settings_win_over_the_map_value_by_value() -> None:
    mapped = parse_model_ref("anthropic/claude-sonnet-4-5")
    models = {"anthropic/claude-sonnet-4-5": ModelSettings(context_window=100_000, cache_read_cost=0.1)}
    spec = parse_model_ref("anthropic/claude-sonnet-4-5", models=models)
    assert spec.context_window == 100_000
    assert spec.max_tokens == mapped.max_tokens  # not overridden: still the map's
    assert spec.prices.cache_read == pytest.approx(0.1 / PER_MILLION)
    assert spec.prices.input == mapped.prices.input


def test_reading_the_map_does_not_import_litellm() -> None:
    code = ("import sys; from pi_tui.ai.models import parse_model_ref;"
            " spec = parse_model_ref('anthropic/claude-sonnet-4-5');"
            " assert spec.context_window == 200_000, spec; print('litellm' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "False"


def test_a_missing_key_is_one_line_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = parse_model_ref("anthropic/claude-sonnet-4-5")
    assert missing_key(spec) == "no API key for anthropic: set ANTHROPIC_API_KEY"
    assert missing_key(parse_model_ref("openai/my-model", "http://127.0.0.1:1/v1")) is None  # local server
    assert missing_key(parse_model_ref("demo")) is None
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    assert missing_key(spec) is None


def test_a_key_in_litellms_other_variable_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = parse_model_ref("gemini/gemini-2.5-pro")
    assert missing_key(spec) == "no API key for gemini: set GEMINI_API_KEY"
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    assert missing_key(spec) is None


def test_a_bad_models_table_is_reported_key_by_key_and_the_rest_kept(isolated_home: Path) -> None:
    (isolated_home / "settings.toml").write_text(
        '[models."openai/x"]\ncontext_window = "big"\nmax_tokens = 4096\n[models.gpt]\ncontext_window = 5\n',
        encoding="utf-8")
    loaded = load_settings()
    assert loaded.errors == [
        'settings.toml: models.openai/x.context_window: expected an integer > 0, got "big"',
        'settings.toml: models.gpt: expected a name such as "provider/model-id", ignored',
    ]
    assert loaded.settings.models["openai/x"].max_tokens == 4096
    assert "gpt" not in loaded.settings.models
