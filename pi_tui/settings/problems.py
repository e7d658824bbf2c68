"""Validation that keeps every good key, and error lines a person can act on.

pydantic's own messages talk about Python types and input locations; a user editing TOML needs the dotted
key, what it accepts (read from the JSON schema, so any sub-model such as `[condense]` is covered) and
what they wrote.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from condense.config import one_line_error
from pi_tui.errors import printable
from pi_tui.settings.keys import KeyPath, normalise_keys
from pi_tui.settings.model import Settings

_NOUNS = {"integer": "an integer", "number": "a number", "string": "a string", "boolean": "true or false"}
_PLURALS = {"integer": "integers", "number": "numbers", "string": "strings", "boolean": "booleans"}
_BOUNDS = (("minimum", ">="), ("exclusiveMinimum", ">"), ("maximum", "<="), ("exclusiveMaximum", "<"))

Schema = dict[str, Any]
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Problem:
    path: KeyPath  # the snake_case key that fell back to its default (or was ignored)
    line: str


@cache
def _schema(model: type[BaseModel]) -> Schema:
    return model.model_json_schema()


def _resolve(node: Schema, schema: Schema) -> Schema:
    ref = node.get("$ref") or (node.get("allOf") or [{}])[0].get("$ref")
    return {**schema["$defs"][ref.rsplit("/", 1)[1]], **node} if ref else node


def _schema_at(schema: Schema, path: KeyPath) -> Schema:
    node = schema
    for part in path:
        node = _resolve(node, schema)
        extra = node.get("additionalProperties") or next(iter(node.get("patternProperties", {}).values()), None)
        node = node.get("properties", {}).get(part) or (extra if isinstance(extra, dict) else {})
    return _resolve(node, schema)


def _expected(node: Schema, schema: Schema) -> str | None:
    """Say in words what a schema node accepts, so error lines read like TOML, not like pydantic."""
    node = _resolve(node, schema)
    if "x-expected" in node:
        return str(node["x-expected"])
    if "enum" in node:
        return "one of " + ", ".join(json.dumps(option) for option in node["enum"])
    options = [option for option in node.get("anyOf", []) if option.get("type") != "null"]
    if options:
        return " or ".join(filter(None, (_expected(option, schema) for option in options))) or None
    kind = node.get("type")
    if kind in ("array", "object"):
        inner = node.get("items") if kind == "array" else node.get("additionalProperties")
        plural = _PLURALS.get(str(_resolve(inner, schema).get("type"))) if isinstance(inner, dict) else None
        noun = "a list" if kind == "array" else "a table"
        return f"{noun} of {plural}" if plural else noun
    bounds = [f"{sign} {node[key]}" for key, sign in _BOUNDS if key in node]
    return " ".join([_NOUNS[kind], " and ".join(bounds)]).strip() if kind in _NOUNS else None


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _drop(data: dict[str, Any], loc: tuple[int | str, ...]) -> tuple[KeyPath, Any] | None:
    """Remove the deepest key of `loc` present in `data`, so that key alone falls back to its default."""
    path: KeyPath = ()
    parent, node = data, data
    for part in loc:
        if not (isinstance(node, dict) and isinstance(part, str) and part in node):
            break
        parent, node, path = node, node[part], (*path, part)
    return (path, parent.pop(path[-1])) if path else None


def _problem(source: str, error: Mapping[str, Any], data: dict[str, Any], schema: Schema) -> Problem | None:
    dropped = _drop(data, tuple(error["loc"]))
    if dropped is None:
        return None  # an earlier error of this pass already sent this key back to its default
    path, value = dropped
    key = ".".join(path)
    if error["loc"][-1] == "[key]":  # a table's own name is wrong, e.g. [models.gpt] for "openai/gpt"
        return Problem(path, f'{source}: {key}: expected a name such as "provider/model-id", ignored')
    if error["type"] == "extra_forbidden":
        known = _schema_at(schema, path[:-1]).get("properties", {})
        guess = difflib.get_close_matches(path[-1], list(known), n=1)
        hint = f'; did you mean "{".".join((*path[:-1], guess[0]))}"?' if guess else ""
        return Problem(path, f"{source}: {key}: unknown setting, ignored{hint}")
    expected = None if error["type"] == "value_error" else _expected(_schema_at(schema, path), schema)
    reason = f"expected {expected}" if expected else str(error["msg"]).removeprefix("Value error, ")
    return Problem(path, f"{source}: {key}: {reason}, got {_show(value)}")


def _duplicate(source: str, path: KeyPath, keys: list[str]) -> Problem:
    used = path[-1] if path[-1] in keys else keys[0]
    spellings = ", ".join(keys)
    return Problem(path, f"{source}: {'.'.join(path)}: set more than once (as {spellings}); using {used}")


def _key_order(table: Mapping[str, Any], path: KeyPath = ()) -> list[KeyPath]:
    """Every key path of the document in reading order, so error lines follow the file, not the model."""
    order: list[KeyPath] = []
    for key, value in table.items():
        order.append((*path, key))
        if isinstance(value, Mapping):
            order += _key_order(value, (*path, key))
    return order


def validate(raw: Mapping[str, Any], source: str, model: type[M]) -> tuple[M, list[Problem]]:
    """Validate a parsed document; each bad or unknown key is dropped (so takes its default) and reported."""
    data, duplicates = normalise_keys(dict(raw))
    problems = [_duplicate(source, path, keys) for path, keys in duplicates]
    position = {path: index for index, path in enumerate(_key_order(data))}
    while True:  # ends: every pass drops at least one key or returns
        try:
            settings = model.model_validate(data)
            return settings, sorted(problems, key=lambda problem: position.get(problem.path, -1))
        except ValidationError as exc:
            found = _problems(source, exc, data, _schema(model))
            if not found:  # an error on the document as a whole: nothing narrower to drop
                return model(), [*problems, Problem((), f"{source}: {one_line_error(exc, model)}")]
            problems += found


def _problems(source: str, exc: ValidationError, data: dict[str, Any], schema: Schema) -> list[Problem]:
    """One problem per key dropped in this pass; an error inside a key already dropped (a bad value in
    `[models.bogus]`, whose name was wrong) says nothing more, and above all never drops its parent."""
    found: list[Problem] = []
    for error in exc.errors():
        loc = tuple(str(part) for part in error["loc"])
        if any(loc[:len(problem.path)] == problem.path for problem in found):
            continue
        problem = _problem(source, error, data, schema)
        if problem is not None:
            found.append(problem)
    return found


def validate_document(
    raw: Mapping[str, Any], source: str = "settings.toml", model: type[BaseModel] = Settings
) -> tuple[Any, list[str]]:
    """Validate a parsed TOML document, keeping every good key; returns the model and one line per problem
    (a quoted TOML key may hold any character: the lines are made safe for a terminal)."""
    settings, problems = validate(raw, source, model)
    return settings, [printable(problem.line) for problem in problems]
