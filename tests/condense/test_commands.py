"""`/pruner` subcommands (src/commands.test.ts scenarios that are not about the status line, plus ours)."""

from __future__ import annotations

from typing import Any

from condense.commands import HANDLERS, HELP, run_command
from condense.config import CondenseConfig
from condense.engine import CondenseEngine, ConfigSaver
from tests.support.memory_host import make


async def test_pruner_now_with_nothing_pending_says_one_line_and_writes_nothing() -> None:
    host, engine, _ = make()
    before = len(host.entries)
    await run_command(engine, "now")
    assert host.notices == [("info", "pruner: nothing pending — no batches to summarize")]
    assert len(host.entries) == before, "no flush-metrics record for a flush that did nothing"


def keeper(engine: CondenseEngine, saved: list[dict[str, Any]], accept: bool = True) -> ConfigSaver:
    """A host that keeps the engine's config: it records each change and, when it accepts it, hands the
    engine its new config."""

    def save(changes: dict[str, Any]) -> bool:
        saved.append(changes)
        if accept:
            engine.set_config(CondenseConfig.model_validate({**engine.config.model_dump(), **changes}))
        return accept

    return save


async def test_on_off_and_settings_are_validated_then_saved() -> None:
    host, engine, _ = make()
    saved: list[dict[str, Any]] = []
    engine._save_config = keeper(engine, saved)
    await run_command(engine, "off")
    assert not engine.config.enabled and saved[-1] == {"enabled": False}  # only what the command changed
    assert host.status["condense"] == "│ prune: OFF"
    await run_command(engine, "on")
    await run_command(engine, "protected-tools todowrite, todoread")
    assert engine.config.protected_tools == ["todowrite", "todoread"]
    await run_command(engine, "protected-paths -")
    assert engine.config.protected_paths == []
    await run_command(engine, "min-batch-chars 250")
    assert engine.config.min_batch_chars == 250
    before = len(saved)
    await run_command(engine, "min-batch-chars -3")
    await run_command(engine, "prune-on sometimes")
    assert len(saved) == before, "invalid values are refused, nothing saved"
    errors = [text for level, text in host.notices if level == "error"]
    assert len(errors) == 2 and "min_batch_chars" in errors[0] and "prune_on" in errors[1]


async def test_a_change_its_keeper_could_not_save_changes_nothing() -> None:
    host, engine, _ = make()
    saved: list[dict[str, Any]] = []
    engine._save_config = keeper(engine, saved, accept=False)
    await run_command(engine, "off")
    assert saved == [{"enabled": False}] and engine.config.enabled
    assert not any("enabled = False" in text for _, text in host.notices)  # the keeper said why, not we


async def test_status_shows_settings_stats_and_diagnostics() -> None:
    host, engine, _ = make()
    await run_command(engine, "")
    text = host.notices[-1][1]
    assert text.splitlines()[0] == "pruner: ON"  # said once, not "pruner: ON · prune: ON"
    assert "warnings:     none" in text and "summarizer:   default" in text


async def test_help_lists_every_subcommand_and_unknown_ones_are_named() -> None:
    host, engine, _ = make()
    await run_command(engine, "help")
    listing = host.notices[-1][1]
    assert all(f"/pruner {name}" in listing for name in HELP)
    assert set(HELP) == set(HANDLERS)
    await run_command(engine, "frobnicate")
    assert host.notices[-1] == ("warning", "pruner: unknown subcommand 'frobnicate'; try /pruner help")


async def test_a_refused_value_is_explained_in_words_never_as_a_pattern() -> None:
    host, engine, _ = make()
    await run_command(engine, "model bogus")
    assert host.notices[-1] == ("error", 'pruner: summarizer_model: expected "default", "extractive" or'
                                         ' "provider/model-id" (got "bogus")')
    assert engine.config.summarizer_model == "default"


async def test_arguments_a_subcommand_does_not_take_are_refused_not_dropped() -> None:
    host, engine, _ = make()
    saved: list[CondenseConfig] = []
    engine._save_config = saved.append  # type: ignore[assignment]  # a refused change never reaches the saver
    await run_command(engine, "dedup maybe")
    assert host.notices[-1] == ("error", "pruner: dedup takes on, off or status, got 'maybe'")
    await run_command(engine, "off extra")
    assert host.notices[-1] == ("error", "pruner: off takes no argument, got 'extra'; try /pruner help")
    assert engine.config.enabled and saved == []
    before = len(host.notices)
    await run_command(engine, "status extra")
    assert host.notices[before:] == [("error", "pruner: status takes no argument, got 'extra'; try /pruner help")]
    await run_command(engine, "dedup status")
    assert host.notices[-1] == ("info", "pruner: dedup is on")
