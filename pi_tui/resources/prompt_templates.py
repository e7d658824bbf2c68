"""Prompt templates: `prompts/*.md` files a user runs as `/name args`, with Pi's argument rules.

The file's name (less `.md`) is the command; its body, frontmatter removed, is the message, with
`$1`, `$2`... (one argument each), `$@` and `$ARGUMENTS` (all of them, space-separated), `${@:N}`
(from the Nth on) and `${@:N:L}` (L of them from the Nth) replaced. Arguments split on spaces and
tabs, and quotes ('...' or "...") keep spaces inside one. Replacement is done once, on the
template: an argument holding `$1` stays as typed. A missing argument becomes "", as in Pi. The
description (for Tab completion) is the frontmatter's `description`, else the body's first line.
Each prompts folder is read flat (no subfolders); the first template of a name wins.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pi_tui.resources.frontmatter import FrontmatterError, parse_document
from pi_tui.resources.ignore_files import ignore_rules
from pi_tui.resources.places import project_dirs, user_dirs
from pi_tui.tools.walk import is_ignored

DESCRIPTION_CHARS = 60  # a first line used as the description is cut here, as Pi cuts it
_POSITIONAL = re.compile(r"\$(\d+)")
_SLICE = re.compile(r"\$\{@:(\d+)(?::(\d+))?\}")


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    description: str  # what the completion menu shows, ending in "(user)" or "(project)" as in Pi
    content: str
    path: Path


def template_folders(cwd: Path) -> list[tuple[Path, str]]:
    """Each prompts folder and the label its templates' descriptions end with, the winning one first."""
    return [*((folder / "prompts", "(project)") for folder in project_dirs(cwd)),
            *((folder / "prompts", "(user)") for folder in user_dirs())]


def _files(folder: Path) -> list[Path]:
    """The `.md` files directly in `folder`, in name order, less dot-names and what its ignore files say."""
    rules = ignore_rules(folder)
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return []
    return [Path(entry.path) for entry in entries
            if not entry.name.startswith(".") and entry.name.endswith(".md") and entry.is_file()
            and not is_ignored(rules, entry.name, False)]


def _description(fields: dict[str, object], body: str) -> str:
    described = fields.get("description")
    if isinstance(described, str) and described:
        return described
    first = next((line for line in body.split("\n") if line.strip()), "")
    return first[:DESCRIPTION_CHARS] + ("..." if len(first) > DESCRIPTION_CHARS else "")


def read_template(path: Path, label: str) -> PromptTemplate:
    """Raises OSError or FrontmatterError for a file that cannot be used."""
    document = parse_document(path.read_text(encoding="utf-8", errors="replace"))
    description = _description(document.fields, document.body)
    return PromptTemplate(path.name.removesuffix(".md"), f"{description} {label}" if description else label,
                          document.body, path)


def load_templates(folders: Iterable[tuple[Path, str]]) -> tuple[list[PromptTemplate], list[str]]:
    """Every template in `folders` (the first of a name wins) and one line per problem."""
    templates: dict[str, PromptTemplate] = {}
    problems: list[str] = []
    for folder, label in folders:
        for path in _files(folder):
            try:
                template = read_template(path, label)
            except (OSError, FrontmatterError) as exc:
                problems.append(f"prompt template {path}: {exc.strerror if isinstance(exc, OSError) else exc}")
                continue
            if template.name in templates:
                problems.append(f'prompt template "/{template.name}": {path} is skipped,'
                                f" {templates[template.name].path} has that name")
                continue
            templates[template.name] = template
    return list(templates.values()), problems


def parse_arguments(text: str) -> list[str]:
    """Split on spaces and tabs; a quoted stretch ('...' or "...") is kept whole, quotes removed."""
    args: list[str] = []
    current = ""
    quote: str | None = None
    for char in text:
        if quote is not None:
            if char == quote:
                quote = None
            else:
                current += char
        elif char in "\"'":
            quote = char
        elif char in " \t":
            if current:
                args.append(current)
            current = ""
        else:
            current += char
    if current:
        args.append(current)
    return args


def substitute(content: str, args: list[str]) -> str:
    """The template with its placeholders filled, positional ones first (module docstring)."""

    def positional(match: re.Match[str]) -> str:
        index = int(match[1]) - 1
        return args[index] if 0 <= index < len(args) else ""

    def sliced(match: re.Match[str]) -> str:
        start = max(int(match[1]) - 1, 0)
        end = start + int(match[2]) if match[2] is not None else None
        return " ".join(args[start:end])

    everything = " ".join(args)
    result = _SLICE.sub(sliced, _POSITIONAL.sub(positional, content))
    return result.replace("$ARGUMENTS", everything).replace("$@", everything)


def expand_template(text: str, templates: Iterable[PromptTemplate]) -> str:
    """`/name args` as its template's text; any other text unchanged."""
    if not text.startswith("/"):
        return text
    name, _, args = text[1:].partition(" ")
    template = next((template for template in templates if template.name == name), None)
    return substitute(template.content, parse_arguments(args)) if template is not None else text
