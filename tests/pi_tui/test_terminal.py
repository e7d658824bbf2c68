"""A tool's or a model's control sequences never reach the terminal raw through `show`, `query` or `-p`:
they are shown escaped, and `--raw` keeps the bytes for a pipe. Real sequences, real files, real processes."""

from __future__ import annotations

import json
from pathlib import Path

from pi_tui.paths import sessions_dir_for
from pi_tui.terminal import visible_controls
from tests.support.cli import run_cli
from tests.support.fake_openai import FakeOpenAI, call, text_reply, tool_reply
from tests.support.memory_host import assistant, result
from tests.support.memory_host import call as tool_call
from tests.support.session_lines import V3_HEADER, msg, user, write

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4K\x07"  # OSC 52: sets the clipboard to `rm -rf ~`
TITLE = "\x1b]0;pwned\x07"  # OSC 0: sets the window title
CSI_8BIT = "\x9b2J"  # the one-byte CSI: clears the screen on terminals that take 8-bit controls
HOSTILE = f"before {CLIPBOARD} {TITLE} {CSI_8BIT} del\x7f nul\x00 cr\rover"
SHOWN = r"before \x1b]52;c;cm0gLXJmIH4K\x07 \x1b]0;pwned\x07 \x9b2J del\x7f nul\x00 cr\rover"


def test_controls_are_escaped_and_newlines_tabs_and_crlf_kept() -> None:
    assert visible_controls(HOSTILE) == SHOWN
    text = "a\tb\nc\r\nd é 🙂"
    assert visible_controls(text) == text


def test_an_error_line_shows_the_escapes_it_quotes(tmp_path: Path) -> None:
    done = run_cli("show", f"notes{TITLE}", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(r"pi-tui: error: notes\x1b]0;pwned\x07: no such session file"), done.stderr


def _hostile_session(path: Path) -> Path:
    return write(path, [
        V3_HEADER,
        msg("a1", None, 1, user("look", 1)),
        msg("a2", "a1", 2, assistant(2, tool_call("call_1", "bash", command="cat notes"))),
        msg("a3", "a2", 3, result("call_1", HOSTILE, 3, name="bash")),
        msg("a4", "a3", 4, assistant(4, text=f"done {TITLE}")),
    ])


def test_show_and_query_escape_what_a_tool_and_a_model_wrote(tmp_path: Path) -> None:
    path = _hostile_session(tmp_path / "s.jsonl")
    pruned = tmp_path / "pruned.jsonl"  # a query answers for outputs condense has pruned
    replay = run_cli("replay", str(path), "-o", str(pruned), "--set", "min_batch_chars=0",
                     "--set", "chain_compression.min_chars=0", cwd=tmp_path)  # even this small a task
    assert replay.returncode == 0, replay.stderr
    for args in (["show", str(path), "--full"], ["query", str(pruned), "call_1"]):
        shown = run_cli(*args, cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        assert SHOWN in shown.stdout, args
        assert args[0] == "query" or r"done \x1b]0;pwned\x07" in shown.stdout, "the model's words too"
        assert not {"\x1b", "\x9b", "\x7f", "\x00", "\x07"} & set(shown.stdout), args
        raw = run_cli(*args, "--raw", cwd=tmp_path)  # read as text: its `\r` arrives as a line break
        assert all(part in raw.stdout for part in (CLIPBOARD, TITLE, CSI_8BIT, "del\x7f nul\x00")), args


def test_print_mode_escapes_the_reply_unless_raw_and_always_the_tool_lines(tmp_path: Path,
                                                                           fake_openai: FakeOpenAI) -> None:
    failing = call("read", {"path": f"missing {TITLE} {CSI_8BIT}"}, "c1")  # its error line quotes the path
    fake_openai.push(tool_reply(failing), text_reply(f"reply {CLIPBOARD} end"), text_reply(f"again {TITLE}"))
    model = ["--model", "openai/fake-model", "--base-url", fake_openai.base_url]
    escaped = run_cli("-p", "go", *model, cwd=tmp_path)
    assert escaped.returncode == 0, escaped.stderr
    assert escaped.stdout == r"reply \x1b]52;c;cm0gLXJmIH4K\x07 end" + "\n"
    assert not {"\x1b", "\x9b", "\x07"} & set(escaped.stderr)
    assert r"✗ read: " in escaped.stderr and r"missing \x1b]0;pwned\x07 \x9b2J" in escaped.stderr
    raw = run_cli("-p", "more", "--continue", "--raw", *model, cwd=tmp_path)
    assert raw.returncode == 0, raw.stderr
    assert raw.stdout == f"again {TITLE}\n"


def test_every_command_that_prints_session_text_shows_its_controls_escaped(tmp_path: Path) -> None:
    """`sessions` printed a first message raw (`ESC]0` set the title, U+009B reached the terminal), and
    `context --json` wrote U+009B raw, which JSON allows and a terminal may take for a CSI."""
    folder = sessions_dir_for(tmp_path)
    folder.mkdir(parents=True)
    reply = {**assistant(2, text=f"done {TITLE}"), "model": f"model{CSI_8BIT}"}
    path = write(folder / "2026-01-01T00-00-00-000Z_5e55a0d1-0000-4000-8000-000000000001.jsonl", [
        V3_HEADER, msg("a1", None, 1, user(f"look {TITLE} {CSI_8BIT} é", 1)), msg("a2", "a1", 2, reply)])
    for args in (["sessions"], ["sessions", "--json"], ["context", str(path), "--json"],
                 ["context", str(path), "--raw"], ["whatif", str(path), "--strategies", "none"]):
        done = run_cli(*args, cwd=tmp_path)
        assert done.returncode == 0, (args, done.stderr)
        assert not {"\x1b", "\x9b", "\x07"} & set(done.stdout + done.stderr), (args, done.stdout)
        if args[0] != "whatif":
            assert "é" in done.stdout and ("look \\x1b]0;pwned\\x07" in done.stdout or "look \\u001b]0;pwned" in
                                            done.stdout), (args, done.stdout)
    first = json.loads(run_cli("context", str(path), "--raw", cwd=tmp_path).stdout)[0]
    assert first["content"][0]["text"] == f"look {TITLE} {CSI_8BIT} é", "the JSON still reads back as written"
