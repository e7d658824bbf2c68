"""Commands given an argument they cannot use say so in the transcript and change nothing: `/pruner
model` with a summariser that cannot be used (refused, or kept with its provider named; the demo, which
never calls a summariser model, says so), `/pruner` subcommands that take no argument, `/theme` with an
unknown name."""

from __future__ import annotations

import re

import pytest

from condense import call_mark
from pi_tui.paths import settings_file
from tests.conftest import corpus_copy
from tests.support.tui import transcript_notes


def messages(app) -> list[tuple[str, str]]:
    """What the app said in the transcript, with its level; a refusal is never a toast that vanishes."""
    assert not [n for n in app._notifications if n.severity != "information"]
    return transcript_notes(app)


@pytest.fixture
def only_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)


async def test_an_unknown_provider_is_refused_and_nothing_is_saved(make_app, send, wait, only_openai_key) -> None:
    app = make_app(model="openai/gpt-4o")
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner model foo/bar")
        await wait(pilot)
        assert messages(app)[-1][0] == "error"
        assert messages(app)[-1][1].startswith("pruner: unknown provider 'foo' in foo/bar")
        assert app.runtime.engine.config.summarizer_model == "default"
        assert not settings_file().exists()


async def test_a_model_without_its_key_is_kept_with_a_warning_naming_its_provider(
        make_app, send, wait, only_openai_key) -> None:
    app = make_app(model="openai/gpt-4o")
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner model anthropic/claude-haiku-4-5")
        await wait(pilot)
        assert app.runtime.engine.config.summarizer_model == "anthropic/claude-haiku-4-5"
        assert ("warning", "pruner: anthropic/claude-haiku-4-5: no API key for anthropic: set ANTHROPIC_API_KEY;"
                           " until then summaries come from openai/gpt-4o") in messages(app)
        assert 'summarizer_model = "anthropic/claude-haiku-4-5"' in settings_file().read_text(encoding="utf-8")


async def test_the_demo_says_it_summarises_extractively_and_changes_nothing(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/pruner model openai/gpt-4o")
        await wait(pilot)
        assert messages(app)[-1] == ("warning", "pruner: the demo always summarises extractively (it calls no"
                                                " model); choose the summariser in a session with a real model")
        assert app.runtime.engine.config.summarizer_model == "extractive"
        assert not settings_file().exists()


async def test_the_screens_subcommands_refuse_an_argument_they_do_not_take(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        for sub in ("tree", "settings", "now", "on"):
            await send(pilot, f"/pruner {sub} extra")
            await wait(pilot)
            assert messages(app)[-1] == ("error", f"pruner: {sub} takes no argument, got 'extra'; try /pruner help")
            assert len(app.screen_stack) == 1  # no screen opened


async def test_an_unknown_theme_is_named_and_changes_nothing(make_app, send, wait) -> None:
    app = make_app()
    async with app.run_test(size=(110, 30)) as pilot:
        await wait(pilot)
        await send(pilot, "/theme light")
        await wait(pilot)
        await send(pilot, "/theme nosuch")
        await wait(pilot)
        assert messages(app)[-1] == ("error", "theme 'nosuch' not found; kept 'light' (/theme lists them)")
        assert app.theme == "light"
        assert 'theme = "light"' in settings_file().read_text(encoding="utf-8")


async def test_status_on_a_session_just_opened_counts_the_outputs_marked_pending(make_app, send, wait,
                                                                                 tmp_path) -> None:
    app = make_app(session=corpus_copy("pi-large-session.jsonl", tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        engine = app.runtime.engine
        marked = sum(1 for message in app.runtime.host.session.messages() if message["role"] == "toolResult"
                     and call_mark(engine, message["toolCallId"], message["timestamp"]).state == "pending")
        await send(pilot, "/pruner status")
        status = transcript_notes(app)[-1][1]
        pending = re.search(r"^indexed: +[\d,]+ outputs?, (\d+) pending \(what /pruner now takes\)$", status, re.M)
        assert pending and int(pending[1]) == marked > 0, status  # the cards' "pending" and the count agree
        assert re.search(r"^chain share: +\d+% of the context is the largest chain", status, re.M)
