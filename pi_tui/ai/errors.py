"""What went wrong with a model request, in words the agent loop and the user can act on.

The loop needs one decision per failure (condense and retry, back off and retry, or stop), and the
user needs one line. Exceptions are classified by the names in their MRO rather than by
`isinstance`, so this module never imports litellm (a multi-second import) just to look at an error.

The assistant message that ends a failed stream only carries text (`errorMessage`), so the line we
write starts with a fixed headline per kind and `classify_error_text` reads the kind back from it;
for text written by someone else it falls back to Pi's own regexes.
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from collections.abc import Mapping
from typing import Any, Literal

from pi_tui.redaction import scrub

ErrorKind = Literal["context_overflow", "transient", "auth", "bad_request", "other"]

# Pi's provider overflow messages (packages/ai/src/utils/overflow.ts), one per provider family.
_OVERFLOW = re.compile(
    "|".join(
        (
            r"prompt is too long",
            r"input is too long for requested model",
            r"exceeds the context window",
            r"input token count.*exceeds the maximum",
            r"maximum prompt length is \d+",
            r"reduce the length of the messages",
            r"maximum context length is \d+ tokens",
            r"exceeds the limit of \d+",
            r"exceeds the available context size",
            r"greater than the context length",
            r"context window exceeds limit",
            r"exceeded model token limit",
            r"too large for model with \d+ maximum context length",
            r"context[_ ]length[_ ]exceeded",
            r"too many tokens",
            r"token limit exceeded",
        )
    ),
    re.IGNORECASE,
)
_OVERFLOW_NO_BODY = re.compile(r"^4(00|13)\s*(status code)?\s*\(no body\)", re.IGNORECASE)

# Pi's `_isRetryableError` message test (agent-session.ts).
_RETRYABLE = re.compile(
    r"overloaded|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|"
    r"internal.?error|connection.?error|connection.?refused|other side closed|fetch failed|"
    r"upstream.?connect|reset before headers|terminated|retry delay",
    re.IGNORECASE,
)

_CONTEXT_CLASSES = {"ContextWindowExceededError"}
_TRANSIENT_CLASSES = {
    "RateLimitError", "Timeout", "APITimeoutError", "APIConnectionError", "ServiceUnavailableError",
    "BadGatewayError", "InternalServerError", "MidStreamFallbackError",
    # Raw transport errors that escape litellm's mapping (httpx, aiohttp, the standard library).
    "TransportError", "ClientConnectionError", "ClientPayloadError", "TimeoutError", "ConnectionError",
}
_AUTH_CLASSES = {"AuthenticationError", "PermissionDeniedError", "NotFoundError"}
_BAD_REQUEST_CLASSES = {"BadRequestError", "UnprocessableEntityError"}
# What a refused (or unresolvable) connection raises under litellm's wrapper, which calls it a 500.
_CONNECT_CLASSES = {"ConnectError", "ClientConnectorError", "ConnectionRefusedError"}
_TRANSIENT_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}

_HEADLINES: dict[ErrorKind, str] = {
    "context_overflow": "Context window exceeded",
    "transient": "Temporary provider error",
    "auth": "Authentication or model error",
    "bad_request": "Request rejected by the provider",
    "other": "Model request failed",
}
_ADVICE: dict[ErrorKind, str] = {
    "context_overflow": "Condense the conversation or start a new session",
    "transient": "Try again in a moment",
    "auth": "Check the API key and the model name",
    "bad_request": "The request needs changing before it can succeed",
    "other": "Try again, or pick another model",
}
_MALFORMED_ADVICE = "Try again; if it keeps happening, check that server (or a proxy in front of it)"
_STATUS_CODE = re.compile(r"^ \(HTTP (\d+)\)")
MAX_LINE = 400
LONGEST_WAIT_S = 366 * 24 * 3600  # the longest wait a provider's Retry-After can ask of us (a setting caps it)
MISSING_KEY = "no API key for "  # how `models.missing_key` starts its line; read back as "auth"


class ModelError(Exception):
    """A model call that ended in an error, for callers that want an exception (e.g. a summariser)."""

    def __init__(self, message: str, kind: ErrorKind) -> None:
        super().__init__(message)
        self.kind = kind


def is_context_overflow(text: str) -> bool:
    """Pi's overflow test over an error message."""
    return bool(_OVERFLOW.search(text) or _OVERFLOW_NO_BODY.search(text))


def is_retryable(text: str) -> bool:
    """Pi's retry test over an error message: transient-looking and not an overflow."""
    return not is_context_overflow(text) and bool(_RETRYABLE.search(text))


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _status(exc: BaseException) -> int | None:
    """The HTTP status, unless litellm made one up for an error that never got a response."""
    if _class_names(exc) & {"APIConnectionError", "MidStreamFallbackError"}:
        return None
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def classify_exception(exc: BaseException) -> ErrorKind:
    """Context window first (it is also a bad request), then transient, auth, bad request."""
    names = _class_names(exc)
    text = str(exc)
    if not_encodable(exc) is not None:
        return "other"
    if names & _CONTEXT_CLASSES or ("RateLimitError" not in names and is_context_overflow(text)):
        return "context_overflow"
    if names & _TRANSIENT_CLASSES:
        return "transient"
    if names & _AUTH_CLASSES:
        return "auth"
    if names & _BAD_REQUEST_CLASSES:
        return "bad_request"
    return _classify_status(_status(exc)) or ("transient" if is_retryable(text) else "other")


def _classify_status(status: int | None) -> ErrorKind | None:
    if status is None:
        return None
    if status in _TRANSIENT_STATUS or status >= 500:
        return "transient"
    if status in (401, 403, 404):
        return "auth"
    if 400 <= status < 500:
        return "bad_request"
    return None


def classify_error_text(text: str) -> ErrorKind:
    """The kind of an `errorMessage`: ours by its headline, anyone else's by Pi's regexes."""
    for kind, headline in _HEADLINES.items():
        if text.startswith(headline):
            return kind
    if text.startswith(MISSING_KEY):
        return "auth"
    if is_context_overflow(text):
        return "context_overflow"
    return "transient" if is_retryable(text) else "other"


# --- the line the user sees -----------------------------------------------------------------------

_LITELLM_PREFIXES = re.compile(r"^(?:litellm\.\w+:\s*|\w+(?:Error|Exception):\s*|\w+Exception\s*-\s*)+")
_JSON_MESSAGE = re.compile(r'"message"\s*:\s*"((?:[^"\\]|\\.)*)"')
def one_line(text: str, limit: int = MAX_LINE) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def error_detail(exc: BaseException) -> str:
    """The provider's own words, without litellm's stacked class-name prefixes or wrapped repeats."""
    text = str(exc).split(" Original exception:", 1)[0].strip()
    text = _LITELLM_PREFIXES.sub("", text).strip()
    found = _JSON_MESSAGE.search(text)
    if found:
        try:
            text = json.loads(f'"{found.group(1)}"')
        except ValueError:
            text = found.group(1)
    return text or type(exc).__name__


def _chain(exc: BaseException) -> list[BaseException]:
    """`exc` and the exceptions it wraps, outermost first."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def cannot_connect(exc: BaseException) -> bool:
    """Whether the request never reached a server: litellm reports that as an HTTP 500, so look at
    the exceptions it wraps."""
    return any(_class_names(current) & _CONNECT_CLASSES for current in _chain(exc))


def not_encodable(exc: BaseException) -> UnicodeEncodeError | None:
    """The encoding error that stopped the request before it was sent (a header with a character ASCII
    cannot carry; the body's text is made valid before), which litellm reports as an HTTP 500: nothing a
    provider said, and nothing a retry would change."""
    return next((current for current in _chain(exc) if isinstance(current, UnicodeEncodeError)), None)


def malformed_stream(exc: BaseException) -> bool:
    """Whether a chunk of the reply's stream was not JSON: the parser's words (`Expecting property name
    enclosed in double quotes: line 1 column 2`) name a position in text the user never saw."""
    return any(isinstance(current, json.JSONDecodeError) for current in _chain(exc))


def _headers(exc: BaseException) -> Mapping[str, str]:
    """The failed response's headers, from litellm's exception (or the SDK's it wraps), if it had one."""
    headers: Any = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    return headers if isinstance(headers, Mapping) else {}


def _seconds(value: str, now: float) -> float | None:
    """Retry-After's two forms: a number of seconds, or an HTTP date (None for a date no calendar holds)."""
    try:
        return float(value)
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_tz(value)
        return None if parsed is None else email.utils.mktime_tz(parsed) - now
    except (ValueError, OverflowError):  # "year 99999 is out of range"
        return None


def retry_after_ms(exc: BaseException, now: float | None = None) -> int | None:
    """How long the provider asked us to wait before trying again: `retry-after-ms` (OpenAI's, and
    Azure's), else `Retry-After` (seconds or a date); None when it did not say. Whatever the number, it
    lies between 0 and LONGEST_WAIT_S, which is past any cap a setting gives: `1e308` seconds would
    overflow the arithmetic that follows."""
    headers = _headers(exc)
    wait: float | None = None
    with_ms = headers.get("retry-after-ms")
    if with_ms is not None:
        try:
            wait = float(with_ms) / 1000
        except ValueError:
            wait = None
    plain = headers.get("retry-after")
    if wait is None and plain is not None:
        wait = _seconds(plain.strip(), time.time() if now is None else now)
    if wait is None or math.isnan(wait):
        return None
    return math.ceil(min(max(wait, 0.0), LONGEST_WAIT_S) * 1000)


def error_line(exc: BaseException, kind: ErrorKind | None = None, endpoint: str | None = None) -> str:
    """One scrubbed line: headline, HTTP status when known, the provider's message, what to do.
    A connection that never reached a server names `endpoint` (the URL) instead of a made-up 500."""
    kind = kind or classify_exception(exc)
    unsent = not_encodable(exc)
    if unsent is not None:
        return format_error(kind, f"the request was not sent: it holds text that cannot be encoded ({unsent})")
    if endpoint and cannot_connect(exc):
        return format_error(kind, f"cannot connect to {endpoint}")
    if malformed_stream(exc):
        server = endpoint or "the server"
        return format_error(kind, f"{server} sent a malformed stream (a chunk that is not JSON)",
                            advice=_MALFORMED_ADVICE)
    return format_error(kind, error_detail(exc), _status(exc))


def retry_reason(line: str) -> str:
    """What failed, for a line that already says a retry is coming: the status and the provider's words,
    without the headline (a retry is only for passing failures) or the advice (the retry is the advice)."""
    kind = classify_error_text(line)
    headline = _HEADLINES[kind]
    if not line.startswith(headline):
        return line
    rest = line.removeprefix(headline)
    status = _STATUS_CODE.match(rest)
    reason = rest[status.end() if status else 0:].lstrip(" :")
    for advice in (_ADVICE[kind], _MALFORMED_ADVICE):
        reason = reason.removesuffix(f" {advice}.")
    return f"HTTP {status[1]}: {reason}" if status else reason


def format_error(kind: ErrorKind, detail: str, status: int | None = None, advice: str | None = None) -> str:
    """`advice`: what to do when the kind's own advice does not fit the failure."""
    code = f" (HTTP {status})" if status else ""
    detail = detail.strip().rstrip(".")
    return one_line(scrub(f"{_HEADLINES[kind]}{code}: {detail}. {advice or _ADVICE[kind]}."))
