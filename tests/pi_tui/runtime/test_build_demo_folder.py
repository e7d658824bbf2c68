"""The demo never touches the user's files: it works in its own copy of the sample project, whatever
session or folder it starts with, and the footer says which folder that is."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

from pi_tui.demo.project import PROJECT_NAME, is_demo_copy
from pi_tui.runtime.build import LaunchOptions, build_runtime
from pi_tui.settings import LiveSettings, load_settings
from pi_tui.widgets.footer import display_path
from tests.conftest import corpus_path
from tests.support.tui import screen_text, until


def files_in(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


async def test_a_session_recorded_in_the_users_project_plays_in_a_copy(make_app, fixed_session, send, wait,
                                                                       tmp_path: Path) -> None:
    session = fixed_session(pruned=False)
    project = tmp_path / "project"  # the folder the session was recorded in: the user's own
    (project / "notes.txt").write_text("mine\n", encoding="utf-8")
    app = make_app(session=session, launch_dir=project, cwd_display=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        work = app.runtime.host.cwd
        assert work != project and is_demo_copy(work) and work.name == PROJECT_NAME
        assert app.main.footer.lines(118)[0].plain.startswith(display_path(work))
        await send(pilot, "fix the failing test")
        assert app.runtime.host.session.path == session  # the session is the user's; only the folder is not
    assert files_in(project) == {"notes.txt"}
    assert "(subtotal - discount) * invoice.tax_rate" in (work / "invoicer" / "pricing.py").read_text("utf-8")


def test_a_demo_session_resumes_in_its_own_copy(tmp_path: Path) -> None:
    settings = LiveSettings(load_settings().settings)
    first = build_runtime(LaunchOptions(model="demo", launch_dir=tmp_path), settings)
    first.host.session.append_session_info("demo run")  # the session now has entries worth resuming
    first.host.session.flush()
    again = build_runtime(LaunchOptions(model="demo", session=str(first.host.session.path),
                                        launch_dir=tmp_path), settings)
    assert again.host.cwd == first.host.cwd


async def test_the_demo_continues_a_recorded_session_in_a_copy_and_never_writes_it(
        make_app, send, tmp_path: Path, isolated_home: Path) -> None:
    original = tmp_path / "recorded.jsonl"
    shutil.copy(corpus_path("pi-compaction-check.jsonl"), original)
    original.chmod(0o640)
    before = original.read_bytes()
    app = make_app(session=original)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "recorded.jsonl in a new session file" in screen_text(app))
        await send(pilot, "fix the failing test")
        fork = app.runtime.host.session.path
    assert original.read_bytes() == before and stat.S_IMODE(original.stat().st_mode) == 0o640
    assert not list(tmp_path.glob("recorded.jsonl.*"))  # no migration backup: the file was never migrated
    assert fork is not None and fork.is_relative_to(isolated_home)
    lines = fork.read_text("utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["parentSession"] == str(original) and header["version"] == 3
    assert len(lines) > len(before.splitlines())  # the recorded entries, then the demo's task
