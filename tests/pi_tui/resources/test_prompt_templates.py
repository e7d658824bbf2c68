"""Prompt templates run as `/name args` with Pi's argument rules, from Pi's folders and pi-tui's."""

from __future__ import annotations

import os
from pathlib import Path

from pi_tui.resources.prompt_templates import (
    expand_template,
    load_templates,
    parse_arguments,
    substitute,
    template_folders,
)
from tests.support.pi_home import TEMPLATE, TEMPLATE_TEXT, pi_agent_dir, write_template


def test_arguments_split_on_blanks_and_quotes_keep_spaces() -> None:
    assert parse_arguments("""a.py  "two words"\t'it''s' """) == ["a.py", "two words", "its"]
    assert parse_arguments("") == []


def test_placeholders_are_filled_as_pi_fills_them() -> None:
    args = ["a.py", "b", "c", "d"]
    assert substitute("$1|$2|$9|$@|$ARGUMENTS", args) == "a.py|b||a.py b c d|a.py b c d"
    assert substitute("${@:2}|${@:2:2}|${@:0}|${@:9}", args) == "b c d|b c|a.py b c d|"
    assert substitute("$1 and $0", ["$2", "x"]) == "$2 and ", "an argument is never filled in again"


def test_a_template_runs_as_its_name_with_arguments(tmp_path: Path) -> None:
    write_template(pi_agent_dir() / "prompts", TEMPLATE, TEMPLATE_TEXT)
    templates, problems = load_templates(template_folders(tmp_path))
    assert problems == []
    assert expand_template("/review src/app.py off-by-one errors", templates) == (
        "Review src/app.py for bugs. Focus: off-by-one errors")
    assert expand_template("/reviewer x", templates) == "/reviewer x"
    assert expand_template("review x", templates) == "review x"


def test_the_description_is_the_frontmatters_or_the_first_line_and_names_where_it_came_from(
        tmp_path: Path) -> None:
    write_template(pi_agent_dir() / "prompts", TEMPLATE, TEMPLATE_TEXT)
    write_template(tmp_path / ".pi-tui" / "prompts", "long", "\n\n" + "x" * 70 + "\nmore")
    templates, _ = load_templates(template_folders(tmp_path))
    assert {t.name: t.description for t in templates} == {
        "long": "x" * 60 + "... (project)", TEMPLATE: "Review a file for bugs (user)"}


def test_the_projects_template_wins_and_the_other_is_reported(tmp_path: Path) -> None:
    mine = write_template(tmp_path / ".pi" / "prompts", TEMPLATE, "project: $@")
    theirs = write_template(Path(os.environ["PI_TUI_HOME"]) / "prompts", TEMPLATE, "user: $@")
    write_template(tmp_path / ".pi" / "prompts", ".draft", "hidden files are skipped")
    (tmp_path / ".pi" / "prompts" / "sub").mkdir()
    write_template(tmp_path / ".pi" / "prompts" / "sub", "nested", "folders are not searched")
    templates, problems = load_templates(template_folders(tmp_path))
    assert [(t.name, t.content) for t in templates] == [(TEMPLATE, "project: $@")]
    assert problems == [f'prompt template "/{TEMPLATE}": {theirs} is skipped, {mine} has that name']
