"""How much a pruned session file grows: per corpus session and per record type, after `/pruner now` and
after `/tree` to an earlier user message with a flush there.

Run: .venv/bin/python benchmarks/session_growth.py [--copies]

Each Pi session of ../shared/corpus is copied to a temporary folder, opened by pi-tui's agent host with
the extractive summariser (no model), and pruned by the `/pruner now` handler; then the host moves to the
user message three quarters along the branch (`/tree`, continue from here) and flushes again. Printed per
session: what opening it did (a Pi file older than version 3 is migrated, as Pi migrates it: an id and a
parent id on every line), the growth of the file as opened after each step (what pruning adds), and the
bytes of every record type condense wrote (the records of a `context-prune-records` entry each under its
own type, the entries' envelopes apart; what `/tree` names where the branch left behind holds it is
`context-prune-carried`). `--copies` writes pi-condense's full copies (`index_copies = true`).
Goal: pruning adds a few percent with the default settings (issue 22): pi-large-session at most 4% after
`/pruner now` and 6% after `/tree` and a flush.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from condense.config import CondenseConfig  # noqa: E402
from condense.entry_log import dump_line  # noqa: E402
from condense.record_bursts import expanded  # noqa: E402
from condense.records import RECORDS  # noqa: E402
from pi_tui.agent.condense_host import install  # noqa: E402
from pi_tui.agent.host import AgentHost  # noqa: E402
from pi_tui.agent.loop import AgentConfig  # noqa: E402
from pi_tui.ai.litellm_client import LiteLLMClient  # noqa: E402
from pi_tui.ai.types import ModelSpec  # noqa: E402
from pi_tui.session.store import Session  # noqa: E402
from pi_tui.tools import make_tools  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
SESSIONS = ("pi-large-session.jsonl", "pi-before-compaction.jsonl", "pi-compact-hooks.jsonl",
            "pi-compaction-check.jsonl")


class _Quiet:
    def notify(self, text: str, level: str = "info") -> None: ...
    def set_status(self, key: str, text: str | None) -> None: ...
    def set_widget(self, key: str, lines: list[str] | None) -> None: ...


def written(path: Path, original_lines: int) -> Counter[str]:
    """Bytes per entry type (custom type where there is one) of what was appended to `path`; a records
    entry's records each under their own type (its data), what is left of its line (the types said
    once per run of records, the entry's own fields) as its envelope."""
    sizes: Counter[str] = Counter()
    for line in path.read_bytes().splitlines(keepends=True)[original_lines:]:
        entry = json.loads(line)
        kind = entry.get("customType") or entry.get("type")
        if kind != RECORDS:
            sizes[kind] += len(line)
            continue
        for record in expanded([entry]):
            size = len(dump_line(record["data"]).encode("utf-8"))  # its data and the comma after it
            sizes[record["customType"]] += size
            sizes[f"{RECORDS} (envelope)"] += -size
        sizes[f"{RECORDS} (envelope)"] += len(line)
    return sizes


def opened_size(path: Path, folder: Path) -> int:
    """The size of the file as pi-tui (and Pi) open it: migrated to version 3 where it is older."""
    copy = folder / f"opened-{path.name}"
    Session.open(path).save_as(copy)
    return copy.stat().st_size


async def prune(path: Path, settings: dict[str, object]) -> AgentHost:
    """`/pruner now` on the session file at `path`, as pi-tui's agent runs it."""
    model = ModelSpec(provider="openai", id="fake-model", base_url="http://127.0.0.1:9")
    host = AgentHost(Session.open(path), LiteLLMClient(), AgentConfig(model, "x", path.parent),
                     make_tools(["read"]), _Quiet())
    install(host, CondenseConfig.model_validate({"summarizer_model": "extractive", **settings}),
            lambda spec: LiteLLMClient())
    await host.start()
    await _pruner_now(host)
    return host


async def switch_and_prune(host: AgentHost) -> None:
    """`/tree` to the user message three quarters along the branch, then `/pruner now` there."""
    users = [e["id"] for e in host.session.branch_entries()
             if e.get("type") == "message" and e["message"].get("role") == "user"]
    await host.navigate(users[len(users) * 3 // 4])
    await _pruner_now(host)


async def _pruner_now(host: AgentHost) -> None:
    done = host.commands["pruner"].handler("now")
    if done is not None:
        await done


async def measure(name: str, settings: dict[str, object], folder: Path) -> None:
    path = folder / name
    shutil.copyfile(CORPUS / name, path)
    original = path.read_bytes()
    size, lines = len(original), len(original.splitlines())
    opened = opened_size(path, folder)
    host = await prune(path, settings)
    pruned = path.stat().st_size
    added = (pruned - opened) / opened if path.read_bytes() != original else 0.0  # nothing written: not migrated
    await switch_and_prune(host)
    switched = path.stat().st_size
    print(f"{name}: {size:,} bytes, {opened:,} as opened ({(opened - size) / size:+.1%}: migration);"
          f" pruning adds {added:+.2%} after /pruner now,"
          f" {(switched - opened) / opened:+.2%} after /tree + flush"
          f" (over the original: {(pruned - size) / size:+.1%}, {(switched - size) / size:+.1%})")
    for kind, count in written(path, lines).most_common():
        print(f"  {kind:32} {count:>9,} bytes")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", action="store_true", help="write pi-condense's full copies (index_copies)")
    args = parser.parse_args()
    settings: dict[str, object] = {"index_copies": True} if args.copies else {}
    with tempfile.TemporaryDirectory() as folder:
        for name in SESSIONS:
            asyncio.run(measure(name, settings, Path(folder)))


if __name__ == "__main__":
    main()
