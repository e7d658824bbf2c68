"""Error classification and the one line the user sees, against litellm's real exception classes."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pi_tui.ai.errors import (
    LONGEST_WAIT_S,
    MAX_LINE,
    classify_error_text,
    classify_exception,
    error_line,
    is_context_overflow,
    is_retryable,
    retry_after_ms,
)
from pi_tui.ai.litellm_client import warm_up


@pytest.fixture(scope="module")
def litellm() -> Any:
    warm_up()
    import litellm

    return litellm


def make(litellm: Any, name: str, message: str = "boom") -> BaseException:
    cls = getattr(litellm, name)
    statuses = {"PermissionDeniedError": 403, "UnprocessableEntityError": 422}
    if name in statuses:
        request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
        response = httpx.Response(statuses[name], request=request)
        error: BaseException = cls(message=message, llm_provider="openai", model="m", response=response)
        return error
    error = cls(message=message, llm_provider="openai", model="m")
    return error


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("ContextWindowExceededError", "context_overflow"),
        ("RateLimitError", "transient"),
        ("Timeout", "transient"),
        ("APIConnectionError", "transient"),
        ("ServiceUnavailableError", "transient"),
        ("BadGatewayError", "transient"),
        ("InternalServerError", "transient"),
        ("AuthenticationError", "auth"),
        ("PermissionDeniedError", "auth"),
        ("NotFoundError", "auth"),
        ("BadRequestError", "bad_request"),
        ("UnprocessableEntityError", "bad_request"),
    ],
)
def test_litellm_classes(litellm: Any, name: str, kind: str) -> None:
    assert classify_exception(make(litellm, name)) == kind


def test_overflow_wording_in_a_plain_bad_request_is_an_overflow(litellm: Any) -> None:
    exc = make(litellm, "BadRequestError", "prompt is too long: 213462 tokens > 200000 maximum")
    assert classify_exception(exc) == "context_overflow"


def test_a_rate_limit_is_never_an_overflow_whatever_it_says(litellm: Any) -> None:
    assert classify_exception(make(litellm, "RateLimitError", "too many tokens per minute")) == "transient"


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (httpx.RemoteProtocolError("peer closed connection"), "transient"),
        (ConnectionResetError("reset by peer"), "transient"),
        (TimeoutError(), "transient"),
        (RuntimeError("upstream connect error or disconnect/reset before headers"), "transient"),
        (ValueError("something odd"), "other"),
    ],
)
def test_errors_outside_litellm(exc: BaseException, kind: str) -> None:
    assert classify_exception(exc) == kind


def test_http_status_decides_for_unknown_classes() -> None:
    class ProviderError(Exception):
        def __init__(self, status: int) -> None:
            super().__init__("failed")
            self.status_code = status

    kinds = [classify_exception(ProviderError(s)) for s in (529, 401, 422)]
    assert kinds == ["transient", "auth", "bad_request"]


@pytest.mark.parametrize(
    "text",
    [
        "prompt is too long: 213462 tokens > 200000 maximum",
        "Your input exceeds the context window of this model",
        "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
        "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
        "Please reduce the length of the messages or completion",
        "This endpoint's maximum context length is 8192 tokens. However, you requested about 9000 tokens",
        "the request exceeds the available context size, try increasing it",
        "prompt token count of 9000 exceeds the limit of 8192",
        "Error code: context_length_exceeded",
        "400 status code (no body)",
    ],
)
def test_pi_overflow_messages(text: str) -> None:
    assert is_context_overflow(text)
    assert not is_retryable(text)


@pytest.mark.parametrize(
    ("text", "retryable"),
    [
        ("overloaded_error: Overloaded", True),
        ("Rate limit reached for requests", True),
        ("503 Service Unavailable", True),
        ("Connection error.", True),
        ("other side closed", True),
        ("Incorrect API key provided", False),
        ("Invalid 'messages[2].role'", False),
    ],
)
def test_pi_retryable_messages(text: str, retryable: bool) -> None:
    assert is_retryable(text) is retryable


@pytest.mark.parametrize(
    "name", ["ContextWindowExceededError", "RateLimitError", "AuthenticationError", "BadRequestError"]
)
def test_the_kind_survives_the_round_trip_through_the_error_line(litellm: Any, name: str) -> None:
    exc = make(litellm, name, "Something went wrong")
    assert classify_error_text(error_line(exc)) == classify_exception(exc)


def test_unknown_error_text_falls_back_to_pis_regexes() -> None:
    assert classify_error_text("socket hang up: other side closed") == "transient"
    assert classify_error_text("prompt is too long") == "context_overflow"
    assert classify_error_text("weird") == "other"


def test_the_line_keeps_the_providers_words_without_litellm_class_prefixes(litellm: Any) -> None:
    line = error_line(make(litellm, "RateLimitError", "Rate limit reached for requests"))
    assert line.startswith("Temporary provider error (HTTP 429): ")
    assert "Rate limit reached for requests" in line
    assert "litellm." not in line
    assert "RateLimitError" not in line


def test_the_line_never_contains_a_key(litellm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MYPROVIDER_API_KEY", "plainsecretvalue42")
    message = (
        "Incorrect API key provided: sk-proj-abcdefghijklmnop1234. Header was Authorization: Bearer "
        "eyJhbGciOi.xyz, api_key=zzzzzzzzzz and the key plainsecretvalue42"
    )
    line = error_line(make(litellm, "AuthenticationError", message))
    for secret in ("abcdefghijklmnop1234", "eyJhbGciOi", "zzzzzzzzzz", "plainsecretvalue42"):
        assert secret not in line
    assert line.endswith("Check the API key and the model name.")


def test_the_line_is_one_bounded_line(litellm: Any) -> None:
    line = error_line(make(litellm, "BadRequestError", "first\nsecond\n\n" + "x" * 2000))
    assert "\n" not in line
    assert len(line) <= MAX_LINE
    assert "first second" in line


def rate_limit_with(litellm: Any, headers: dict[str, str]) -> BaseException:
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(429, request=request, headers=headers)
    error: BaseException = litellm.RateLimitError(message="slow down", llm_provider="openai", model="m",
                                                  response=response)
    return error


@pytest.mark.parametrize(("headers", "wait"), [
    ({"Retry-After": "7"}, 7000),
    ({"retry-after": "0.25"}, 250),
    ({"retry-after-ms": "1500", "retry-after": "3600"}, 1500),  # the precise one first, as OpenAI's SDK reads them
    ({"retry-after": "Sun, 06 Nov 1994 08:49:37 GMT"}, 12_000),  # a date: 12 s after `now` below
    ({"retry-after": "Sun, 06 Nov 1994 08:49:00 GMT"}, 0),  # already past
    ({"retry-after": "soon"}, None),
    ({}, None),
    # absurd numbers wait the longest any setting would let them (the loop caps that); none may crash
    ({"retry-after": "1e308"}, LONGEST_WAIT_S * 1000),
    ({"retry-after": "inf"}, LONGEST_WAIT_S * 1000),
    ({"retry-after-ms": "1e308"}, LONGEST_WAIT_S * 1000),
    ({"retry-after": "-1e308"}, 0),
    ({"retry-after": "nan"}, None),
    ({"retry-after": "Sun, 06 Nov 99999 08:49:37 GMT"}, None),
])
def test_the_wait_a_provider_asks_for(litellm: Any, headers: dict[str, str], wait: int | None) -> None:
    now = 784111765.0  # 1994-11-06 08:49:25 UTC
    assert retry_after_ms(rate_limit_with(litellm, headers), now=now) == wait
