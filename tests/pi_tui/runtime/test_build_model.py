"""The model a run uses when no `--model` names one, as Pi picks it: the default_model setting, else the first
model with a key (a built-in provider's usual model, then models.json's own), said in one line; the offline
demo only when no model has a key. A models.json provider serves only the models it lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.ai.models import choose_model
from pi_tui.runtime.build import LaunchOptions, build_runtime
from pi_tui.settings import LiveSettings, Settings
from pi_tui.tui.first_screen import first_screen
from tests.support.cli import run_cli
from tests.support.fake_openai import FakeOpenAI, text_reply
from tests.support.pi_home import KEY_VARIABLE, MODEL, PROVIDER, pi_agent_dir, write_models_json

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning:litellm"),
    pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning"),
]
REF = f"{PROVIDER}/{MODEL}"
PICKED = (f"model {REF}, the first with a key ({KEY_VARIABLE} via models.json): no --model or default_model"
          " chose one")
UNLISTED = (f"models.json's provider {PROVIDER} has no model 'qwen-9': it has {MODEL}; add the model to models.json,"
            " or give --base-url to reach a server by any model name")


def test_print_mode_asks_the_models_json_provider_that_has_the_only_key(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    write_models_json(pi_agent_dir(), fake_openai.base_url)
    fake_openai.push(text_reply(f"I am {MODEL}."))
    done = run_cli("-p", "which model", cwd=tmp_path, env={KEY_VARIABLE: "sk-local"})
    assert (done.returncode, done.stdout.strip()) == (0, f"I am {MODEL}."), done.stderr
    assert done.stderr.splitlines() == [f"pi-tui: {PICKED}"], "which model and why, in one line; never the demo"
    assert fake_openai.requests[0]["model"] == MODEL and fake_openai.authorizations == ["Bearer sk-local"]


def test_the_tuis_first_screen_names_the_model_it_picked_and_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_models_json(pi_agent_dir(), "http://127.0.0.1:9/v1")
    monkeypatch.setenv(KEY_VARIABLE, "sk-local")
    runtime = build_runtime(LaunchOptions(launch_dir=tmp_path), LiveSettings(Settings()))
    assert runtime.model.ref == REF
    header, notices = first_screen(runtime, "~/project", [])
    assert f"model {REF}" in header[0].splitlines()[0] and notices == (PICKED, "warning")


def test_a_built_in_provider_with_a_key_comes_before_models_json_as_in_pis_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    write_models_json(pi_agent_dir(), "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    spec, notices = choose_model(None, None)
    assert spec.ref == "openai/gpt-5.1"
    assert notices == ["model openai/gpt-5.1, the first with a key (OPENAI_API_KEY): no --model or"
                       " default_model chose one"]


def test_a_default_model_without_its_key_is_passed_over_and_named(monkeypatch: pytest.MonkeyPatch) -> None:
    write_models_json(pi_agent_dir(), "http://127.0.0.1:9/v1", api_key="sk-literal-key")
    spec, notices = choose_model(None, "anthropic/claude-sonnet-4-5")
    assert spec.ref == REF
    assert notices == [f"model {REF}, the first with a key (models.json's apiKey): default_model"
                       " anthropic/claude-sonnet-4-5 has no key (set ANTHROPIC_API_KEY)"]
    assert "sk-literal-key" not in notices[0]


def test_with_no_key_anywhere_the_demo_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    write_models_json(pi_agent_dir(), "http://127.0.0.1:9/v1", api_key="!pass show local")  # never run: no key
    spec, notices = choose_model(None, None)
    assert spec.provider == "demo" and notices[0].startswith("no API key found: using the offline demo model")


def test_a_model_the_models_json_provider_does_not_list_is_refused_with_exit_2(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    write_models_json(pi_agent_dir(), fake_openai.base_url)
    done = run_cli("-p", "x", "--model", f"{PROVIDER}/qwen-9", cwd=tmp_path, env={KEY_VARIABLE: "sk-local"})
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"pi-tui: error: {UNLISTED}"]
    assert fake_openai.requests == []


def test_base_url_still_reaches_a_server_by_any_model_name(tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    write_models_json(pi_agent_dir(), "http://127.0.0.1:9/v1")
    fake_openai.push(text_reply("served"))
    done = run_cli("-p", "x", "--model", f"{PROVIDER}/qwen-9", "--base-url", fake_openai.base_url, cwd=tmp_path,
                   env={KEY_VARIABLE: "sk-local"})
    assert (done.returncode, done.stdout.strip()) == (0, "served"), done.stderr
    assert fake_openai.requests[0]["model"] == "qwen-9"


def test_a_recorded_model_models_json_no_longer_lists_is_replaced_saying_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_models_json(pi_agent_dir(), "http://127.0.0.1:9/v1")
    monkeypatch.setenv(KEY_VARIABLE, "sk-local")
    spec, notices = choose_model(None, None, recorded=f"{PROVIDER}/qwen-9")
    assert spec.ref == REF and notices == [f"could not restore model {PROVIDER}/qwen-9 ({UNLISTED}): using {REF}",
                                           PICKED]
