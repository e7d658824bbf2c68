"""Suite-wide fixtures: an isolated home folder for every test, and the recorded corpus sessions."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

pytest_plugins = ["tests.support.fixtures"]

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
CORPUS_FILES = ("pi-large-session.jsonl", "pi-before-compaction.jsonl")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Nothing a test does may touch the real ~/.pi-tui or leave folders in the machine's temp folder
    (the demo's project copies go there), and no real API key may leak into a test."""
    home = tmp_path_factory.mktemp("pi-tui-home")
    monkeypatch.setenv("PI_TUI_HOME", str(home))
    temp = tmp_path_factory.mktemp("tmp")
    monkeypatch.setenv("TMPDIR", str(temp))  # for the processes a test starts
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    for name in list(os.environ):
        if name.endswith("_API_KEY"):
            monkeypatch.delenv(name)
    return home


def corpus_path(name: str) -> Path:
    """A corpus session; skips when ../shared/corpus is absent, except in CI where that is a failure."""
    path = CORPUS / name
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"corpus file {path} is missing in CI")
        pytest.skip(f"corpus file {path} not present (it lives in ../shared/corpus beside the project)")
    return path


@pytest.fixture(params=CORPUS_FILES)
def corpus_file(request: pytest.FixtureRequest) -> Path:
    return corpus_path(request.param)
