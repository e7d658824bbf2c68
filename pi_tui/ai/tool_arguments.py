"""Tool-call arguments as the model wrote them, when they are not a JSON object.

Pi turns such arguments into `{}`, so the model is told "path: Field required" about a path it did
write, and the next request shows it a call it never made. Here the call keeps `arguments: {}` (what
Pi and every reader of a Pi session expect) and the model's own text beside it in `rawArguments`:
the tool result says, in one line, why the call did not run, and a provider whose API carries
arguments as text gets that text back. An API that carries them as a JSON object (Anthropic's,
Gemini's) cannot hold broken JSON: litellm would refuse the whole request, and every later one, so
those get `{}` as in Pi.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from condense.adapters.openai import arguments_text
from pi_tui.ai.types import ModelSpec

# providers whose API takes a call's arguments as text, which litellm passes on unchanged
_TEXT_ARGUMENT_PROVIDERS = frozenset({"openai", "openrouter", "deepseek", "mistral", "groq", "xai"})


_JSON_KINDS = {list: "array", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """The arguments a streamed call ends with, and what is wrong with its text (None when nothing is)."""
    if not raw.strip():
        return {}, None
    try:
        parsed = json.loads(raw)
    except ValueError as exc:
        return {}, f"not valid JSON ({exc})"
    if not isinstance(parsed, dict):
        return {}, f"a JSON {_JSON_KINDS[type(parsed)]}, not an object"
    return parsed, None


def arguments_problem(call: Mapping[str, Any]) -> str | None:
    """The tool result for a call whose arguments were kept as text because they were no JSON object."""
    raw = call.get("rawArguments")
    if not isinstance(raw, str):
        return None
    _, problem = parse_arguments(raw)
    if problem is None:
        return None
    return (f"The arguments of this {call.get('name')} call were {problem}: nothing ran. Call it again with"
            " the arguments as one JSON object.")


def request_arguments(call: Mapping[str, Any], model: ModelSpec) -> str:
    """A call's arguments as the request to `model` carries them: the model's own text where the API
    takes text (unless the error purge has shortened the call since), else the parsed object as JSON."""
    if model.provider in _TEXT_ARGUMENT_PROVIDERS:
        return arguments_text(call)
    return json.dumps(call.get("arguments") or {}, ensure_ascii=False)
