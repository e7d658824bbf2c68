"""Frontmatter is split off as Pi splits it."""

from __future__ import annotations

import pytest

from pi_tui.resources.frontmatter import FrontmatterError, parse_document


def test_the_block_is_yaml_and_the_body_after_it_is_trimmed() -> None:
    document = parse_document("---\r\nname: x\r\ndescription: y\r\n---\r\n\r\nbody\r\n\r\n")
    assert document.fields == {"name": "x", "description": "y"} and document.body == "body"


def test_text_without_a_closed_block_is_all_body_as_written() -> None:
    assert parse_document("---\nname: x\n").body == "---\nname: x\n"
    assert parse_document("  plain\n").body == "  plain\n"
    assert parse_document("---\n- a list\n---\nb").fields == {}


def test_bad_yaml_is_one_line_naming_where() -> None:
    with pytest.raises(FrontmatterError, match=r"^frontmatter at line 3: .*$"):
        parse_document("---\nname: x\ndescription: 'unclosed\n---\n")
