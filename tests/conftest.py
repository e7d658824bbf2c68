"""Suite-wide fixtures: an isolated home folder for every test, the recorded corpus sessions, and the
Hypothesis profiles (CONTRIBUTING.md says when each is used)."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from pi_tui.redaction import is_secret_name

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

pytest_plugins = ["tests.support.fixtures"]

# `ci` keeps the default run short and the same on every run (a failure reproduces as it is, and its blob
# is printed for @reproduce_failure); `long` searches wider and afresh, for `-m slow` and before a release.
settings.register_profile("ci", max_examples=50, deadline=None, derandomize=True, print_blob=True)
settings.register_profile("long", max_examples=2000, deadline=None, print_blob=True)


def pytest_configure(config: pytest.Config) -> None:
    """HYPOTHESIS_PROFILE wins; otherwise a run that selects the slow tests (`-m slow`) searches long."""
    chosen = os.environ.get("HYPOTHESIS_PROFILE")
    if chosen is None:
        chosen = "long" if re.fullmatch(r"\s*slow\s*", config.option.markexpr or "") else "ci"
    settings.load_profile(chosen)


CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
CORPUS_FILES = ("pi-large-session.jsonl", "pi-before-compaction.jsonl")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Nothing a test does may touch the real ~/.pi-tui or leave folders in the machine's temp folder
    (the demo's project copies go there), no real API key may leak into a test, and no Pi user's files
    (~/.pi/agent's skills, prompt templates, models.json; ~/.agents) may change what a test sees."""
    home = tmp_path_factory.mktemp("pi-tui-home")
    monkeypatch.setenv("PI_TUI_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    temp = tmp_path_factory.mktemp("tmp")
    monkeypatch.setenv("TMPDIR", str(temp))  # for the processes a test starts
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    for name in list(os.environ):
        if is_secret_name(name):  # every credential pi-tui redacts, so a test sees the same text everywhere
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


def corpus_copy(name: str, folder: Path) -> Path:
    """A writable copy of a corpus session in `folder`: what a test opens the app on, as a user opens a copy."""
    copy = folder / name
    shutil.copy(corpus_path(name), copy)
    return copy


@pytest.fixture(params=CORPUS_FILES)
def corpus_file(request: pytest.FixtureRequest) -> Path:
    return corpus_path(request.param)
