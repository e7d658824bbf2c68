"""docs/LIBRARY.md's examples as scripts of their own: the doc tests run them with the test virtualenv's
python, the distribution tests with a fresh virtualenv's that holds the engine's wheel and nothing else."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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
    """What the first example prints: its answers, the pruned request and the recovered output."""
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # the finished task is one compressed block naming every ref (the default rolling window is 0)
    rows = re.findall(r"^ *(user|assistant|tool) \| (.*)$", out, re.MULTILINE)
    assert [role for role, _ in rows] == ["user", "user", "assistant"], out
    assert 'compressed-chain id=\\"b1\\" tools=\\"t1,t2,t3\\"' in rows[1][1], out
    assert "context_tree_query answered: ## toolRef: t2\nTool: read" in out
    assert out.rstrip().endswith("part1.py adds every item to the total, 80 times.")
