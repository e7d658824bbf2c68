"""One writer per store folder: a second opener, in this process or another, is refused in one line
naming the store, and nothing it would have written reaches the file; where `fcntl` does not exist
(Windows) the store still opens and locks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from condense import OpenAICondenser, StoreInUseError

# A library agent that adds 40 tasks, once the file `go` beside the store exists.
WRITER = """
import json, sys, time
from pathlib import Path
from condense import OpenAICondenser, StoreInUseError
store, name = Path(sys.argv[1]), sys.argv[2]
try:
    agent = OpenAICondenser(store)
except StoreInUseError as error:
    print(error, file=sys.stderr)
    sys.exit(3)
print("open", flush=True)
deadline = time.monotonic() + 60
while not (store.parent / "go").exists() and time.monotonic() < deadline:
    time.sleep(0.02)
for n in range(40):
    agent.add_sync([{"role": "user", "content": f"{name} task {n}"},
                    {"role": "assistant", "content": "done"}])
"""


def writer(store: Path, name: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(store), name], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_a_second_process_is_refused_while_the_first_writes_and_the_file_stays_whole(tmp_path: Path) -> None:
    store = tmp_path / "st_two"
    first = writer(store, "A")
    assert first.stdout is not None and first.stdout.readline() == "open\n"
    second = writer(store, "B")
    _, err = second.communicate(timeout=120)
    assert second.returncode == 3
    assert err.strip() == (f"{store}: this store is already open in another Condenser (in this process or"
                           " another); close that one (its close(), or end its process) or name another folder")
    (tmp_path / "go").touch()
    assert first.wait(timeout=120) == 0
    [path] = store.glob("*.jsonl")
    assert "" not in path.read_text().splitlines()
    users = [m["content"] for m in OpenAICondenser(store).messages() if m["role"] == "user"]
    assert users == [f"A task {n}" for n in range(40)]  # the writer's death released the store


def test_a_second_condenser_in_the_same_process_is_refused_until_the_first_is_closed_or_dropped(
        tmp_path: Path) -> None:
    first = OpenAICondenser(tmp_path / "s")
    first.add_sync([{"role": "user", "content": "hi"}])
    with pytest.raises(StoreInUseError, match=r"s: this store is already open") as refused:
        OpenAICondenser(tmp_path / "s")
    assert "\n" not in str(refused.value)
    first.close()
    with pytest.raises(StoreInUseError, match="closed"):
        first.add_sync([{"role": "user", "content": "after close"}])
    second = OpenAICondenser(tmp_path / "s")
    assert [m["content"] for m in second.messages()] == ["hi"]
    del second  # an agent that drops its Condenser releases the store at once
    with OpenAICondenser(tmp_path / "s") as third:
        third.add_sync([{"role": "user", "content": "again"}])
    assert [m["content"] for m in OpenAICondenser(tmp_path / "s").messages()] == ["hi", "again"]


# The same agent on a system without fcntl (Windows has none): the module must import, and lock.
WITHOUT_FCNTL = "import sys, warnings; sys.modules['fcntl'] = None; warnings.simplefilter('ignore')\n"
HOLDER = WITHOUT_FCNTL + """
from pathlib import Path
from condense import OpenAICondenser, StoreInUseError
store = Path(sys.argv[1])
agent = OpenAICondenser(store)
agent.add_sync([{"role": "user", "content": "held"}, {"role": "assistant", "content": "ok"}])
try:
    OpenAICondenser(store)
except StoreInUseError as error:
    print("refused in this process:", error, flush=True)
sys.stdin.read()  # holds the store until the test kills it
"""
OPENER = WITHOUT_FCNTL + """
from pathlib import Path
from condense import OpenAICondenser, StoreInUseError
try:
    with OpenAICondenser(Path(sys.argv[1])) as agent:
        print("opened:", [m["content"] for m in agent.messages()])
except StoreInUseError as error:
    print("refused:", error)
"""


def run_without_fcntl(script: str, store: Path) -> str:
    done = subprocess.run([sys.executable, "-c", script, str(store)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_store_imports_and_locks_where_fcntl_does_not_exist(tmp_path: Path) -> None:
    """The lock is refused to a second opener in the same process and in another, and a killed holder
    releases it, all with `fcntl` unavailable (the module imported it unconditionally: ImportError)."""
    store = tmp_path / "st"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(store)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        refused = f"{store}: this store is already open in another Condenser"
        assert holder.stdout.readline().startswith(f"refused in this process: {refused}")
        assert run_without_fcntl(OPENER, store).startswith(f"refused: {refused}")
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=60)
    assert run_without_fcntl(OPENER, store) == "opened: ['held', 'ok']"  # the killed holder released it


def test_the_declared_filelock_reclaims_a_killed_holder_without_fcntl() -> None:
    """The test above, run against each filelock release from 3.30.0 on: up to 4.2.0 a non-blocking acquire
    of the soft lock (what is left where fcntl is not) never breaks a SIGKILLed holder's marker, so a store
    whose process was killed stayed locked for good; 4.2.1 changes a stale marker's hands in one atomic step.
    pyproject.toml allowed 3.30, so an install could pick such a release (the engine's, engine/pyproject.toml,
    declares it now)."""
    engine = Path(__file__).parents[2] / "engine" / "pyproject.toml"
    project = tomllib.loads(engine.read_text(encoding="utf-8"))["project"]
    [floor] = [Requirement(r).specifier for r in project["dependencies"] if Requirement(r).name == "filelock"]
    assert floor.contains("4.2.1") and not floor.contains("4.2.0")
