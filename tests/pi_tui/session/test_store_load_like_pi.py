"""Every session file Pi can open loads here with the context Pi would build from it.

Expected contexts are written out by hand from Pi's rules (`buildSessionContext`, `convertToLlm`,
session-manager's loader), not computed by the code under test.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai.convert import convert_to_llm
from pi_tui.session.store import Session
from tests.conftest import corpus_path
from tests.support.session_lines import V3_HEADER, entry, iso, msg, openai_assistant, user, write
from tests.support.typed import plain, present

T0 = 1767225600000  # 2026-01-01T00:00:00.000Z in ms


def texts(session: Session) -> list[str]:
    """Role and text of each context message, for compact comparisons."""
    out = []
    for m in session.messages():
        content = m.get("content", m.get("summary", m.get("command")))
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content)
        out.append(f"{m['role']}:{content}")
    return out


# ----- every entry kind -------------------------------------------------------------------------

IMAGE = {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}
CALL = {"type": "toolCall", "id": "call1", "name": "bash", "arguments": {"command": "ls"}}


def every_kind_file(tmp_path: Path) -> Path:
    tool_turn = {**openai_assistant("", 2000), "content": [CALL], "stopReason": "toolUse"}
    result = {"role": "toolResult", "toolCallId": "call1", "toolName": "bash",
              "content": [{"type": "text", "text": "ok"}, IMAGE], "isError": False, "timestamp": 3000}
    bash = {"role": "bashExecution", "command": "ls", "output": "f", "exitCode": 0, "cancelled": False,
            "truncated": False, "timestamp": 4000}
    hidden = {**bash, "command": "env", "excludeFromContext": True, "timestamp": 5000}
    ext = {"role": "custom", "customType": "ext", "content": [{"type": "text", "text": "ext says"}],
           "display": True, "timestamp": 6000}
    return write(tmp_path / "kinds.jsonl", [
        V3_HEADER,
        entry("model_change", "a1", None, 1, provider="anthropic", modelId="claude-x"),
        entry("thinking_level_change", "a2", "a1", 2, thinkingLevel="high"),
        msg("a3", "a2", 3, {"role": "user", "content": [{"type": "text", "text": "look"}, IMAGE], "timestamp": 1000}),
        msg("a4", "a3", 4, tool_turn),
        msg("a5", "a4", 5, result),
        msg("a6", "a5", 6, bash),
        msg("a7", "a6", 7, hidden),
        entry("custom", "a8", "a7", 8, customType="idx", data={"k": 1}),
        entry("custom_message", "a9", "a8", 9, customType="note", content="remember", display=False,
              details={"d": 1}),
        entry("label", "b1", "a9", 10, targetId="a3", label="start"),
        entry("session_info", "b2", "b1", 11, name="demo"),
        entry("branch_summary", "b3", "b2", 12, fromId="a3", summary=""),
        msg("b4", "b3", 13, ext),
        entry("context-edit", "b5", "b4", 14, payload=[1]),
        entry("branch_summary", "b6", "b5", 15, fromId="a3", summary="tried B"),
        entry("compaction", "b7", "b6", 16, summary="S", firstKeptEntryId="a5", tokensBefore=123),
        msg("b8", "b7", 17, user("after", 7000)),
        entry("label", "b9", "b8", 18, targetId="b8", label="end"),
    ])


def test_every_entry_kind_gives_the_context_pi_builds(tmp_path: Path) -> None:
    session = Session.open(every_kind_file(tmp_path))
    assert session.warnings == []
    assert session.leaf_id == "b9", "the leaf is the last entry in file order, a label too"
    context = session.build_context()
    assert context.thinking_level == "high"
    assert context.model == ("openai", "gpt-x"), "the last assistant message names the model"
    raw = {e["id"]: e for e in session.entries}
    assert context.messages == [
        {"role": "compactionSummary", "summary": "S", "tokensBefore": 123, "timestamp": T0 + 16000},
        raw["a5"]["message"],
        raw["a6"]["message"],
        raw["a7"]["message"],
        {"role": "custom", "customType": "note", "content": "remember", "display": False, "details": {"d": 1},
         "timestamp": T0 + 9000},
        raw["b4"]["message"],
        {"role": "branchSummary", "summary": "tried B", "fromId": "a3", "timestamp": T0 + 15000},
        user("after", 7000),
    ]
    # what Pi's convertToLlm sends for them
    llm = convert_to_llm(context.messages)
    assert [(m["role"], m["content"]) for m in llm] == [
        ("user", [{"type": "text", "text": "The conversation history before this point was compacted into the "
                                           "following summary:\n\n<summary>\nS\n</summary>"}]),
        ("toolResult", [{"type": "text", "text": "ok"}, IMAGE]),
        ("user", [{"type": "text", "text": "Ran `ls`\n```\nf\n```"}]),
        ("user", [{"type": "text", "text": "remember"}]),
        ("user", [{"type": "text", "text": "ext says"}]),
        ("user", [{"type": "text", "text": "The following is a summary of a branch that this conversation came "
                                           "back from:\n\n<summary>\ntried B</summary>"}]),
        ("user", [{"type": "text", "text": "after"}]),
    ]


def test_without_compaction_every_entry_of_the_branch_counts(tmp_path: Path) -> None:
    lines = [json.loads(line) for line in every_kind_file(tmp_path).read_text().splitlines()]
    without = [ln for ln in lines if ln["type"] != "compaction"]
    without[-2]["parentId"] = "b6"
    session = Session.open(write(tmp_path / "flat.jsonl", without))
    assert texts(session) == ["user:look", "assistant:", "toolResult:ok", "bashExecution:ls", "bashExecution:env",
                              "custom:remember", "custom:ext says", "branchSummary:tried B", "user:after"]


BASH = {"role": "bashExecution", "command": "ls", "output": "f", "exitCode": 1, "cancelled": False,
        "truncated": False, "timestamp": 50}
CUSTOM = {"role": "custom", "customType": "ext", "content": "x", "display": True, "timestamp": 50}
RESULT = {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [IMAGE], "isError": True,
          "timestamp": 50}
# kind, the entry's own fields, the messages Pi's buildSessionContext makes of it (written out)
ONE_KIND = [
    ("user", {"message": user("mid", 50)}, [user("mid", 50)]),
    ("assistant", {"message": openai_assistant("mid", 50)}, [openai_assistant("mid", 50)]),
    ("toolResult", {"message": RESULT}, [RESULT]),
    ("bashExecution", {"message": BASH}, [BASH]),
    ("bashExecution-excluded", {"message": {**BASH, "excludeFromContext": True}},
     [{**BASH, "excludeFromContext": True}]),
    ("custom-role", {"message": CUSTOM}, [CUSTOM]),
    ("custom_message", {"customType": "n", "content": [{"type": "text", "text": "c"}], "display": True},
     [{"role": "custom", "customType": "n", "content": [{"type": "text", "text": "c"}], "display": True,
       "timestamp": T0 + 5000}]),
    ("branch_summary", {"fromId": "a1", "summary": "went elsewhere"},
     [{"role": "branchSummary", "summary": "went elsewhere", "fromId": "a1", "timestamp": T0 + 5000}]),
    ("branch_summary-empty", {"fromId": "a1", "summary": ""}, []),
    ("model_change", {"provider": "p", "modelId": "m"}, []),
    ("thinking_level_change", {"thinkingLevel": "low"}, []),
    ("label", {"targetId": "a1", "label": "x"}, []),
    ("session_info", {"name": "n"}, []),
    ("custom", {"customType": "state", "data": [1]}, []),
    ("some-future-kind", {"payload": {}}, []),
]


@pytest.mark.parametrize(("kind", "fields", "expected"), ONE_KIND, ids=[k for k, _, _ in ONE_KIND])
def test_one_entry_of_each_kind_between_two_messages(tmp_path: Path, kind: str, fields: dict[str, Any],
                                                     expected: list[dict[str, Any]]) -> None:
    entry_type = "message" if "message" in fields else kind.removesuffix("-empty")
    session = Session.open(write(tmp_path / "one.jsonl", [
        V3_HEADER, msg("a1", None, 1, user("one", 1)), entry(entry_type, "a2", "a1", 5, **fields),
        msg("a3", "a2", 9, user("two", 9)),
    ]))
    assert session.warnings == []
    assert session.messages() == [user("one", 1), *expected, user("two", 9)]


def test_a_compaction_entry_between_messages(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "one.jsonl", [
        V3_HEADER, msg("a1", None, 1, user("one", 1)), msg("a2", "a1", 2, openai_assistant("two", 2)),
        entry("compaction", "a3", "a2", 5, summary="S", firstKeptEntryId="a2", tokensBefore=7),
        msg("a4", "a3", 9, user("three", 9)),
    ]))
    assert session.messages() == [{"role": "compactionSummary", "summary": "S", "tokensBefore": 7,
                                   "timestamp": T0 + 5000}, openai_assistant("two", 2), user("three", 9)]


# ----- leniency: every line Pi keeps, we keep ---------------------------------------------------

def test_message_without_timestamp_gets_its_entry_time(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "t.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        msg("a2", "a1", 5, {"role": "user", "content": "two"}),
        msg("a3", "a2", 6, openai_assistant("three", 3)),
    ]))
    assert session.warnings == []
    assert texts(session) == ["user:one", "user:two", "assistant:three"]
    assert session.messages()[1]["timestamp"] == T0 + 5000


def test_custom_message_without_custom_type_is_kept(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "c.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        entry("custom_message", "a2", "a1", 2, content="injected"),
        msg("a3", "a2", 3, openai_assistant("three", 3)),
    ]))
    assert session.warnings == []
    assert session.messages()[1] == {"role": "custom", "customType": "", "content": "injected", "display": False,
                                     "timestamp": T0 + 2000}
    assert convert_to_llm(session.messages())[1]["content"] == [{"type": "text", "text": "injected"}]


def test_model_change_without_provider_is_kept_and_names_no_provider(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "m.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        entry("model_change", "a2", "a1", 2, modelId="claude-x"),
        msg("a3", "a2", 3, user("two", 3)),
    ]))
    assert session.warnings == []
    assert texts(session) == ["user:one", "user:two"]
    assert session.build_context().model == ("", "claude-x")


def test_thinking_level_change_without_a_level_is_kept_and_means_no_level(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "th.jsonl", [
        V3_HEADER,
        entry("thinking_level_change", "a1", None, 1, thinkingLevel="high"),
        msg("a2", "a1", 2, user("one", 2)),
        entry("thinking_level_change", "a3", "a2", 3),
        msg("a4", "a3", 4, user("two", 4)),
    ]))
    assert session.warnings == []
    assert texts(session) == ["user:one", "user:two"]
    assert session.build_context().thinking_level == "off"


def test_null_content_is_an_empty_message_for_every_role(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "n.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, {"role": "user", "content": None, "timestamp": 1}),
        msg("a2", "a1", 2, {**openai_assistant("", 2), "content": None}),
        msg("a3", "a2", 3, {"role": "toolResult", "toolCallId": "c", "toolName": "read", "content": None,
                            "isError": False, "timestamp": 3}),
        entry("custom_message", "a4", "a3", 4, customType="note", content=None, display=True),
        msg("a5", "a4", 5, {"role": "custom", "customType": "x", "content": None, "display": True, "timestamp": 5}),
        msg("a6", "a5", 6, user("last", 6)),
    ]))
    assert session.warnings == []
    assert [(m["role"], m["content"]) for m in plain(session.messages())] == [
        ("user", []), ("assistant", []), ("toolResult", []), ("custom", []), ("custom", []),
        ("user", [{"type": "text", "text": "last"}])]


def test_invalid_utf8_reads_as_replacement_characters(tmp_path: Path) -> None:
    bad = json.dumps(msg("a2", "a1", 2, user("caf\u00e9 XX", 2))).encode().replace(b"XX", b"\xff\xfe")
    session = Session.open(write(tmp_path / "u.jsonl", [V3_HEADER, msg("a1", None, 1, user("one", 1)), bad,
                                                         msg("a3", "a2", 3, user("three", 3))]))
    assert session.warnings == []
    assert texts(session) == ["user:one", "user:caf\u00e9 \ufffd\ufffd", "user:three"]


@pytest.mark.parametrize("end", [b"\r\n", b"\n"], ids=["crlf", "lf"])
def test_line_ends_and_a_missing_final_newline(tmp_path: Path, end: bytes) -> None:
    path = write(tmp_path / "e.jsonl", [V3_HEADER, msg("a1", None, 1, user("one", 1)),
                                        msg("a2", "a1", 2, openai_assistant("two", 2))], end=end)
    path.write_bytes(path.read_bytes().removesuffix(end))
    session = Session.open(path)
    assert session.warnings == []
    assert texts(session) == ["user:one", "assistant:two"]
    assert session.leaf_id == "a2"


def test_byte_order_mark_before_the_header_is_ignored(tmp_path: Path) -> None:
    path = write(tmp_path / "bom.jsonl", [V3_HEADER, msg("a1", None, 1, user("one", 1))])
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert texts(Session.open(path)) == ["user:one"]


def test_two_entries_on_one_line_are_both_read(tmp_path: Path) -> None:
    first, second = msg("a2", "a1", 2, openai_assistant("two", 2)), msg("a3", "a2", 3, user("three", 3))
    glued = json.dumps(first, separators=(",", ":")) + json.dumps(second, separators=(",", ":"))
    session = Session.open(write(tmp_path / "g.jsonl", [V3_HEADER, msg("a1", None, 1, user("one", 1)), glued]))
    assert session.warnings == []
    assert texts(session) == ["user:one", "assistant:two", "user:three"]
    assert session.leaf_id == "a3"


def test_torn_tail_after_an_entry_keeps_the_entry(tmp_path: Path) -> None:
    torn = json.dumps(msg("a2", "a1", 2, openai_assistant("two", 2))) + '{"type":"message","id":"a3","par'
    path = write(tmp_path / "torn.jsonl", [V3_HEADER, msg("a1", None, 1, user("one", 1)), torn])
    session = Session.open(path)
    assert texts(session) == ["user:one", "assistant:two"]
    assert len(session.warnings) == 1
    assert str(session.warnings[0]).startswith(f"{path}:3: not valid JSON (")
    assert str(session.warnings[0]).endswith("); rest of the line skipped")


# ----- what Pi cannot use is skipped, without cutting the branch --------------------------------

def test_an_unusable_line_keeps_its_children_on_the_branch(tmp_path: Path) -> None:
    path = write(tmp_path / "b.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        msg("a2", "a1", 2, openai_assistant("two", 2)),
        msg("a3", "a2", 3, {"role": "user", "content": [{"type": "text"}], "timestamp": 3}),  # text without text
        msg("a4", "a3", 4, user("four", 4)),
    ])
    session = Session.open(path)
    assert texts(session) == ["user:one", "assistant:two", "user:four"]
    assert [(w.file, w.line) for w in session.warnings] == [(str(path), 4)]
    assert "line skipped" in str(session.warnings[0])


def test_a_line_torn_after_its_parent_id_keeps_its_children_on_their_branch(tmp_path: Path) -> None:
    """The head Pi writes first (type, id, parentId) survives a torn line: the children of that entry
    hang from its parent, even when the line before it is on another branch."""
    torn = json.dumps(msg("a3", "a2", 4, user("three", 4)), separators=(",", ":"))[:60]
    path = write(tmp_path / "t.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        msg("a2", "a1", 2, openai_assistant("two", 2)),
        msg("b2", "a1", 3, openai_assistant("other branch", 3)),
        torn,
        msg("a4", "a3", 5, openai_assistant("four", 5)),
    ])
    session = Session.open(path)
    assert texts(session) == ["user:one", "assistant:two", "assistant:four"]
    assert [w.line for w in session.warnings] == [5]
    assert f"{path}:5: not valid JSON (Unterminated string starting at column " in str(session.warnings[0])


def test_a_line_torn_before_its_id_costs_only_that_line(tmp_path: Path) -> None:
    """Nothing names the lost entry: its child hangs from the entry before it in the file, so the
    conversation before the damage stays on the branch (Pi's walk would stop there)."""
    path = write(tmp_path / "t.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        msg("a2", "a1", 2, openai_assistant("two", 2)),
        '{"type":"mess',
        msg("a4", "a3", 4, openai_assistant("four", 4)),
        msg("a5", "a4", 5, user("five", 5)),
    ])
    session = Session.open(path)
    assert texts(session) == ["user:one", "assistant:two", "assistant:four", "user:five"]
    new = session.append_message(user("six", 6))
    assert [e["id"] for e in session.branch_entries()][:2] == ["a1", "a2"]
    assert present(session.get(new))["parentId"] == "a5"


def test_entries_without_an_id_or_with_a_bad_message_are_skipped_and_named(tmp_path: Path) -> None:
    path = write(tmp_path / "x.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        {"type": "message", "parentId": "a1", "timestamp": iso(2), "message": user("no id", 2)},
        msg("a3", "a1", 3, {"role": "narrator", "content": "?"}),
        msg("a4", "a3", 4, user("four", 4)),
        "[1, 2]",
    ])
    session = Session.open(path)
    assert [w.line for w in session.warnings] == [3, 4, 6]
    assert "'id'" in session.warnings[0].reason and "list" in session.warnings[2].reason
    assert texts(session) == ["user:one", "user:four"]


def test_a_line_that_is_not_an_entry_is_named_as_the_file_shows_it(tmp_path: Path) -> None:
    path = write(tmp_path / "n.jsonl", [V3_HEADER, "null", "42", '"text"', msg("a1", None, 1, user("one", 1)),
                                        {**msg("a2", "a1", 2, user("two", 2)), "parentId": 7}])
    reasons = [w.reason for w in Session.open(path).warnings]
    assert reasons == ["not an entry (null)", "not an entry (42)", "not an entry (a string)",
                       "'parentId' must be a string or null, got 7"]


@pytest.mark.parametrize("first_kept", [2, 3], ids=["the-skipped-line", "after-a-skipped-line"])
def test_compaction_keeps_from_its_first_kept_line_counting_skipped_lines_as_pi_does(tmp_path: Path,
                                                                                     first_kept: int) -> None:
    v1_header = {k: v for k, v in V3_HEADER.items() if k != "version"}
    session = Session.open(write(tmp_path / "v1.jsonl", [
        v1_header,
        {"type": "message", "timestamp": iso(1), "message": user("one", 1)},
        {"type": "message", "timestamp": iso(2), "message": {**openai_assistant("", 2), "content": "not a list"}},
        {"type": "message", "timestamp": iso(3), "message": user("three", 3)},
        {"type": "message", "timestamp": iso(4), "message": openai_assistant("four", 4)},
        {"type": "compaction", "timestamp": iso(5), "summary": "S", "firstKeptEntryIndex": first_kept,
         "tokensBefore": 9},
        {"type": "message", "timestamp": iso(6), "message": user("five", 6)},
    ]))
    assert [w.line for w in session.warnings] == [3]
    assert texts(session) == ["compactionSummary:S", "user:three", "assistant:four", "user:five"]


# ----- the leaf ---------------------------------------------------------------------------------

def test_leaf_is_the_last_line_even_on_an_older_branch_and_a_new_turn_continues_there(tmp_path: Path) -> None:
    path = write(tmp_path / "leaf.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        msg("a2", "a1", 2, openai_assistant("two", 2)),
        msg("b2", "a1", 3, openai_assistant("other", 3)),
        msg("a3", "a2", 4, user("three", 4)),
        entry("session_info", "a4", "a3", 5, name="named"),
    ])
    session = Session.open(path)
    assert session.leaf_id == "a4"
    assert texts(session) == ["user:one", "assistant:two", "user:three"]
    new = session.append_message(user("next", 6))
    assert present(session.get(new))["parentId"] == "a4"
    assert texts(Session.open(path)) == ["user:one", "assistant:two", "user:three", "user:next"]


def test_a_skipped_last_line_leaves_the_leaf_on_its_branch(tmp_path: Path) -> None:
    path = write(tmp_path / "skip.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        msg("a2", "a1", 2, openai_assistant("two", 2)),
        msg("b2", "a1", 3, openai_assistant("other", 3)),
        msg("a3", "a2", 4, {"role": "assistant", "content": "not a list", "timestamp": 4}),
    ])
    session = Session.open(path)
    assert session.leaf_id == "a2", "Pi's leaf is the last line; the nearest usable entry on its branch"
    assert texts(session) == ["user:one", "assistant:two"]
    new = session.append_message(user("next", 5))
    assert present(session.get(new))["parentId"] == "a2"


def test_an_entry_whose_parent_is_missing_hangs_from_the_entry_before_it_with_a_warning(tmp_path: Path) -> None:
    """One changed character in a `parentId` (valid JSON, pointing nowhere): Pi's walk to the root stops
    there, and so did ours, silently losing everything before it."""
    path = write(tmp_path / "orphan.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        msg("a2", "a1", 2, openai_assistant("two", 2)),
        msg("a3", "a9", 3, user("three", 3)),
        msg("a4", "a3", 4, openai_assistant("four", 4)),
    ])
    session = Session.open(path)
    assert [str(w) for w in session.warnings] == [
        f'{path}:4: its parent "a9" is no entry of the file; read as following the entry before it']
    assert session.leaf_id == "a4"
    assert texts(session) == ["user:one", "assistant:two", "user:three", "assistant:four"]


def test_a_repeated_id_means_the_later_entry(tmp_path: Path) -> None:
    session = Session.open(write(tmp_path / "dup.jsonl", [
        V3_HEADER,
        msg("a1", None, 1, user("one", 1)),
        msg("dd", "a1", 2, openai_assistant("first", 2)),
        msg("dd", "a1", 3, openai_assistant("second", 3)),
        msg("a4", "dd", 4, user("four", 4)),
    ]))
    assert texts(session) == ["user:one", "assistant:second", "user:four"]


# ----- the four real sessions -------------------------------------------------------------------

ALL_CORPUS = ("pi-large-session.jsonl", "pi-before-compaction.jsonl", "pi-compact-hooks.jsonl",
              "pi-compaction-check.jsonl")


def corpus_values(path: Path) -> list[dict[str, Any]]:
    """The file's objects, read independently of the store: a `}{` between two entries is a lost newline."""
    text = path.read_text(encoding="utf-8").replace('}{"type":', '}\n{"type":')
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def pi_context(values: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Pi's rules on a v1 (linear) file: after the last compaction, its summary, the messages from its
    `firstKeptEntryIndex` (an index into the file's objects, header included) up to it, then the rest."""
    compactions = [i for i, v in enumerate(values) if v["type"] == "compaction"]
    if not compactions:
        return None, [v["message"] for v in values if v["type"] == "message"]
    at = compactions[-1]
    kept = values[values[at]["firstKeptEntryIndex"]:at] + values[at + 1:]
    return values[at], [v["message"] for v in kept if v["type"] == "message"]


@pytest.mark.parametrize("name", ALL_CORPUS)
def test_corpus_sessions_load_whole_with_pi_context(name: str) -> None:
    path = corpus_path(name)
    values = corpus_values(path)
    session = Session.open(path)
    assert session.warnings == []
    assert len(session.entries) == len(values) - 1, "no entry lost, both halves of a glued line included"
    assert [e["type"] for e in session.entries] == [v["type"] for v in values[1:]]
    assert session.leaf_id == session.entries[-1]["id"]
    assert [e["parentId"] for e in session.entries[1:]] == [e["id"] for e in session.entries[:-1]]
    compaction, expected = pi_context(values)
    messages = session.messages()
    if compaction is None:
        assert messages == expected
    else:
        when = datetime.fromisoformat(compaction["timestamp"].replace("Z", "+00:00"))
        assert messages[0] == {"role": "compactionSummary", "summary": compaction["summary"],
                               "tokensBefore": compaction["tokensBefore"], "timestamp": int(when.timestamp() * 1000)}
        assert messages[1:] == expected
    called: set[str] = set()
    for m in messages:
        if m["role"] == "assistant":
            called |= {b["id"] for b in m["content"] if b["type"] == "toolCall"}
        if m["role"] == "toolResult":
            assert m["toolCallId"] in called, "every tool result follows its call"


def test_glued_lines_of_the_corpus_keep_both_turns() -> None:
    check = Session.open(corpus_path("pi-compaction-check.jsonl"))
    messages = plain(check.messages())
    ok = next(i for i, m in enumerate(messages) if m["timestamp"] == 1766006435055)
    assert messages[ok]["content"] == [{"type": "text", "text": "ok"}]
    assert (messages[ok - 1]["role"], messages[ok - 1]["timestamp"]) == ("assistant", 1766004747052)
    hooks = Session.open(corpus_path("pi-compact-hooks.jsonl"))
    assert hooks.entries[-1]["type"] == "compaction" and hooks.entries[-2]["message"]["role"] == "assistant"
    # its firstKeptEntryIndex (1013) is the compaction's own index: nothing before it is kept, by Pi's rule
    assert [m["role"] for m in hooks.messages()] == ["compactionSummary"]
