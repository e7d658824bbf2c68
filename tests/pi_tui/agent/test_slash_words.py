"""Which lines starting with `/` call a command: a name-like first word, not a path."""

from __future__ import annotations

from pi_tui.agent.slash_words import command_word, unknown_command


def test_a_command_is_a_name_like_word_after_the_slash() -> None:
    assert [command_word(text) for text in ("/compact", " /compact keep the plan", "/skill:pdf-tools x",
                                            "/fix.bug\nmore", "/usr/bin/env", "/", "// comment", "hello /x")] == [
        "compact", "compact", "skill:pdf-tools", "fix.bug", None, None, None, None]


def test_an_unknown_command_is_one_none_of_the_known_names_answers_to() -> None:
    known = {"review", "skill:pdf-tools"}
    assert unknown_command("/review a.py", known) is None
    assert unknown_command("/skill:pdf-tools", known) is None
    assert unknown_command("/reveiw a.py", known) == "reveiw"
    assert unknown_command("/etc/hosts is wrong", known) is None
