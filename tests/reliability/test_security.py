"""Security: private files, no key anywhere, no shell around user text, a bash tool that cleans up.

Real runs write real files: a demo print-mode session (with spilled outputs) and a print-mode session
against the fake provider (a bash call whose output is cut, a 401 that echoes the key, a 500 storm).
Everything pi-tui created is owner-only (files 0600, folders 0700), and neither API key appears in any
file under the home or temp folder, nor on stdout or stderr; the cut output leaves no file behind.
Tool-level bash behaviour (timeout, process-group kill, TERM-ignoring children, output kept in memory
only) is proven in tests/pi_tui/tools/test_bash.py; here the host's abort reaches the same process group.
"""

from __future__ import annotations

import ast
import asyncio
import json
import stat
from pathlib import Path
from typing import cast

from condense.config import CondenseConfig
from pi_tui.agent.condense_host import install
from pi_tui.agent.host import AgentHost
from pi_tui.agent.loop import AgentConfig
from pi_tui.ai.models import DEMO_MODEL
from pi_tui.demo.client import DemoModelClient
from pi_tui.demo.script import Call, Step, Task
from pi_tui.session.store import Session
from pi_tui.tools import make_tools
from tests.reliability.consistency import check_session
from tests.reliability.crash import REPO, Sandbox, demo_runs, launch
from tests.support.cli import run_cli
from tests.support.fake_openai import FakeOpenAI, Reply, call, server_error, text_reply, tool_reply
from tests.support.processes import live_members
from tests.support.typed import plain, text_at
from tests.support.waiting import until

OPENAI_KEY = "sk-test-SECRET123456"
ANTHROPIC_KEY = "ant-SECRET-7f3a9c2e51"  # not sk- shaped: only the environment can say it is a secret
SECRETS = (OPENAI_KEY.encode(), ANTHROPIC_KEY.encode(), b"SECRET123456", b"SECRET-7f3a9c2e51")


def modes(root: Path) -> dict[Path, int]:
    return {path: stat.S_IMODE(path.stat().st_mode) for path in [root, *root.rglob("*")]}


def assert_private(root: Path) -> dict[str, int]:
    """Every folder 0700 and every file 0600 under `root` (which pi-tui created)."""
    counts = {"folders": 0, "files": 0}
    for path, mode in modes(root).items():
        kind = "folders" if path.is_dir() else "files"
        assert mode == (0o700 if kind == "folders" else 0o600), f"{path} is {oct(mode)}"
        counts[kind] += 1
    return counts


def test_a_demo_print_mode_run_creates_only_private_files_and_folders(tmp_path: Path) -> None:
    box = Sandbox(tmp_path).make(home=False)
    result = launch(box, demo_runs(3))
    assert result.returncode == 0, result.stderr
    counts = assert_private(box.home)
    (session,) = box.sessions()
    sidecars = list(session.parent.glob("*-blobs/*.txt"))
    assert sidecars, "task 3 spills its big report beside the session"
    assert (box.home / "logs" / "pi-tui.log").is_file(), "print mode keeps its log, private like the rest"
    assert counts["files"] == 1 + len(sidecars) + 1
    for project in box.tmp.glob("pi-tui-demo-*"):
        assert stat.S_IMODE(project.stat().st_mode) == 0o700, "the demo's working copy is private too"


def _provider_script(server: FakeOpenAI) -> None:
    big = call("bash", {"command": "seq 1 300000"}, "big_1")
    where = call("bash", {"command": "pwd"}, "pwd_1")
    unauthorised = {"error": {"message": f"Incorrect API key provided: {OPENAI_KEY}",
                              "type": "invalid_request_error", "code": "invalid_api_key"}}
    server.push(tool_reply(where, big), text_reply("done"), text_reply("[[1:bash]] cwd and numbers"),
                Reply(status=401, error=unauthorised), server_error(500), server_error(500))


def test_print_mode_against_a_provider_leaks_no_key_and_keeps_its_files_private(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    box = Sandbox(tmp_path).make(home=False)
    _provider_script(fake_openai)
    (box.home).mkdir(mode=0o700)
    (box.home / "settings.toml").write_text("[retry]\nmax_retries = 1\nbase_delay_ms = 1\n")
    (box.home / "settings.toml").chmod(0o600)
    model = ["--model", "openai/fake-model", "--base-url", fake_openai.base_url]
    runs = [["-p", "run the commands", *model], ["-p", "again", "--continue", *model],
            ["-p", "and again", "--continue", *model]]
    result = launch(box, runs, env={"OPENAI_API_KEY": OPENAI_KEY, "ANTHROPIC_API_KEY": ANTHROPIC_KEY})
    assert fake_openai.pending == 0, result.stderr
    assert json.loads((box.root / "report.json").read_text())["codes"] == [0, 1, 1]
    errors = [line for line in result.stderr.splitlines() if line.startswith("pi-tui: error:")]
    assert len(errors) == 2 and "Traceback" not in result.stderr
    for secret in SECRETS:
        assert secret not in result.stdout.encode() and secret not in result.stderr.encode()
        for file in [*box.home.rglob("*"), *box.tmp.rglob("*")]:
            if file.is_file():
                assert secret not in file.read_bytes(), f"{secret!r} written to {file}"
    assert_private(box.home)
    assert not [path for path in box.tmp.rglob("*") if path.is_file()], "the cut output left a file behind"
    (path,) = box.sessions()
    check_session(path)
    results = {m["toolCallId"]: m for m in plain(Session.open(path).messages()) if m["role"] == "toolResult"}
    assert "\n300000\n\n[Showing lines 298001-300000 of 300000." in results["big_1"]["content"][0]["text"]
    assert results["pwd_1"]["content"][0]["text"].strip() == str(box.cwd), "bash runs in the session's folder"


def _files_under(*roots: Path) -> list[Path]:
    return [file for root in roots for file in root.rglob("*") if file.is_file()]


def test_keys_a_tool_prints_reach_neither_the_session_nor_the_provider(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    box = Sandbox(tmp_path).make()
    keys = {"OPENAI_API_KEY": OPENAI_KEY, "ANTHROPIC_API_KEY": ANTHROPIC_KEY, "HF_TOKEN": "hf_tokenvalue0042"}
    command = "env; printenv ANTHROPIC_API_KEY"
    fake_openai.push(tool_reply(call("bash", {"command": command}, "env_1")), text_reply("done"),
                     text_reply("[[1:bash]] the environment"))
    result = run_cli("-p", "show me the environment", "--model", "openai/fake-model", "--base-url",
                     fake_openai.base_url, cwd=box.cwd, env=box.env(keys))
    assert result.returncode == 0, result.stderr
    (path,) = box.sessions()
    (output,) = [m for m in plain(Session.open(path).messages()) if m["role"] == "toolResult"]
    printed = text_at(output["content"])
    assert "OPENAI_API_KEY=[redacted:OPENAI_API_KEY]" in printed and "HF_TOKEN=[redacted:HF_TOKEN]" in printed
    assert printed.count("[redacted:ANTHROPIC_API_KEY]") == 2, "env's line and printenv's"
    sent = json.dumps(fake_openai.requests)
    assert "[redacted:ANTHROPIC_API_KEY]" in sent, "the model still sees that a key was there"
    for secret in keys.values():
        assert secret not in sent, f"{secret} sent to the provider"
        for file in _files_under(box.home, box.tmp):
            assert secret.encode() not in file.read_bytes(), f"{secret} written to {file}"


def test_a_key_with_a_trailing_blank_or_over_several_lines_is_redacted_in_every_form_it_is_printed_in(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    """`OPENAI_API_KEY='sk-... '`: `echo $OPENAI_API_KEY` prints it without the blank (6 copies reached the
    session and the provider); a multi-line key reached them line by line."""
    box = Sandbox(tmp_path).make()
    lines = ["MIIEvQIBADANBgkqhkiG9w0B", "AQEFAASCBKcwggSjAgEAAoIB"]
    keys = {"OPENAI_API_KEY": f"{OPENAI_KEY} ", "DEPLOY_KEY": "\n".join(["-----BEGIN KEY-----", *lines, ""])}
    command = 'echo $OPENAI_API_KEY; echo "[$OPENAI_API_KEY]"; printenv DEPLOY_KEY | sed -n 2p; echo $DEPLOY_KEY'
    fake_openai.push(tool_reply(call("bash", {"command": command}, "env_1")), text_reply("done"))
    result = run_cli("-p", "print the keys", "--model", "openai/fake-model", "--base-url", fake_openai.base_url,
                     cwd=box.cwd, env=box.env(keys))
    assert result.returncode == 0, result.stderr
    (path,) = box.sessions()
    (output,) = [m for m in plain(Session.open(path).messages()) if m["role"] == "toolResult"]
    assert text_at(output["content"]).split("\n")[:3] == [
        "[redacted:OPENAI_API_KEY]", "[[redacted:OPENAI_API_KEY]]", "[redacted:DEPLOY_KEY]"]
    sent = json.dumps(fake_openai.requests)
    for secret in (OPENAI_KEY, *lines):
        assert secret not in sent, f"{secret} sent to the provider"
        for file in _files_under(box.home, box.tmp):
            assert secret.encode() not in file.read_bytes(), f"{secret} written to {file}"


def test_a_key_in_the_base_url_is_redacted_from_the_error_the_session_and_the_log(
        tmp_path: Path, fake_openai: FakeOpenAI) -> None:
    box = Sandbox(tmp_path).make()
    secret = "QUERYSECRET-0451"
    url = f"{fake_openai.base_url}?api-version=2024-10-21&key={secret}"  # the server says "Unknown URL <it>"
    result = run_cli("-p", "hello", "--model", "openai/fake-model", "--base-url", url, cwd=box.cwd,
                     env=box.env({"OPENAI_API_KEY": OPENAI_KEY}))
    assert result.returncode == 1, result.stderr
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("pi-tui: error:")]
    assert "[redacted:--base-url key]" in error and "Traceback" not in result.stderr
    assert secret not in result.stdout + result.stderr
    (path,) = box.sessions()
    files = _files_under(box.home, box.tmp)
    assert path in files and box.home / "logs" / "pi-tui.log" in files
    for file in files:
        assert secret.encode() not in file.read_bytes(), f"the --base-url key written to {file}"


# ----- no shell around user text -----------------------------------------------------------------

SHELL_CALLS = {"system", "popen", "getoutput", "getstatusoutput", "create_subprocess_shell",
               "subprocess_shell"}
SPAWNERS = {"Popen", "run", "call", "check_call", "check_output", "create_subprocess_exec"}
BASH_TOOL = Path("pi_tui/tools/bash.py")


def _name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def test_no_subprocess_goes_through_a_shell_except_the_bash_tool() -> None:
    spawns: list[str] = []
    for path in sorted([*(REPO / "pi_tui").rglob("*.py"), *(REPO / "engine" / "condense").rglob("*.py")]):
        where = path.relative_to(REPO)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            name = _name(node.func)
            method = cast(ast.Attribute, node.func)  # read only for `popen`, a method call
            assert name not in SHELL_CALLS or (name == "popen" and _name(method.value) != "os"), \
                f"{where}:{node.lineno}: {name} runs a shell"
            for keyword in node.keywords:
                is_true = isinstance(keyword.value, ast.Constant) and keyword.value.value is True
                assert not (keyword.arg == "shell" and is_true), f"{where}:{node.lineno}: shell=True"
            if name in SPAWNERS and node.args:
                spawns.append(f"{where}:{name}")
                argv = node.args[0]
                shell_c = (isinstance(argv, ast.List) and len(argv.elts) > 1
                           and isinstance(argv.elts[1], ast.Constant) and argv.elts[1].value == "-c")
                assert not shell_c or where == BASH_TOOL, f"{where}:{node.lineno}: a `sh -c` command line"
    assert f"{BASH_TOOL}:Popen" in spawns, spawns
    assert "pi_tui/tools/abortable.py:create_subprocess_exec" in spawns, spawns


# ----- the bash tool inside the host ---------------------------------------------------------------

SLEEPERS = "sleep 100 & sleep 100 & echo $$; wait"


async def test_abort_through_the_host_kills_the_bash_process_tree_and_the_session_stays_valid(
        tmp_path: Path) -> None:
    calls = (Call("bash", {"command": "pwd"}), Call("bash", {"command": SLEEPERS}))
    task = Task("sleep", (Step("Working.", calls),), "Slept.")
    session = Session.create(tmp_path, tmp_path / "sessions")
    host = AgentHost(session, DemoModelClient(delay=0.0, tasks=(task,)),
                     AgentConfig(DEMO_MODEL, "", tmp_path), make_tools(["bash"]))
    install(host, CondenseConfig(summarizer_model="extractive"), lambda spec: None)  # type: ignore[arg-type, return-value]  # extractive
    updates: list[str] = []
    host.bus.on("tool_execution_update", lambda e: updates.append(text_at(e["partialResult"]["content"])))
    await host.start()
    running = asyncio.ensure_future(host.prompt("go"))
    await until(lambda: any(u.strip().isdigit() for u in updates), "the shell to print its group id")
    pgid = int(next(u for u in updates if u.strip().isdigit()).strip())
    await until(lambda: len(live_members(pgid)) >= 3, "the shell and both sleeps")
    host.abort()
    added = await asyncio.wait_for(running, 30)
    await until(lambda: not live_members(pgid), "the group to die")
    results = {m["toolCallId"]: m for m in added if m["role"] == "toolResult"}
    texts = [text_at(r["content"]) for r in results.values()]
    assert str(tmp_path) in texts[0] and texts[1].endswith("Command aborted")
    assert session.path is not None
    check_session(session.path)
