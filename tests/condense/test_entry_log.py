"""One writer per store folder: a second opener, in this process or another, is refused in one line
naming the store, and nothing it would have written reaches the file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
