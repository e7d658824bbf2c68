"""Pi's models.json: a custom provider's models are usable as `provider/id` with their URL, key and limits;
a built-in provider's changes apply; a broken file is one line and changes nothing."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi_tui.abort import AbortSignal
from pi_tui.ai.litellm_client import LiteLLMClient, completion_kwargs, warm_up
from pi_tui.ai.models import choose_model, has_key, missing_key, parse_model_ref
from pi_tui.ai.models_json import catalog
from pi_tui.ai.types import ModelRequest, StreamEvent
from tests.support.fake_openai import FakeOpenAI, text_reply
from tests.support.pi_home import KEY_VARIABLE, MODEL, PROVIDER, pi_agent_dir, write_models_json

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning:litellm"),
    pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning"),
]
REF = f"{PROVIDER}/{MODEL}"
URL = "http://127.0.0.1:9/v1"


def write(folder: Path, providers: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "models.json"
    path.write_text(json.dumps({"providers": providers}), encoding="utf-8")
    return path


def test_a_custom_model_has_its_url_limits_prices_and_no_key_in_sight() -> None:
    write_models_json(pi_agent_dir(), URL)
    spec = parse_model_ref(REF)
    assert (spec.base_url, spec.route, spec.api, spec.context_window, spec.max_tokens) == (
        URL, "openai", "openai-completions", 32_768, 4096)
    assert spec.prices.input == pytest.approx(0.5e-6) and spec.prices.output == pytest.approx(1.5e-6)
    assert KEY_VARIABLE not in repr(spec), "a repr can reach a log; the key's source stays out of it"
    assert choose_model(REF, None) == (spec, []), "no 'not in litellm's map' notice: models.json gave the window"
    assert has_key(PROVIDER) and missing_key(spec) is None


def test_the_key_is_the_named_variable_or_the_literal_as_pi_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    write_models_json(pi_agent_dir(), URL)
    request = ModelRequest(model=parse_model_ref(REF), system_prompt="", messages=[])
    assert completion_kwargs(request)["api_key"] == KEY_VARIABLE, "unset: the value is the key itself"
    monkeypatch.setenv(KEY_VARIABLE, "sk-from-the-environment")
    kwargs = completion_kwargs(request)
    assert (kwargs["model"], kwargs["api_base"], kwargs["api_key"]) == (
        f"openai/{MODEL}", URL, "sk-from-the-environment")


def test_a_command_key_is_never_run_and_says_what_to_do_instead(tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    write_models_json(pi_agent_dir(), URL, api_key=f"!touch {ran}; echo sk-from-a-command")
    spec = parse_model_ref(REF)
    advice = (f"{PROVIDER}: models.json's apiKey is a command (!...), which pi-tui does not run; put the secret"
              " in an environment variable and write its name as the apiKey")
    assert catalog().problems == (advice,)
    assert missing_key(spec) == f"no API key for {advice}" and not has_key(PROVIDER)
    assert not ran.exists()


async def test_a_request_reaches_the_providers_url_with_its_key(
        fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    warm_up()
    write_models_json(pi_agent_dir(), fake_openai.base_url)
    monkeypatch.setenv(KEY_VARIABLE, "sk-local")
    fake_openai.push(text_reply("hi"))
    request = ModelRequest(model=parse_model_ref(REF), system_prompt="s",
                           messages=[{"role": "user", "content": "hello", "timestamp": 1}])

    async def run() -> list[StreamEvent]:
        return [event async for event in LiteLLMClient().stream(request, AbortSignal())]

    events = await asyncio.wait_for(run(), 20)
    message = events[-1].message
    assert events[-1].type == "done" and (message["provider"], message["model"]) == (PROVIDER, MODEL)
    assert fake_openai.requests[0]["model"] == MODEL and fake_openai.authorizations == ["Bearer sk-local"]


def test_a_built_in_providers_url_key_and_model_limits_can_be_changed() -> None:
    write(pi_agent_dir(), {"openai": {"baseUrl": URL, "apiKey": "PROXY_KEY",
                                      "modelOverrides": {"gpt-5.1": {"contextWindow": 64_000, "cost": {"input": 2}}}}})
    spec = parse_model_ref("openai/gpt-5.1")
    assert (spec.base_url, spec.context_window) == (URL, 64_000) and spec.prices.input == pytest.approx(2e-6)
    assert spec.max_tokens > 16_384, "what the override leaves out comes from litellm's map"
    assert has_key("openai") and missing_key(spec) is None
    assert parse_model_ref("openai/gpt-5.1", base_url="http://cli/v1").base_url == "http://cli/v1"


def test_pi_tuis_file_replaces_pis_provider_of_the_same_name() -> None:
    write_models_json(pi_agent_dir(), URL, context_window=1000)
    write_models_json(Path(os.environ["PI_TUI_HOME"]), URL, context_window=2000)
    assert parse_model_ref(REF).context_window == 2000


def test_a_broken_file_is_one_line_and_nothing_in_it_is_used() -> None:
    path = write(pi_agent_dir(), {PROVIDER: {"baseUrl": URL, "api": "openai-completions",
                                             "models": [{"id": MODEL}]}})
    assert catalog().problems == (f'{path}: provider {PROVIDER}: "apiKey" is required when it defines models;'
                                  " nothing in it is used",)
    assert catalog().models == {}
    path.write_text('{"providers": {"x": {"baseUrl": 5}}}', encoding="utf-8")
    assert catalog().problems == (f"{path}: providers.x.baseUrl: Input should be a valid string;"
                                  " nothing in it is used",), "read again: the file changed"
    path.write_text("{not json", encoding="utf-8")
    assert catalog().problems[0].startswith(f"{path}: Invalid JSON")


@pytest.mark.parametrize("where", ["provider", "model"])
def test_a_base_url_with_a_password_is_refused_without_showing_it(where: str) -> None:
    """The HTTP client refuses credentials in the URL beside the key's own header: it was a provider 500."""
    secret_url = "http://me:hunter2secret@127.0.0.1:9/v1"
    model: dict[str, Any] = {"id": MODEL, **({"baseUrl": secret_url} if where == "model" else {})}
    path = write(pi_agent_dir(), {PROVIDER: {"baseUrl": secret_url if where == "provider" else URL, "apiKey": "K",
                                             "api": "openai-completions", "models": [model]}})
    assert catalog().problems == (f'{path}: provider {PROVIDER}: "baseUrl" http://***@127.0.0.1:9/v1 holds a user'
                                  ' name or password, which cannot be sent beside the key: give the URL without it'
                                  ' and the key in "apiKey"; nothing in it is used',)
    assert catalog().models == {}


def test_an_api_pi_tui_cannot_call_leaves_out_that_model_only() -> None:
    write(pi_agent_dir(), {PROVIDER: {"baseUrl": URL, "apiKey": "K", "api": "openai-completions", "models": [
        {"id": MODEL}, {"id": "other", "api": "bedrock-converse-stream"}]}})
    assert list(catalog().models) == [REF]
    assert catalog().problems == (f"models.json: {PROVIDER}/other: pi-tui cannot call api 'bedrock-converse-stream';"
                                  " use one of openai-completions, openai-responses, anthropic-messages,"
                                  " google-generative-ai",)
