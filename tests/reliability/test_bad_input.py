"""Bad input: corrupted session files and settings, hostile tool-call ids, hostile path globs.

Whatever a session file holds (a torn or truncated line, flipped bytes, a value of the wrong type deep
inside a message, an unknown entry type, a duplicate id, a parent cycle, the header somewhere else,
invalid UTF-8, a 10 MB line), loading it, rendering it through condense and `pi-tui show`/`context`/
`query`/`sessions` never crash and never print a traceback: every skipped line is named by file and
line, and every other line still loads. Corrupted settings fall back to defaults with one line per
problem. Spill sidecar names cannot leave the blobs folder, and protected-path globs are literal text
matched in linear time.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condense.blobs import MAX_NAME_BYTES, blob_dir, blob_path
from condense.config import CondenseConfig
from condense.engine import CondenseEngine
from condense.index import ToolCallIndexer
from condense.messages import content_text
from condense.protect import compile_glob, is_protected
from condense.query import run_query
from condense.records import Batch, ToolCallRecord
from condense.spill import spill_oversized_batch
from pi_tui.agent.host import AgentHost
from pi_tui.agent.loop import AgentConfig
from pi_tui.ai.models import DEMO_MODEL
from pi_tui.cli import main
from pi_tui.demo.client import DemoModelClient
from pi_tui.modes.offline import next_request, offline_engine
from pi_tui.paths import sessions_dir_for
from pi_tui.session.store import Session, SessionError
from pi_tui.settings import load_settings
from tests.reliability.histories import write_history
from tests.support.memory_host import MemoryHost, assistant, call, result, user
from tests.support.typed import plain, present, text_at

SLOW_EXAMPLES = 3000  # the point of the slow variant: far more copies than any profile tries
TRIED: Counter[str] = Counter()
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture,
          HealthCheck.filter_too_much]


# ----- a realistic session to corrupt -------------------------------------------------------------

def _base_session(folder: Path) -> bytes:
    """Three tasks of tool work, flushed by condense (summaries, index, frontier), plus a label, a name,
    and an entry type from the future."""
    path = folder / "base.jsonl"
    writer = write_history(path, tasks=3, turns=2, calls_per_turn=2, output_chars=900)
    session = writer.session
    engine, _ = offline_engine(session, CondenseConfig(summarizer_model="extractive", min_batch_chars=0),
                               persist=True)
    asyncio.run(engine.flush("manual"))
    session.append_label(session.entries[3]["id"], "checkpoint")
    session.append_session_info("fuzz base")
    session.append("future_entry", {"payload": {"nested": [1, 2, 3]}})
    writer.task(turns=1, calls_per_turn=2, output_chars=900)  # unflushed work after the summaries
    return path.read_bytes()


@pytest.fixture(scope="module", autouse=True)
def _report_counts() -> Iterator[None]:
    """The figures that go in docs/RELIABILITY.md, written past pytest's capture once the module ran."""
    yield
    if TRIED:
        counts = ", ".join(f"{name} {count}" for name, count in sorted(TRIED.items()))
        present(sys.__stdout__).write(f"\ncorrupted inputs tried: {counts}\n")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return _base_session(tmp_path_factory.mktemp("fuzz-base"))


# ----- mutations ----------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
NEWLINE_FREE = st.binary(min_size=1, max_size=40).map(lambda b: b.replace(b"\n", b" "))
MUTATION = st.one_of(
    st.tuples(st.just("truncate"), st.integers(0, 10**6), st.floats(0, 1)),
    st.tuples(st.just("flip"), st.integers(0, 10**6), st.integers(0, 10**6), st.integers(1, 255)),
    st.tuples(st.just("retype"), st.integers(0, 10**6), st.integers(0, 10**6), JSON_VALUES),
    st.tuples(st.just("delete_key"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("lone_surrogate"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("bad_number"), st.integers(0, 10**6), st.integers(0, 10**6),
              st.sampled_from([float("inf"), float("-inf"), float("nan"), 1e308, -1, 2**64, 0.5])),
    st.tuples(st.just("unknown_type"), st.integers(0, 10**6), st.text(max_size=12)),
    st.tuples(st.just("duplicate_id"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("cycle"), st.integers(0, 10**6), st.integers(0, 10**6)),
    st.tuples(st.just("move_header"), st.integers(0, 10**6)),
    st.tuples(st.just("invalid_utf8"), st.integers(0, 10**6),
              st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf8\x88\x80\x80"])),
    st.tuples(st.just("junk_line"), st.integers(0, 10**6), NEWLINE_FREE),
    st.tuples(st.just("deep_nesting"), st.integers(0, 10**6), st.integers(500, 5000)),
    st.tuples(st.just("drop_line"), st.integers(0, 10**6)),
)


class Lines:
    """The file as lines (no line breaks inside), each remembering whether a mutation touched it."""

    def __init__(self, data: bytes) -> None:
        self.rows: list[tuple[bytes, bool]] = [(line, False) for line in data.split(b"\n") if line]

    def pick(self, n: int) -> int:
        return n % len(self.rows)

    def set(self, i: int, data: bytes) -> None:
        self.rows[i] = (data.replace(b"\n", b" "), True)

    def obj(self, i: int) -> Any:
        """Line `i` as the session store reads it (bytes that are no UTF-8 as U+FFFD), None when no JSON."""
        try:
            return json.loads(self.rows[i][0].decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            return None

    def bytes(self) -> bytes:
        return b"".join(line + b"\n" for line, _ in self.rows)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key/index path inside a JSON value."""
    found: list[tuple[Any, ...]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, child in items:
        found.append((*prefix, key))
        found += _paths(child, (*prefix, key))
    return found


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _edit(lines: Lines, i: int, choice: int, change: Any, numbers_only: bool = False,
          strings_only: bool = False) -> None:
    obj = lines.obj(i)
    paths = _paths(obj)
    if numbers_only or strings_only:
        kinds = (int, float) if numbers_only else (str,)
        paths = [p for p in paths if type(_at(obj, p)) in kinds]
    if not paths:
        return
    path = paths[choice % len(paths)]
    change(_at(obj, path[:-1]), path[-1])
    lines.set(i, json.dumps(obj).encode())


def mutate(lines: Lines, mutation: tuple[Any, ...]) -> None:
    kind, n = mutation[0], lines.pick(mutation[1])
    line = lines.rows[n][0]
    if kind == "truncate":
        lines.set(n, line[: int(len(line) * mutation[2])] or b"{")
    elif kind == "flip":
        pos = mutation[2] % len(line)
        flipped = line[pos] ^ mutation[3]
        lines.set(n, line[:pos] + bytes([flipped if flipped != 10 else 32]) + line[pos + 1:])
    elif kind == "retype":
        _edit(lines, n, mutation[2], lambda parent, key: parent.__setitem__(key, mutation[3]))
    elif kind == "bad_number":
        _edit(lines, n, mutation[2], lambda parent, key: parent.__setitem__(key, mutation[3]),
              numbers_only=True)
    elif kind == "lone_surrogate":  # what JavaScript writes for a string cut inside an emoji
        _edit(lines, n, mutation[2], lambda parent, key: parent.__setitem__(key, f"{parent[key]}\ud83d"),
              strings_only=True)
    elif kind == "delete_key":
        _edit(lines, n, mutation[2], lambda parent, key: parent.pop(key))
    elif kind == "unknown_type":
        obj = lines.obj(n)
        if isinstance(obj, dict):
            obj["type"] = mutation[2]
            lines.set(n, json.dumps(obj).encode())
    elif kind in ("duplicate_id", "cycle"):
        _relink(lines, n, lines.pick(mutation[2]), "id" if kind == "duplicate_id" else "parentId")
    elif kind == "move_header":
        lines.rows.insert(n, lines.rows.pop(0))
        lines.rows[n] = (lines.rows[n][0], True)
        lines.rows[0] = (lines.rows[0][0], True)
    elif kind == "invalid_utf8":
        pos = len(line) // 2
        lines.set(n, line[:pos] + mutation[2] + line[pos:])
    elif kind == "junk_line":
        lines.rows.insert(n, (mutation[2], True))
    elif kind == "deep_nesting":
        depth = mutation[2]
        nested = b"[" * depth + b"]" * depth
        lines.rows.insert(n, (b'{"type":"custom","customType":"x","data":' + nested + b"}", True))
    elif kind == "drop_line":
        del lines.rows[n]


def _relink(lines: Lines, target: int, source: int, field: str) -> None:
    """Give line `target` the id of line `source` (a duplicate id), or make `source` its parent's
    child (a parent cycle when `source` descends from `target`)."""
    obj, other = lines.obj(target), lines.obj(source)
    if isinstance(obj, dict) and isinstance(other, dict) and "id" in other:
        obj[field] = other["id"]
        lines.set(target, json.dumps(obj).encode())
        if field == "parentId" and "id" in obj:
            other["parentId"] = obj["id"]
            lines.set(source, json.dumps(other).encode())


# ----- the checks ---------------------------------------------------------------------------------

def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_clean_stderr(err: str, path: Path) -> None:
    assert "Traceback" not in err and "internal error" not in err, err[-2000:]
    for line in err.splitlines():
        assert line.startswith("pi-tui: "), f"not a pi-tui message: {line[:200]!r}"
        if line.startswith("pi-tui: warning: "):
            assert f"{path}:" in line, f"a warning that does not name file and line: {line[:200]!r}"


def check_corrupted(path: Path, lines: Lines, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        session = Session.open(path)
    except SessionError as exc:
        assert str(path) in str(exc)
        code, _, err = run_cli(["show", str(path)], capsys)
        assert code == 2 and err.count("\n") == 1 and str(path) in err
        return
    touched = {number for number, (_, hit) in enumerate(lines.rows, start=1) if hit}
    # the entries the file holds as loaded: a line skipped on load holds none, whatever its id (a line whose
    # bytes still read as JSON to us may be no entry to the loader, e.g. a `message` key with a bad byte in it)
    ids = {entry["id"] for entry in session.entries if isinstance(entry.get("id"), str)}
    for warning in session.warnings:
        assert warning.file == str(path), str(warning)
        if warning.skipped:  # a line that could not be used: one a mutation touched
            assert warning.line in touched, str(warning)
        else:  # an entry kept, hung from the entry before it: the parent it names is no entry of the file
            named = re.search(r'its parent "([^"]*)" is no entry', str(warning))
            assert named is not None and named.group(1) not in ids, str(warning)
    if session.source_version == 3:  # (a damaged version makes it an old file: migration re-links it)
        kept = {json.dumps(e, sort_keys=True) for e in session.entries}
        for number, (raw, hit) in enumerate(lines.rows, start=1):
            entry = json.loads(raw) if not hit else None
            if entry is not None and entry.get("type") != "session":
                assert json.dumps(entry, sort_keys=True) in kept, f"line {number} is intact but did not load"
    config = CondenseConfig(summarizer_model="extractive")
    session.build_context()
    engine, _ = offline_engine(session, config)
    engine.render(session.messages())
    engine.query(["t1", "call_1"])
    next_request(session, config)
    AgentHost(session, DemoModelClient(), AgentConfig(DEMO_MODEL, "", path.parent), []).context_usage()
    for args in (["show", str(path)], ["context", str(path)], ["context", str(path), "--raw"],
                 ["query", str(path), "t1", "t2"], ["sessions"]):
        code, _, err = run_cli(args, capsys)
        missing_refs = args[0] == "query" and code == 1 and "pi-tui: not found in " in err  # `query`'s answer
        assert code == 0 or missing_refs, (args, err[-2000:])
        assert_clean_stderr(err, path)


def run_fuzz(base: bytes, capsys: pytest.CaptureFixture[str], most: int, examples: int | None = None) -> None:
    """Corrupted copies of `base` (`examples` of them, or the profile's count), each with up to `most`
    mutations, through every loader."""

    @settings(max_examples=examples or settings().max_examples, suppress_health_check=HEALTH)
    @given(mutations=st.lists(MUTATION, min_size=1, max_size=most))
    def one(mutations: list[tuple[Any, ...]]) -> None:
        lines = Lines(base)
        for mutation in mutations:
            mutate(lines, mutation)
        folder = sessions_dir_for(os.getcwd())
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "corrupt.jsonl"
        path.write_bytes(lines.bytes())
        TRIED["session files"] += 1
        try:
            check_corrupted(path, lines, capsys)
        finally:
            path.unlink()

    one()


def test_corrupted_session_files_load_what_is_readable_and_name_what_is_not(
        base: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    run_fuzz(base, capsys, 4)


@pytest.mark.slow
def test_corrupted_session_files_at_scale(base: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    run_fuzz(base, capsys, 6, SLOW_EXAMPLES)


# ----- huge lines and lone surrogates -------------------------------------------------------------

TEN_MB = 10 * 1024 * 1024


def test_ten_megabyte_lines_load_or_are_named_and_the_rest_still_loads(
        base: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = Lines(base)
    last = json.loads(lines.rows[-1][0])
    message = {"role": "toolResult", "toolCallId": "call_x", "toolName": "bash", "isError": False,
               "content": [{"type": "text", "text": "y" * TEN_MB}], "timestamp": 1_770_000_000_000}
    huge_output = {"type": "message", "id": "feed0001", "parentId": last["id"],
                   "timestamp": last["timestamp"], "message": message}
    lines.rows.append((json.dumps(huge_output).encode(), True))
    lines.rows.append((b'{"type":"custom","customType":"x","data":"' + b"z" * TEN_MB, True))  # torn, 10 MB
    path = tmp_path / "huge.jsonl"
    path.write_bytes(lines.bytes())
    session = Session.open(path)
    assert [w.line for w in session.warnings] == [len(lines.rows)]
    assert session.get("feed0001") is not None, "a valid 10 MB line loads"
    check_corrupted(path, lines, capsys)
    TRIED["session files"] += 1


def test_lone_surrogates_from_javascript_are_read_as_u_fffd_and_survive_a_flush_a_reload_and_recovery(
        tmp_path: Path) -> None:
    """JavaScript writes a string cut inside an emoji as `\\ud83d`: such an output is read as U+FFFD (what Pi
    sends the provider in its place), summarised, written back, reloaded and returned by
    context_tree_query as read."""
    path = tmp_path / "js.jsonl"
    writer = write_history(path, tasks=2, output_chars=1200)
    text = "emoji cut in half: \ud83d and more " * 80
    raw = path.read_bytes().replace(b"bash output 2: ", json.dumps(text)[1:-1].encode() + b" ", 1)
    path.write_bytes(raw)
    session = Session.open(path)
    assert session.warnings == []
    engine, _ = offline_engine(session, CondenseConfig(summarizer_model="extractive"), persist=True)
    assert asyncio.run(engine.flush("manual")).summarized > 0
    reloaded = Session.open(path)
    assert reloaded.warnings == [], "the index records were written readably"
    engine, _ = offline_engine(reloaded, CondenseConfig(summarizer_model="extractive"))
    read = text.replace("\ud83d", "\ufffd")
    (hit,) = [m for m in plain(reloaded.messages())
              if m.get("role") == "toolResult" and read in content_text(m["content"])]
    assert engine.index.get_record(f"{hit['toolCallId']}@{hit['timestamp']}") is not None, "it was summarised"
    body, _ = engine.query([f"{hit['toolCallId']}@{hit['timestamp']}"])
    assert body.endswith("\n\n" + hit["content"][0]["text"])
    assert writer.outputs


# ----- spill names from hostile tool-call ids -----------------------------------------------------

HOSTILE_IDS = ["../../etc/passwd", "..", ".", "/etc/shadow", "/", "a\x00b", "x" * 4000, "é" * 3000,
               "..\\..\\windows\\system32", "~/.ssh/id_rsa", "a/../../b", "\n", "💥" * 500, "", "con",
               "a/b", "a.b", "a:b", "-rf", "$(rm -rf ~)"]


def _only_inside(root: Path, blobs: Path) -> list[Path]:
    files = [p for p in root.rglob("*") if p.is_file()]
    for file in files:
        assert file.resolve().parent == blobs.resolve(), f"{file} is outside the blobs folder"
        assert len(file.name.encode()) <= MAX_NAME_BYTES
    return files


def test_hostile_tool_call_ids_spill_inside_the_blobs_folder_and_never_collide(tmp_path: Path) -> None:
    root = tmp_path / "session-dir"
    blobs = blob_dir(root, "../../hostile-session-id")
    assert blobs.parent == root
    records = [ToolCallRecord(tool_id, "bash", {}, f"output of hostile id {n}\n" * 40, False, 3, 100,
                              result_timestamp=5) for n, tool_id in enumerate(HOSTILE_IDS)]
    index = ToolCallIndexer()
    handled = spill_oversized_batch(Batch(3, 100, "", records), index, threshold=200, preview_bytes=64,
                                    dedup=False, blobs_dir=blobs, append=lambda kind, data: None)
    assert handled == {r.key for r in records}
    files = _only_inside(root, blobs)
    assert len(files) == len(records), "every hostile id has its own sidecar"
    for record in records:
        text, _ = run_query(index, [record.key])
        assert text.endswith("\n\n" + record.result_text), f"{record.key!r} does not come back whole"


async def test_hostile_ids_through_a_live_engine_turn(tmp_path: Path) -> None:
    blobs = tmp_path / "blobs"
    host = MemoryHost(blobs=blobs)
    engine = CondenseEngine(host, CondenseConfig(summarizer_model="extractive", spill_threshold=300))
    engine.on_session_start()
    host.add_message(user("go", 10))
    ids = HOSTILE_IDS[:8]
    message = assistant(20, *(call(i, "bash") for i in ids))
    host.add_message(message)
    results = [result(i, f"big {n} " * 100, 30 + n, "bash") for n, i in enumerate(ids)]
    for item in results:
        host.add_message(item)
    await engine.on_turn_end(message, results, 0)
    files = _only_inside(tmp_path, blobs)
    assert len(files) == len(ids)
    engine.on_session_start()  # rebuilt from the entries: every spilled output still comes back
    for item in results:
        text, _ = engine.query([f"{item['toolCallId']}@{item['timestamp']}"])
        assert text.endswith(text_at(item["content"]))


@given(tool_id=st.text(max_size=600), stamp=st.none() | st.integers(0, 2**53))
def test_any_id_names_a_file_directly_inside_the_blobs_folder(tool_id: str, stamp: int | None) -> None:
    blobs = Path("/sessions/s1-blobs")
    key = tool_id if stamp is None else f"{tool_id}@{stamp}"
    path = blob_path(blobs, key)
    assert path.parent == blobs and path.name not in ("", ".", "..")
    assert len(path.name.encode()) <= MAX_NAME_BYTES and path.name.isascii() and "\x00" not in path.name
    TRIED["hostile ids"] += 1


# ----- protected-path globs are literal and linear ------------------------------------------------

META = "()[]{}.+^$|\\?*"


@given(literal=st.text(alphabet=st.sampled_from("ab./()[]{}+^$|"), min_size=1, max_size=30),
       other=st.text(alphabet=st.sampled_from("ab./()[]{}+^$|"), max_size=30))
def test_regex_metacharacters_in_globs_are_literal(literal: str, other: str) -> None:
    glob = compile_glob(literal)
    assert glob.matches(literal)
    assert glob.matches(other) == (other == literal)
    TRIED["globs"] += 1


@pytest.mark.timeout(60)  # a safety net only: a backtracking matcher would not finish at all
def test_adversarial_globs_against_long_paths_cannot_blow_up() -> None:
    patterns = ["**/**/**/**/**/**/**/**/x", "*a*a*a*a*a*a*a*a*a*a*b", "(a+)+$", "(a|a)*b",
                "**/*/**/*/**/*.md", "?" * 50 + "b", "a*" * 40 + "b", "**/" * 40 + "z"]
    paths = ["a" * 20_000, "a/" * 10_000, "a" * 20_000 + "c", "/".join(["a" * 50] * 400)]
    checked = 0
    for pattern in patterns:
        for path in paths:
            assert not is_protected("read", {"path": path}, [], [pattern])
            checked += 1
    assert compile_glob("(a+)+$").matches("(a+)+$")
    assert is_protected("read", {"path": "docs/skills/x/(a+).md"}, [], ["**/skills/**/(a+).md"])
    TRIED["globs"] += checked


# ----- corrupted settings.toml --------------------------------------------------------------------

VALID_SETTINGS = b'''default_model = "openai/gpt-5.1"
theme = "dark"
tools = ["read", "bash"]

[retry]
max_retries = 2
base_delay_ms = 100

[condense]
summarizer_model = "extractive"
protected_paths = ["**/skills/**/*.md", "docs/(a+)+$"]

[condense.purge_errors]
cooldown_turns = 2
'''
TOML_JUNK = st.sampled_from([b"[", b"]", b"=", b'"', b"'''", b"\xff", b"\x00", b"[[a]]", b"{", b"}", b"1e999",
                             b"nan", b"-inf", b"9" * 40, b"\r", b"\\", b"a.b.c = 1", b"[condense]", b"true",
                             b'\n"\\u001b[2J\\nkey" = "\\u001b]0;pwned\\u0007"\n',
                             b'\ntheme = "\\u001b[31m"\n'])
SETTINGS_MUTATION = st.one_of(
    st.tuples(st.just("cut"), st.integers(0, 10**6)),
    st.tuples(st.just("insert"), st.integers(0, 10**6), TOML_JUNK),
    st.tuples(st.just("append"), st.integers(0, 0), TOML_JUNK),
    st.tuples(st.just("flip"), st.integers(0, 10**6), st.integers(1, 255)),
    st.tuples(st.just("nest"), st.integers(1, 3000)),
)


def _mutate_settings(data: bytes, mutation: tuple[Any, ...]) -> bytes:
    kind, at = mutation[0], mutation[1] % (len(data) + 1)
    if kind == "cut":
        return data[:at]
    if kind == "insert":
        inserted: bytes = mutation[2]
        return data[:at] + inserted + data[at:]
    if kind == "append":
        appended: bytes = mutation[2]
        return data + b"\n" + appended + b"\n"
    if kind == "flip":
        at = min(at, len(data) - 1)
        return data[:at] + bytes([data[at] ^ mutation[2]]) + data[at + 1:] if data else data
    depth: int = mutation[1]
    return data + b"deep = " + b"[" * depth + b"]" * depth + b"\n"


@settings(suppress_health_check=HEALTH)
@given(mutations=st.lists(SETTINGS_MUTATION, min_size=1, max_size=4))
def test_corrupted_settings_give_defaults_and_one_line_per_problem(mutations: list[tuple[Any, ...]]) -> None:
    data = VALID_SETTINGS
    for mutation in mutations:
        data = _mutate_settings(data, mutation)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "settings.toml"
        path.write_bytes(data)
        result = load_settings(path)
    TRIED["settings files"] += 1
    for line in result.errors:
        assert "\n" not in line and len(line) < 400, line
        assert line.isprintable(), f"control characters reach the terminal: {line!r}"
        positioned = (r"settings\.toml: (line \d+(, column \d+)?: "
                      r"|not UTF-8 text \(bad byte at offset \d+\)$|.+?: \S)")
        assert re.match(positioned, line), f"names neither a position nor a key: {line}"
    CondenseEngine(MemoryHost(), result.settings.condense).render([])


def test_settings_errors_name_the_file_and_the_line(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    line = VALID_SETTINGS.count(b"\n") + 1
    path.write_bytes(VALID_SETTINGS + b"[network\n")
    assert load_settings(path).errors == [f"settings.toml: line {line}, column 9: Expected ']' at the end"
                                          " of a table declaration"]
    path.write_bytes(VALID_SETTINGS + b"deep = " + b"[" * 5000 + b"]" * 5000 + b"\n")
    deep = f"settings.toml: line {line}: arrays or inline tables nested too deeply"
    assert load_settings(path).errors == [deep]
    path.write_bytes(VALID_SETTINGS + b'"\\u001b]0;pwned\\u0007\\nkey" = 1\n')
    escaped = "settings.toml: condense.purge_errors.\\x1b]0;pwned\\x07\\nkey: unknown setting, ignored"
    assert load_settings(path).errors == [escaped]

