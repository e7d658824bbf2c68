"""`/export [file]`: the session as one HTML page, under Pi's default name (with pi-tui's), said in the
transcript; a file that is no earlier export is never replaced."""

from __future__ import annotations

from pathlib import Path

from pi_tui.commands import app_registry, run_shell
from pi_tui.conversation.html import GENERATOR
from pi_tui.demo.script import TAX_AFTER, TAX_BEFORE
from tests.pi_tui.commands.test_handlers import RecordingContext
from tests.pi_tui.conversation.test_html import classed


async def test_export_writes_the_page_under_pis_default_name_and_says_where(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path)
    await context.runtime.host.prompt("fix the failing test")
    registry = app_registry(context)
    assert await registry.dispatch("/export")
    session = context.runtime.host.session
    assert session.path is not None
    page = tmp_path / f"pi-tui-session-{session.path.stem}.html"
    assert context.notes[-1].startswith(f"exported the session to {page} ")
    text = page.read_text(encoding="utf-8")
    assert GENERATOR in text and "fix the failing test" in text and "python3 -m unittest" in text
    assert await registry.dispatch("/export")  # an earlier export is replaced
    assert await registry.dispatch("/export out/page.html") is True
    assert context.notes[-1].startswith("error: /export: cannot write") and "nothing written" in context.notes[-1]


async def test_export_never_replaces_a_file_that_is_no_export(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path)
    await context.runtime.host.prompt("fix the failing test")
    notes = tmp_path / "notes.html"
    notes.write_text("mine", encoding="utf-8")
    assert await app_registry(context).dispatch("/export notes.html")
    assert notes.read_text(encoding="utf-8") == "mine"
    assert context.notes[-1] == (f"error: /export: {notes} is there already and is no pi-tui export; nothing "
                                 "written (give another file name)")


async def test_an_empty_session_has_nothing_to_export(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path)
    assert await app_registry(context).dispatch("/export")
    assert context.notes == ["warning: /export: nothing to export yet: start a conversation first"]
    assert list(tmp_path.glob("*.html")) == []


async def test_the_page_shows_an_edits_diff_and_marks_a_run_kept_out_of_the_context(tmp_path: Path) -> None:
    context = RecordingContext(tmp_path)
    await context.runtime.host.prompt("fix the failing test")  # the demo fixes it with one edit
    await run_shell(context, "!!echo kept-out")
    await run_shell(context, "!echo sent")
    assert await app_registry(context).dispatch("/export page.html")
    page = classed((tmp_path / "page.html").read_text(encoding="utf-8"))
    assert page.of("diff-removed") == ["-" + TAX_BEFORE.rstrip("\n")]
    assert page.of("diff-added") == ["+" + TAX_AFTER.rstrip("\n")]
    assert page.of("role")[-2:] == ["You ran · not in context", "You ran"]
    assert "echo kept-out" in page.within("msg bash unseen") and "echo sent" in page.within("msg bash")
