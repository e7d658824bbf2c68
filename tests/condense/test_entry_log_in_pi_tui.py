"""A library user's store folder is an ordinary Pi session: pi-tui's commands read it as they read any.
The agent here has no event loop of its own, so it hands turns over with `add_sync`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from condense import AnthropicCondenser, OpenAICondenser, to_openai
from condense.messages import AgentMessage, content_text, plain_messages
from pi_tui.cli import main
from pi_tui.session.store import Session
from tests.support.session_lines import assistant, user

OUTPUT = "# config loader\n" + "settings = load(path)  # a line of the file\n" * 100


def run_agent(store: Path) -> OpenAICondenser:
    condenser = OpenAICondenser(store, model="openai/gpt-4o-mini")
    condenser.add_sync([{"role": "user", "content": "what does the loader do?"}])
    for n in range(2):
        call = {"id": f"call_{n}", "type": "function",
                "function": {"name": "read", "arguments": json.dumps({"path": f"loader{n}.py"})}}
        condenser.add_sync([{"role": "assistant", "content": None, "tool_calls": [call]}],
                            usage={"prompt_tokens": 900 + 1200 * n, "completion_tokens": 20,
                                   "prompt_tokens_details": {"cached_tokens": 800 * n}})
        condenser.add_sync([{"role": "tool", "tool_call_id": f"call_{n}", "content": f"{n}\n{OUTPUT}"}])
    condenser.add_sync([{"role": "assistant", "content": "It loads settings."}],
                        usage={"prompt_tokens": 3400, "completion_tokens": 12})
    return condenser


def session_file(store: Path) -> Path:
    [path] = store.glob("*.jsonl")
    return path


def test_show_query_and_context_read_the_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    condenser = run_agent(tmp_path / "store")
    path = session_file(tmp_path / "store")
    assert Session.open(path).warnings == []
    assert main(["show", str(path)]) == 0
    assert "what does the loader do?" in capsys.readouterr().out
    assert main(["query", str(path), "t2"]) == 0
    assert f"1\n{OUTPUT}" in capsys.readouterr().out
    assert main(["context", str(path), "--json"]) == 0
    assert to_openai(json.loads(capsys.readouterr().out)) == condenser.messages()


def test_query_reads_a_spilled_output_from_another_folder_after_the_store_moved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    condenser = OpenAICondenser("store", config={"spill_threshold": 2000})
    call = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    condenser.add_sync([{"role": "user", "content": "read"}, {"role": "assistant", "content": None,
                                                              "tool_calls": [call]},
                        {"role": "tool", "tool_call_id": "c1", "content": OUTPUT}])
    condenser.close()
    (tmp_path / "store").rename(tmp_path / "moved")
    monkeypatch.chdir(tmp_path.parent)
    assert main(["query", str(session_file(tmp_path / "moved")), "c1"]) == 0
    assert OUTPUT in capsys.readouterr().out


def test_print_mode_never_continues_a_store_on_the_demo_and_says_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With no key for any real model the only model left is the demo, and print mode writes into the
    file it is given: it refuses, in one line, rather than add the demo's scripted turns to the store."""
    with OpenAICondenser(tmp_path / "store") as store:  # its replies are recorded as library/agent's
        store.add_sync([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    path = session_file(tmp_path / "store")
    before = path.read_bytes()
    assert main(["-p", "fix the failing test", "--session", str(path)]) == 2
    assert capsys.readouterr().err == (
        "pi-tui: error: this session's model library/agent cannot be used (unknown provider 'library'), and print"
        " mode does not continue a recorded session on the demo: set the key or give --model\n")
    assert path.read_bytes() == before
    assert main(["-p", "hi", "--session", str(path), "--model", "library/agent"]) == 2  # asked for: an error
    assert "unknown provider 'library'" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_whatif_prices_the_store_from_the_usage_the_agent_reported(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    run_agent(tmp_path / "store")
    usage = [m["usage"] for m in Session.open(session_file(tmp_path / "store")).messages() if m["role"] == "assistant"]
    assert [(u["input"], u["cacheRead"], u["output"]) for u in usage] == [(900, 0, 20), (1300, 800, 20), (3400, 0, 12)]
    assert main(["whatif", str(session_file(tmp_path / "store"))]) == 0
    assert "condense" in capsys.readouterr().out


def test_whatif_names_the_model_that_answered_and_the_prices_that_stood_in_for_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with OpenAICondenser(tmp_path / "store") as store:  # model "agent": litellm has no prices for it
        store.add_sync([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
                       usage={"prompt_tokens": 900, "completion_tokens": 20})
    assert main(["whatif", str(session_file(tmp_path / "store")), "--json", "--strategies", "none"]) == 0
    report = json.loads(capsys.readouterr().out)["sessions"][0]
    assert report["pricing"] == "claude-sonnet-4-5 for agent, which litellm has no prices for"


def test_anthropic_usage_is_recorded_in_pis_terms(tmp_path: Path) -> None:
    condenser = AnthropicCondenser(tmp_path / "store")
    condenser.add_sync([{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text",
                                                                                                "text": "hello"}]}],
                        usage={"input_tokens": 10, "output_tokens": 3, "cache_read_input_tokens": 50,
                               "cache_creation_input_tokens": 7})
    [reply] = [m for m in Session.open(session_file(tmp_path / "store")).messages() if m["role"] == "assistant"]
    assert {k: reply["usage"][k] for k in ("input", "output", "cacheRead", "cacheWrite", "totalTokens")} == \
        {"input": 10, "output": 3, "cacheRead": 50, "cacheWrite": 7, "totalTokens": 70}


def test_the_advice_for_a_version_1_store_is_true(tmp_path: Path) -> None:
    """The refusal says pi-tui's first write upgrades the file: opening alone does not, a write does."""
    path = tmp_path / "old" / "s.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps({"type": "session", "id": "old", "timestamp": "2024-01-01T00:00:00.000Z", "cwd": "/"})
                    + "\n" + json.dumps({"type": "message", "timestamp": "2024-01-01T00:00:01.000Z",
                                         "message": {"role": "user", "content": "hi", "timestamp": 1}}) + "\n")
    with pytest.raises(ValueError, match=r"when it first writes to it .*kept beside it as \.v1\.bak\)"):
        OpenAICondenser(path.parent)
    session = Session.open(path)
    with pytest.raises(ValueError, match="version 1"):
        OpenAICondenser(path.parent)
    session.append_message({"role": "user", "content": "more", "timestamp": 2})
    with OpenAICondenser(path.parent) as store:
        assert [m["content"] for m in store.messages()] == ["hi", "more"]
    assert (tmp_path / "old" / "s.jsonl.v1.bak").exists()


def test_pi_tui_never_writes_into_a_store_a_condenser_holds(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The store's lock keeps pi-tui out too while a Condenser has it open: nothing is written, the user is
    told why in one line, and once the Condenser is closed the same command goes through."""
    store = OpenAICondenser(tmp_path / "store")
    store.add_sync([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    path = session_file(tmp_path / "store")
    before = path.read_bytes()
    argv = ["-p", "fix the failing test", "--session", str(path), "--model", "demo"]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "store is a store a condense library user has open; close it (or end its process) first" in err
    assert path.read_bytes() == before
    store.close()
    assert main(argv) == 0
    assert len(path.read_bytes()) > len(before)


def texts(store: OpenAICondenser) -> list[str]:
    """What was said on the store's branch (condense's summaries left out)."""
    return said(store.host.messages())


def said(messages: list[AgentMessage]) -> list[str]:
    return [content_text(m["content"]) for m in plain_messages(messages) if m["role"] in ("user", "assistant")]


def test_pi_tui_forking_the_store_from_a_stale_view_leaves_the_library_on_its_own_branch(tmp_path: Path) -> None:
    """pi-tui had the store open (loaded after the first task) while the library did a second one; its
    next message went under what it had seen, so the file forked. The library's next open used to follow
    the file's last entry (pi-tui's) and lose its own second task from view: it goes on with its own
    branch now, and says that there is another."""
    with OpenAICondenser(tmp_path / "store") as store:
        store.add_sync([{"role": "user", "content": "first task"}, {"role": "assistant", "content": "done one"}])
    path = session_file(tmp_path / "store")
    stale = Session.open(path)
    with OpenAICondenser(tmp_path / "store") as store:
        store.add_sync([{"role": "user", "content": "second task"}, {"role": "assistant", "content": "done two"}])
    stale.append_message(user("typed in pi-tui"))
    assert said(Session.open(path).messages()) == ["first task", "done one", "typed in pi-tui"]  # the fork
    with OpenAICondenser(tmp_path / "store") as store:
        assert texts(store) == ["first task", "done one", "second task", "done two"]
        [(level, notice)] = store.host.notices
        assert level == "warning" and notice.startswith(f"{path}: this store has two branches: another writer")
        store.add_sync([{"role": "user", "content": "third task"}, {"role": "assistant", "content": "done three"}])
    with OpenAICondenser(tmp_path / "store") as store:
        assert texts(store)[-4:] == ["second task", "done two", "third task", "done three"]


def test_pi_tui_continuing_the_librarys_last_turn_is_part_of_the_librarys_branch(tmp_path: Path) -> None:
    """pi-tui loading the store afresh continues the library's branch: the library then sees its turn,
    and no second branch is reported."""
    with OpenAICondenser(tmp_path / "store") as store:
        store.add_sync([{"role": "user", "content": "first task"}, {"role": "assistant", "content": "done one"}])
    session = Session.open(session_file(tmp_path / "store"))
    session.append_message(user("typed in pi-tui"))
    session.append_message(assistant("answered in pi-tui"))
    with OpenAICondenser(tmp_path / "store") as store:
        assert texts(store) == ["first task", "done one", "typed in pi-tui", "answered in pi-tui"]
        assert store.host.notices == []


def test_a_parent_id_pointing_nowhere_keeps_every_message_in_the_library_and_in_show(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One changed character in a middle entry's `parentId` (valid JSON, pointing nowhere) silently lost
    every message before it, in the library and in `pi-tui show`; the entry now hangs from the one before it."""
    store = tmp_path / "store"
    with run_agent(store) as agent:
        before = agent.messages()
    path = session_file(store)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    number = [i for i, line in enumerate(lines) if line.startswith('{"type":"message"')][3]
    parent = json.loads(lines[number])["parentId"]
    lines[number] = lines[number].replace(f'"parentId":"{parent}"', f'"parentId":"{parent[:-1]}#"')
    path.write_text("".join(lines), encoding="utf-8")
    notice = (f'{path}:{number + 1}: its parent "{parent[:-1]}#" is no entry of the file; read as following'
              " the entry before it")
    with OpenAICondenser(store) as reopened:
        assert reopened.messages() == before
        assert [text for level, text in reopened.host.notices if level == "warning" and text.startswith(notice)]
    assert main(["show", str(path)]) == 0
    shown = capsys.readouterr()
    assert shown.err == f"pi-tui: warning: {notice}\n"
    assert shown.out.index("what does the loader do?") < shown.out.index("It loads settings.")
