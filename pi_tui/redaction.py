"""Keys never leave through pi-tui: the values of the keys it knows are replaced by a visible placeholder.

A key is in the environment (litellm reads every provider's key from a variable, and a command like
`env` prints them all) or in the `--base-url` (`?key=...`, `https://user:key@host`). Whatever text
crosses an edge toward a file or a provider (a tool's result before the agent loop takes it, an error
line, a log record, a crash report) goes through `redact` first, so the session file, the provider
and the logs never hold one. The placeholder names the variable (`[redacted:OPENAI_API_KEY]`): the
model and the person reading the session still see that something was there, and where it came from.

Values shorter than `MIN_SECRET_CHARS` are left alone: `KEY=true` or a four-letter token would blank
common words everywhere. `scrub` adds pattern matching (`sk-...`, `Bearer ...`) for text that is only
ever read by a person (errors, logs), where a key pi-tui does not know of may still be quoted.
"""

from __future__ import annotations

import functools
import os
import re
import urllib.parse
from collections.abc import Mapping
from typing import TypeVar

from condense.json_text import map_strings

MIN_SECRET_CHARS = 8
# the last word of a variable litellm (or a tool the agent runs) takes a credential from:
# ANTHROPIC_API_KEY, WATSONX_APIKEY, ANTHROPIC_AUTH_TOKEN, HF_TOKEN, AZURE_CLIENT_SECRET, REDIS_PASSWORD
_SECRET_NAME_ENDINGS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
# a `--base-url` query parameter holding a credential: ?key=, ?api_key=, ?token=, ?sig=, ?code=, ?auth=
_SECRET_PARAM = re.compile(r"key|token|secret|sig|pass|auth|code|cred", re.IGNORECASE)
_PATTERNS = (
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), "sk-***"),
    (re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=\-]+", re.IGNORECASE), "Bearer ***"),
    (
        re.compile(r"((?:api[_-]?key|x-api-key)[\"']?\s*[:=]\s*[\"']?)(?!\[redacted:)[^\"'\s,&;]{6,}", re.IGNORECASE),
        r"\1***",
    ),
)
_url_secrets: dict[str, str] = {}  # value -> label, from the `--base-url` of this process

T = TypeVar("T")


def is_secret_name(name: str) -> bool:
    return name.upper().endswith(_SECRET_NAME_ENDINGS)


def remember_base_url(url: str | None) -> None:
    """Take the credentials a `--base-url` carries (query values, the password) as keys from now on."""
    if not url:
        return
    parts = urllib.parse.urlsplit(url.strip())
    for pair in parts.query.split("&"):
        name, _, value = pair.partition("=")
        if _SECRET_PARAM.search(name):
            _remember(value, f"--base-url {urllib.parse.unquote_plus(name)}")
    if parts.password or parts.username:  # `https://TOKEN@host` carries the token as the user name
        _remember(parts.password or parts.username or "", "--base-url password")


def url_with_credentials_hidden(url: str) -> str | None:
    """`url` with its user name and password shown as `***`, or None when it carries none.

    A provider's key travels in its own Authorization header and the HTTP client refuses a second one
    from the URL (it surfaced as a provider error, retried): such a URL is refused where it is given."""
    parts = urllib.parse.urlsplit(url.strip())
    if "@" not in parts.netloc:
        return None
    return parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]).geturl()


def _remember(spelled: str, label: str) -> None:
    """The value as the URL spells it and as it is decoded (what a server echoes, a tool prints)."""
    for value in {spelled, urllib.parse.unquote(spelled), urllib.parse.unquote_plus(spelled)}:
        _url_secrets.update(dict.fromkeys(_forms(value), label))


def _forms(value: str) -> set[str]:
    """How a value can be printed: as it is, without the blanks around it (`echo $KEY` drops a trailing
    space, a provider client strips it), and line by line when it spans several (a tool prints one line of a
    PEM key); only forms of MIN_SECRET_CHARS or more."""
    forms = {value, value.strip(), *(line.strip() for line in value.splitlines())}
    return {form for form in forms if len(form.strip()) >= MIN_SECRET_CHARS}


def known_secrets(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every key value pi-tui knows now, in each form it can be printed in (`_forms`), each with the label
    its placeholder shows."""
    env = os.environ if environ is None else environ
    found = {form: name for name, value in env.items() if is_secret_name(name) for form in _forms(value)}
    return {**_url_secrets, **found}


@functools.lru_cache(maxsize=8)
def _matcher(secrets: frozenset[tuple[str, str]]) -> tuple[re.Pattern[str], dict[str, str]]:
    """One pattern for all values, the longest first: a key that holds another is replaced whole."""
    values = sorted((value for value, _ in secrets), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, values))), {value: f"[redacted:{label}]" for value, label in secrets}


def redact(text: str) -> str:
    """`text` with every known key value replaced by `[redacted:NAME]`."""
    secrets = known_secrets()
    if not secrets or not text:
        return text
    pattern, placeholders = _matcher(frozenset(secrets.items()))
    redacted = pattern.sub(lambda found: placeholders[found.group()], text)
    return text if redacted == text else redacted


def redact_json(value: T) -> T:
    """Every string inside a JSON-like value (a message, a tool result) redacted. What holds no key is
    returned as the very same object, so an unchanged message stays unchanged (and is never mutated)."""
    return map_strings(value, redact)


def scrub(text: str) -> str:
    """For text only a person reads (errors, logs, crash reports): known keys, and whatever looks like one."""
    text = redact(text)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text
