"""Known key values (the environment's, a `--base-url`'s) become a visible placeholder wherever text leaves."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tui import redaction
from pi_tui.redaction import redact, redact_json, remember_base_url, scrub

ANTHROPIC_KEY = "ant-SECRET-7f3a9c2e51"  # not sk- shaped: only the environment says it is a key


@pytest.fixture(autouse=True)
def _no_remembered_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `--base-url` is remembered for the process: each test starts with none."""
    monkeypatch.setattr(redaction, "_url_secrets", {})


@pytest.mark.parametrize("name", ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "HF_TOKEN", "WATSONX_APIKEY",
                                  "SUPABASE_KEY", "AZURE_CLIENT_SECRET", "REDIS_PASSWORD"])
def test_every_credential_variable_litellm_reads_is_redacted_by_name(monkeypatch: pytest.MonkeyPatch,
                                                                     name: str) -> None:
    monkeypatch.setenv(name, ANTHROPIC_KEY)
    assert redact(f"{name}={ANTHROPIC_KEY}\nnext") == f"{name}=[redacted:{name}]\nnext"


def test_short_values_and_other_variables_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_TOKEN", "true")  # would blank a common word everywhere
    monkeypatch.setenv("EDITOR_THEME", "solarized-dark")
    text = "true: solarized-dark"
    assert redact(text) is text


def test_a_key_holding_another_is_replaced_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A_TOKEN", "abcdefgh")
    monkeypatch.setenv("B_API_KEY", "abcdefgh-and-more")
    assert redact("abcdefgh-and-more abcdefgh") == "[redacted:B_API_KEY] [redacted:A_TOKEN]"


def test_a_key_is_redacted_without_the_blanks_around_it_and_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", f"  {ANTHROPIC_KEY} \n")
    monkeypatch.setenv("DEPLOY_KEY", "-----BEGIN KEY-----\r\nMIIEvQIBADANBgkq\r\nshort\r\n")
    assert redact(f"[{ANTHROPIC_KEY}]") == "[[redacted:OPENAI_API_KEY]]"
    assert redact("one line: MIIEvQIBADANBgkq, then short") == "one line: [redacted:DEPLOY_KEY], then short"


def test_a_base_urls_key_parameters_and_password_are_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    remember_base_url("https://bob:pa55word-x@llm.example/v1?api-version=2024-10-21&key=QUERYSECRET123")
    text = "GET /v1?key=QUERYSECRET123 as bob:pa55word-x (api-version 2024-10-21)"
    assert redact(text) == ("GET /v1?key=[redacted:--base-url key] as bob:[redacted:--base-url password]"
                            " (api-version 2024-10-21)")


def test_a_key_the_url_spells_escaped_is_redacted_both_ways() -> None:
    remember_base_url("http://127.0.0.1:8000/v1?token=a%2Bb%2Fc%3D12345&sig=plus+sign+kept")
    assert redact("a+b/c=12345 and a%2Bb%2Fc%3D12345") == "[redacted:--base-url token] and [redacted:--base-url token]"
    assert redact("plus+sign+kept, plus sign kept") == "[redacted:--base-url sig], [redacted:--base-url sig]"


def test_a_message_without_a_key_is_the_same_object_and_one_with_a_key_is_a_copy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ANTHROPIC_KEY)
    clean: dict[str, Any] = {"role": "toolResult", "content": [{"type": "text", "text": "ok"}], "details": None}
    assert redact_json(clean) is clean
    leaked: dict[str, Any] = {"role": "toolResult", "content": [{"type": "text", "text": f"K={ANTHROPIC_KEY}"},
                                                               {"type": "image", "data": "AAAA"}],
                              "details": {"lines": [ANTHROPIC_KEY], "n": 1}}
    redacted = redact_json(leaked)
    assert redacted["content"][0]["text"] == "K=[redacted:OPENAI_API_KEY]"
    assert redacted["content"][1] is leaked["content"][1]
    assert redacted["details"] == {"lines": ["[redacted:OPENAI_API_KEY]"], "n": 1}
    assert leaked["content"][0]["text"] == f"K={ANTHROPIC_KEY}", "the original is never changed"


def test_scrub_adds_what_only_looks_like_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "abcdef123456")
    line = scrub("token abcdef123456, Bearer eyJhbGciOi.xyz, sk-proj-abcdefghijkl and api_key=zzzzzzzzzz")
    assert line == "token [redacted:GITHUB_TOKEN], Bearer ***, sk-*** and api_key=***"
    assert scrub("OPENAI_API_KEY=[redacted:OPENAI_API_KEY]") == "OPENAI_API_KEY=[redacted:OPENAI_API_KEY]"
