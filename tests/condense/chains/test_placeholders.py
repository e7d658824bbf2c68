"""Scenarios of src/nested-placeholders.test.ts: `{bN}` substitution in compressed-chain bodies."""

from __future__ import annotations

from condense.chains import substitute_block_refs

BODIES = {"b1": "first body", "b2": "second body", "b3": "third body"}


def lookup(block_id: str) -> str | None:
    return BODIES.get(block_id)


def test_empty_text_returns_empty_string() -> None:
    assert substitute_block_refs("", lookup) == ""


def test_text_with_no_placeholders_is_unchanged() -> None:
    text = "plain text with {braces} and b1 but no placeholder"
    assert substitute_block_refs(text, lookup) == text


def test_single_b1_is_substituted() -> None:
    assert substitute_block_refs("see {b1}", lookup) == "see first body"


def test_multiple_references_in_one_text_are_all_resolved() -> None:
    assert substitute_block_refs("{b1}, then {b2}, again {b1}", lookup) == (
        "first body, then second body, again first body"
    )


def test_missing_block_id_leaves_the_literal_bn_in_place() -> None:
    assert substitute_block_refs("see {b99}", lookup) == "see {b99}"


def test_missing_block_id_among_valid_ones_leaves_only_the_unknown_one() -> None:
    assert substitute_block_refs("{b1} {b99} {b2}", lookup) == "first body {b99} second body"


def test_self_reference_is_refused_even_when_lookup_has_a_value() -> None:
    assert substitute_block_refs("{b3} foo", lookup, self_block_id="b3") == "{b3} foo"


def test_self_reference_refused_other_refs_still_substituted() -> None:
    assert substitute_block_refs("{b3} and {b1}", lookup, self_block_id="b3") == "{b3} and first body"


def test_one_level_only_substituted_text_containing_b2_is_not_re_expanded() -> None:
    def nested(block_id: str) -> str | None:
        return {"b1": "mentions {b2}", "b2": "second body"}.get(block_id)

    assert substitute_block_refs("see {b1}", nested) == "see mentions {b2}"


def test_adjacent_placeholders_handled_cleanly() -> None:
    assert substitute_block_refs("{b1}{b2}", lookup) == "first bodysecond body"


def test_placeholders_embedded_in_surrounding_prose() -> None:
    text = "Earlier ({b2}) we fixed it."
    assert substitute_block_refs(text, lookup) == "Earlier (second body) we fixed it."


def test_lookup_returning_undefined_leaves_placeholder_literal_null_safe_contract() -> None:
    calls: list[str] = []

    def empty(block_id: str) -> str | None:
        calls.append(block_id)
        return None

    assert substitute_block_refs("{b1} and {b2}", empty) == "{b1} and {b2}"
    assert calls == ["b1", "b2"]
