"""condense is the engine only: importing every module of it must not pull in the UI or the model client."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FORBIDDEN = ("textual", "litellm", "rich", "pi_tui")

PROBE = """
import json, pkgutil, sys
import condense
names = sorted(m.name for m in pkgutil.walk_packages(condense.__path__, "condense."))
for name in names:
    __import__(name)
loaded = sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1:]))
print(json.dumps({"modules": names, "forbidden": loaded}))
"""


def test_no_condense_module_imports_textual_litellm_rich_or_pi_tui() -> None:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *FORBIDDEN],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    # the library's modules too: the facade and the litellm summariser import litellm only when called
    assert {"condense.config", "condense.protect", "condense.stats", "condense.facade",
            "condense.litellm_summary"} <= set(report["modules"])
    assert report["forbidden"] == []
