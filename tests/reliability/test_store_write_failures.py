"""The library's store folder on a full disk or under a kill: nothing it reports as written is torn,
nothing is lost while the process lives, and the caller hears about it.

The full disk is a real 64 KB tmpfs where this machine can mount one (the disk then fills in the
middle of a write by itself), and injected otherwise: a write that lands half, then ENOSPC (the
`tmpfs` variant falls back to injection where mounting is refused, so both always run). The kill is a
real SIGKILL, at the first write or fsync of the store's file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from condense import CondenseError, OpenAICondenser, StoreInUseError, StoreWriteError
from tests.support.full_disk import FullDisk, full_disk
from tests.support.library_agent import OUTPUT, read_task


@pytest.fixture(params=["tmpfs", "injected"])
def disk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FullDisk]:
    with full_disk(tmp_path / "disk", request.param, "64k", short_write=True) as full:
        yield full


def questions(store: Path) -> list[str]:
    with OpenAICondenser(store) as agent:
        return [str(m["content"]) for m in agent.host.messages() if m["role"] == "user"]


def lines_of(store: Path) -> list[str]:
    [path] = store.glob("*.jsonl")
    return path.read_text(encoding="utf-8").splitlines()


def caught(agent: OpenAICondenser, n: int) -> StoreWriteError:
    """Task `n` added on the full disk, with an output longer than a page: on tmpfs the store's last page
    may have room for a short task (a pruned store grows by little)."""
    with pytest.raises(CondenseError) as raised:
        agent.add_sync(read_task(n, OUTPUT * 3))
    assert isinstance(raised.value, StoreWriteError) and "\n" not in str(raised.value)
    assert "could not write the store: no space left on the disk;" in str(raised.value)
    return raised.value


def test_an_append_on_a_full_disk_is_an_error_leaves_no_torn_line_and_is_written_once_there_is_room(
        disk: FullDisk) -> None:
    """It used to be reported as success with half a line on disk, which cut the branch there on reopen
    (4 of 14 messages left, the query "not found")."""
    store = disk.folder / "store"
    agent = OpenAICondenser(store)
    for n in range(3):
        agent.add_sync(read_task(n))
    disk.fill()
    caught(agent, 3)
    assert all(json.loads(line) for line in lines_of(store))  # whole lines only
    disk.free()
    agent.add_sync(read_task(4))  # written after what the full disk kept in memory
    agent.close()
    assert questions(store) == [f"what does m{n}.py do?" for n in range(5)]
    with OpenAICondenser(store) as reopened:
        assert f"# m3\n{OUTPUT}" in reopened.query(["call_3"])


def test_closing_on_a_full_disk_keeps_the_store_open_until_what_it_holds_is_written(disk: FullDisk) -> None:
    store = disk.folder / "store"
    agent = OpenAICondenser(store)
    agent.add_sync(read_task(0))
    disk.fill()
    caught(agent, 1)
    with pytest.raises(StoreWriteError):
        agent.close()
    with pytest.raises(StoreInUseError):
        OpenAICondenser(store)  # still open: nothing was given up
    disk.free()
    agent.close()
    assert questions(store) == ["what does m0.py do?", "what does m1.py do?"]


def test_a_full_disk_at_the_first_write_leaves_no_file_and_the_next_write_creates_it_whole(disk: FullDisk) -> None:
    """It used to leave a 0-byte (or half) session file, and the store could never be opened again."""
    store = disk.folder / "store"
    store.mkdir()
    disk.fill()
    agent = OpenAICondenser(store)
    caught(agent, 0)
    assert [p.name for p in store.iterdir() if not p.name.startswith(".condense")] == []  # no file, no temp file
    disk.free()
    agent.add_sync(read_task(1))
    agent.close()
    assert json.loads(lines_of(store)[0])["type"] == "session"
    assert questions(store) == ["what does m0.py do?", "what does m1.py do?"]


KILLED_AT_FIRST_WRITE = """
import sys
from pathlib import Path
from condense import OpenAICondenser
from tests.support.full_disk import die_at_write
store = Path(sys.argv[1])
agent = OpenAICondenser(store)
die_at_write(store)
agent.add_sync([{"role": "user", "content": "hello"}])
"""


def test_a_kill_at_the_first_write_leaves_a_store_that_opens_again(tmp_path: Path) -> None:
    """The kill used to leave a 0-byte session file: "not a Pi session file", for good."""
    store = tmp_path / "store"
    done = subprocess.run([sys.executable, "-c", KILLED_AT_FIRST_WRITE, str(store)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == -9, done.stderr
    assert list(store.glob("*.jsonl")) == []
    with OpenAICondenser(store) as agent:
        assert agent.messages() == []
        agent.add_sync([{"role": "user", "content": "hello again"}])
    assert questions(store) == ["hello again"]


def test_a_read_only_store_file_is_left_alone_in_one_line_even_for_root(tmp_path: Path) -> None:
    """pi-tui refuses to write a 0444 session; the library appended to it when run as root."""
    store = tmp_path / "store"
    with OpenAICondenser(store) as agent:
        agent.add_sync(read_task(0))
    [path] = store.glob("*.jsonl")
    path.chmod(0o444)
    before = path.read_bytes()
    agent = OpenAICondenser(store)
    with pytest.raises(StoreWriteError) as raised:
        agent.add_sync(read_task(1))
    said = str(raised.value)
    assert said.startswith(f"{path}: could not write the store: the file is read-only; ") and "\n" not in said
    assert "kept in memory and written with the next one: make it writable and go on" in said
    assert path.read_bytes() == before
    path.chmod(0o644)
    agent.close()  # written once it may be
    assert questions(store) == ["what does m0.py do?", "what does m1.py do?"]


def test_the_leaf_file_beside_the_store_is_never_written_or_read_through_a_symlink(tmp_path: Path) -> None:
    """A `.<file>.leaf` that is a link: the library truncated the link's target (any file of the user's)."""
    store = tmp_path / "store"
    with OpenAICondenser(store) as agent:
        agent.add_sync(read_task(0))
    [path] = store.glob("*.jsonl")
    leaf = path.with_name(f".{path.name}.leaf")
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's file, which must stay as it is\n")
    leaf.unlink()
    leaf.symlink_to(victim)
    with OpenAICondenser(store) as agent:
        agent.add_sync(read_task(1))
    assert victim.read_text() == "the user's file, which must stay as it is\n"
    leaf.unlink()
    leaf.symlink_to("/dev/zero")  # read through, it would never end
    assert questions(store) == ["what does m0.py do?", "what does m1.py do?"]
