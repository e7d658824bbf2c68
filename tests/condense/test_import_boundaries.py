"""Import boundaries, checked at run time (`.importlinter` checks the same statically in CI): condense is the
engine only, and the headless parts of pi_tui run without the UI toolkit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, pkgutil, sys
packages, forbidden = sys.argv[1].split(","), set(sys.argv[2].split(","))
names = []
for package in packages:
    module = __import__(package, fromlist=["_"])
    names += [package, *sorted(m.name for m in pkgutil.walk_packages(module.__path__, package + "."))]
for name in names:
    __import__(name)
loaded = sorted({m.split(".")[0] for m in sys.modules} & forbidden)
print(json.dumps({"modules": names, "forbidden": loaded}))
"""


def probe(packages: list[str], forbidden: list[str]) -> dict[str, list[str]]:
    """Import every module of `packages` in a fresh interpreter and say which `forbidden` ones came along."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(packages), ",".join(forbidden)],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_no_condense_module_imports_textual_litellm_rich_or_pi_tui() -> None:
    report = probe(["condense"], ["textual", "litellm", "rich", "pi_tui"])
    # the library's modules too: the facade takes a summariser function, never a model client
    assert {"condense.config", "condense.protect", "condense.stats", "condense.facade"} <= set(report["modules"])
    assert report["forbidden"] == []


def test_the_agent_session_tools_and_model_client_run_without_textual() -> None:
    report = probe(["pi_tui.agent", "pi_tui.session", "pi_tui.tools", "pi_tui.ai"], ["textual"])
    assert {"pi_tui.agent.loop", "pi_tui.session.store", "pi_tui.tools.walk", "pi_tui.ai.litellm_client"} <= set(
        report["modules"]
    )
    assert report["forbidden"] == []
