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
    below = pkgutil.walk_packages(module.__path__, package + ".") if hasattr(module, "__path__") else []
    names += [package, *sorted(m.name for m in below)]
for name in names:
    __import__(name)
loaded = sorted({m.split(".")[0] for m in sys.modules} & forbidden)
print(json.dumps({"modules": names, "forbidden": loaded}))
"""


def probe(packages: list[str], forbidden: list[str]) -> dict[str, list[str]]:
    """Import every module of `packages` in a fresh interpreter and say which `forbidden` ones came along."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(packages), ",".join(forbidden)],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, list[str]] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_no_condense_module_imports_textual_litellm_rich_pi_tui_or_an_sdk() -> None:
    report = probe(["condense"], ["textual", "litellm", "rich", "pi_tui", "openai", "anthropic"])
    # the library's modules too: the facade takes a summariser function, never a model client, and types
    # its requests with the SDKs' types for the type checker only; the litellm summariser (the [litellm]
    # extra) imports litellm only when its first summary is asked for
    assert {"condense.config", "condense.protect", "condense.stats", "condense.facade",
            "condense.litellm_summary"} <= set(report["modules"])
    assert report["forbidden"] == []


# Every part of pi_tui that runs without a screen: print mode, the offline commands and the reliability suite
# load these, and a textual import here would slow them and tie them to the UI toolkit.
HEADLESS = ["pi_tui.abort", "pi_tui.agent", "pi_tui.ai", "pi_tui.conversation", "pi_tui.demo", "pi_tui.errors",
            "pi_tui.file_kind", "pi_tui.logs", "pi_tui.modes", "pi_tui.paths", "pi_tui.redaction", "pi_tui.resources",
            "pi_tui.runtime", "pi_tui.session", "pi_tui.settings", "pi_tui.terminal", "pi_tui.tools"]


def test_every_headless_part_runs_without_textual_or_rich() -> None:
    report = probe(HEADLESS, ["textual", "rich"])
    assert {"pi_tui.agent.loop", "pi_tui.agent.condense_host", "pi_tui.session.store", "pi_tui.tools.walk",
            "pi_tui.ai.litellm_client", "pi_tui.modes.whatif", "pi_tui.modes.offline", "pi_tui.runtime.build",
            "pi_tui.conversation.model", "pi_tui.settings.live", "pi_tui.demo.client"} <= set(report["modules"])
    assert report["forbidden"] == []


def test_the_static_contract_names_the_same_headless_parts() -> None:
    """The run-time probe and `.importlinter` must not drift apart: a part added to one is added to both."""
    root = Path(__file__).resolve().parents[1]
    text = (root / ".importlinter").read_text(encoding="utf-8")
    contract = text.split("[importlinter:contract:headless-parts-without-textual]")[1].split("[importlinter")[0]
    sources = contract.split("source_modules =")[1].split("forbidden_modules =")[0].split()
    assert sorted(sources) == sorted(HEADLESS)
