"""docs/LIBRARY.md's examples run as written: the offline one as is, in a fresh virtualenv that holds
nothing but condense, pydantic and filelock, and the litellm one against the local fake provider. A slow variant
installs the whole package from the source tree with pip (which needs the package index)."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from condense.config import CondenseConfig
from tests.support.fake_openai import FakeOpenAI, call, text_reply, tool_reply

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "LIBRARY.md"


def python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE)


def run_block(code: str, cwd: Path, python: str = sys.executable, **env: str) -> subprocess.CompletedProcess[str]:
    """The block as a script of its own, run from an empty folder (not the source tree)."""
    script = cwd / "example.py"
    script.write_text(code, encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([python, str(script)], cwd=cwd, env={**clean, **env}, capture_output=True, text=True,
                          timeout=240, check=False)


def check_offline_output(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # the finished task is one compressed block naming every ref (the default rolling window is 0)
    rows = re.findall(r"^ *(user|assistant|tool) \| (.*)$", out, re.MULTILINE)
    assert [role for role, _ in rows] == ["user", "user", "assistant"], out
    assert 'compressed-chain id=\\"b1\\" tools=\\"t1,t2,t3\\"' in rows[1][1], out
    assert "context_tree_query answered: ## toolRef: t2\nTool: read" in out
    assert out.rstrip().endswith("part1.py adds every item to the total, 80 times.")


def test_the_first_example_runs_offline_as_written(tmp_path: Path) -> None:
    check_offline_output(run_block(python_blocks()[0], tmp_path))


def test_the_litellm_example_drives_a_real_model_and_summariser(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.push(tool_reply(call("read", {"path": "alpha.txt"}, "c1")),
                    tool_reply(call("read", {"path": "beta.txt"}, "c2")),
                    text_reply("alpha: 5000, beta: 4000"),
                    text_reply("[[1:read]] alpha.txt: the alpha service listens on port 5000"),
                    text_reply("[[1:read]] beta.txt: the beta service listens on port 4000"),
                    text_reply("Read alpha.txt and beta.txt: the services listen on ports 5000 and 4000."),
                    tool_reply(call("context_tree_query", {"toolCallIds": ["t1"]}, "q1")),
                    text_reply("The alpha service listens on port 5000."),
                    text_reply("[[1:context_tree_query]] recovered alpha.txt"))
        done = run_block(python_blocks()[1], tmp_path, OPENAI_API_BASE=server.base_url, OPENAI_API_KEY="sk-test",
                         LITELLM_LOCAL_MODEL_COST_MAP="True")
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == ["alpha: 5000, beta: 4000", "The alpha service listens on port 5000."]
        assert server.pending == 0 and server.rejections == []
    # two summaries for the first task, then the one that fuses them into the task's compressed block, then
    # the summary of the recovered output
    summarizer_calls = [r for r in server.requests if len(r["messages"]) == 1]
    assert len(summarizer_calls) == 4 and "merging several" in summarizer_calls[2]["messages"][0]["content"]
    second_task = [r for r in server.requests if len(r["messages"]) > 1][3:]
    first = second_task[0]
    # the first task is one compressed block now: no raw tool message, the model's summaries inside
    assert not [m for m in first["messages"] if m["role"] == "tool"]
    sent = json.dumps(first["messages"])
    assert "compressed-chain" in sent and "the services listen on ports 5000 and 4000" in sent
    assert "context_tree_query" in [t["function"]["name"] for t in first["tools"]]
    recovered = second_task[1]["messages"][-1]
    assert recovered["role"] == "tool" and "The alpha service listens on port 5000." in recovered["content"]


def documented(name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name)}\b", DOC.read_text(encoding="utf-8")) is not None


def test_every_public_name_of_condense_is_documented() -> None:
    import condense

    assert [name for name in condense.__all__ if not documented(name)] == []


def test_every_setting_is_documented() -> None:
    """The budget triggers, `keep_recent`, `summary_names`, spilling, timeouts: what an agent author tunes."""
    assert [name for name in CondenseConfig.model_fields if not documented(name)] == []


def requirement_closure(name: str, seen: set[str] | None = None) -> set[str]:
    """`name` and every distribution it needs at run time (extras left out)."""
    seen = set() if seen is None else seen
    if name not in seen:
        seen.add(name)
        for requirement in importlib.metadata.requires(name) or []:
            if "extra ==" not in requirement:
                requirement_closure(re.split(r"[^A-Za-z0-9_.-]", requirement, maxsplit=1)[0], seen)
    return seen


def top_level_paths(name: str) -> set[Path]:
    """Where a distribution's importable top-level packages and modules are installed."""
    dist = importlib.metadata.distribution(name)
    tops = {f.parts[0] for f in dist.files or [] if f.parts[0] != ".." and not f.parts[0].endswith(".dist-info")
            and (len(f.parts) > 1 or f.suffix in (".py", ".so"))}
    return {Path(str(dist.locate_file(top))) for top in tops}


def test_the_first_example_needs_nothing_but_condense_pydantic_and_filelock(tmp_path: Path) -> None:
    """An agent adopting condense brings in neither pi-tui, Textual, rich nor litellm: in a fresh
    virtualenv whose only packages are condense and the closures of pydantic and filelock (the store
    folder's lock), the example runs as written."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = str(env_dir / "bin" / "python")
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, timeout=60, check=True).stdout.strip())
    (site / "condense").symlink_to(ROOT / "condense")
    for dist in requirement_closure("pydantic") | requirement_closure("filelock"):
        for path in top_level_paths(dist):
            (site / path.name).symlink_to(path)
    probe = "import importlib.util as u; print([m for m in ('pi_tui', 'textual', 'rich', 'litellm') if u.find_spec(m)])"
    assert subprocess.run([python, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          check=True).stdout.strip() == "[]"
    check_offline_output(run_block(python_blocks()[0], tmp_path, python))


@pytest.mark.slow
def test_the_first_example_runs_in_a_fresh_virtualenv(tmp_path: Path) -> None:
    """The package as a user gets it: built from the source tree, installed (with py.typed) elsewhere."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = str(env_dir / "bin" / "python")
    install = subprocess.run([python, "-m", "pip", "install", "-q", str(ROOT)], capture_output=True, text=True,
                             timeout=900, check=False)
    assert install.returncode == 0, install.stderr
    where = subprocess.run([python, "-c", "import condense, pathlib; print(pathlib.Path(condense.__file__).parent)"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True).stdout.strip()
    assert (Path(where) / "py.typed").is_file() and Path(where).is_relative_to(env_dir)
    check_offline_output(run_block(python_blocks()[0], tmp_path, python))
