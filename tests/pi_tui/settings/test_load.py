"""settings.toml: forgiving load, careful save, live reload of outside edits."""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

import pytest

from condense.config import CondenseConfig, PurgeErrorsConfig
from pi_tui.settings import (
    LiveSettings,
    LoadResult,
    Settings,
    SettingsError,
    load_settings,
    save_settings,
    snake_case,
    validate_document,
    watch_settings,
)
from pi_tui.settings.model import RetrySettings
from tests.support.waiting import until


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    monkeypatch.setenv("PI_TUI_HOME", str(folder))
    return folder


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def on_disk(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def set_value(key: str, value: object) -> Settings:
    """One dotted setting changed as the app changes it: through the live settings, into the file."""
    live = LiveSettings(Settings())
    live.save(key, value)
    return live.current


# ------------------------------------------------------------------------------------------ loading


def test_missing_file_gives_defaults_without_errors(home: Path) -> None:
    result = load_settings()
    assert result.errors == []
    assert result.raw == {}
    assert result.settings == Settings()
    assert result.settings.tools == ["read", "bash", "edit", "write"]
    assert result.settings.retry == RetrySettings(
        enabled=True, max_retries=3, base_delay_ms=2000, max_delay_ms=60000
    )
    assert not home.exists()  # loading never creates anything


def test_home_override_picks_the_file(home: Path) -> None:
    write(home / "settings.toml", 'theme = "light"\n')
    assert load_settings().settings.theme == "light"


@pytest.mark.parametrize(
    ("key", "expected"),
    [("defaultModel", "default_model"), ("maxTTLMs", "max_ttl_ms"), ("cooldown_turns", "cooldown_turns")],
)
def test_snake_case(key: str, expected: str) -> None:
    assert snake_case(key) == expected


def test_camel_case_keys_are_accepted_recursively(home: Path) -> None:
    write(
        home / "settings.toml",
        'defaultModel = "anthropic/claude-sonnet-4-5"\nhideThinkingBlock = true\nsteeringMode = "all"\n'
        '[retry]\nmaxRetries = 7\n[keymap]\nsubmitMessage = "ctrl+j"\n'
        "[condense.purgeErrors]\ncooldownTurns = 4\n",
    )
    result = load_settings()
    assert result.errors == []
    settings = result.settings
    assert settings.default_model == "anthropic/claude-sonnet-4-5"
    assert settings.hide_thinking_block is True
    assert settings.steering_mode == "all"
    assert settings.retry.max_retries == 7
    assert settings.keymap == {"submitMessage": "ctrl+j"}  # binding ids are data, not setting names
    assert settings.condense.purge_errors == PurgeErrorsConfig(cooldown_turns=4)  # merged with defaults
    assert result.raw["retry"] == {"maxRetries": 7}  # raw keeps the file's own spelling


def test_bad_value_falls_back_alone_and_is_reported_in_one_line(home: Path) -> None:
    write(
        home / "settings.toml",
        'theme = "light"\n[retry]\nenabled = false\nmax_retries = "many"\nbase_delay_ms = 10\n',
    )
    result = load_settings()
    assert result.errors == ['settings.toml: retry.max_retries: expected an integer >= 0, got "many"']
    assert result.settings.theme == "light"
    assert result.settings.retry == RetrySettings(enabled=False, max_retries=3, base_delay_ms=10)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('default_thinking_level = "max"', 'default_thinking_level: expected one of "off", "minimal", '
         '"low", "medium", "high", "xhigh", got "max"'),
        ('hide_thinking_block = "yes"', 'hide_thinking_block: expected true or false, got "yes"'),
        ('default_model = "claude"', 'default_model: expected "provider/model-id" or "demo", got "claude"'),
        ('tools = ["read", 5]', 'tools: expected a list of strings, got ["read", 5]'),
        ("retry = 5", "retry: expected a table, got 5"),
        ("keymap = { submit = 3 }", "keymap.submit: expected a string, got 3"),
        ('shell_path = ["sh"]', 'shell_path: expected a string, got ["sh"]'),
        ("double_escape_action = { a = 1 }", 'double_escape_action: expected one of "tree", "fork", "none", '
         "got a table"),
    ],
)
def test_each_bad_value_names_key_expectation_and_input(tmp_path: Path, text: str, line: str) -> None:
    result = load_settings(write(tmp_path / "settings.toml", text + '\ntheme = "kept"\n'))
    assert result.errors == [f"settings.toml: {line}"]
    assert result.settings.theme == "kept"


@pytest.mark.parametrize("table", ["[models.bogus]\nfoo = 1", '[models.bogus]\ncontext_window = "x"'])
def test_a_badly_named_model_table_is_one_line_and_keeps_the_other_models(tmp_path: Path, table: str) -> None:
    text = f'{table}\n[models."openai/mine"]\ncontext_window = 32768\n'
    result = load_settings(write(tmp_path / "settings.toml", text))
    assert result.errors == ['settings.toml: models.bogus: expected a name such as "provider/model-id", ignored']
    assert result.settings.models["openai/mine"].context_window == 32768


def test_key_spelled_twice_is_reported_and_snake_case_wins(tmp_path: Path) -> None:
    result = load_settings(write(tmp_path / "settings.toml", 'theme = "a"\nTheme = "b"\n'))
    assert result.settings.theme == "a"
    assert result.errors == ["settings.toml: theme: set more than once (as theme, Theme); using theme"]


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ('theme = "dark"\n[retry\nenabled = true\n', "line 2, column 7"),
        ('theme = "dark"\nquiet = ', "line 2, column 9"),  # tomllib says "at end of document"
    ],
)
def test_syntax_error_gives_defaults_and_a_positioned_line(tmp_path: Path, text: str, position: str) -> None:
    result = load_settings(write(tmp_path / "settings.toml", text))
    assert result.settings == Settings()
    assert result.raw == {}
    assert len(result.errors) == 1
    assert result.errors[0].startswith(f"settings.toml: {position}: ")


def test_file_that_is_not_utf8_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_bytes(b'theme = "\xff"\n')
    result = load_settings(path)
    assert result.settings == Settings()
    assert result.errors == ["settings.toml: not UTF-8 text (bad byte at offset 9)"]


def test_unknown_keys_get_a_suggestion_and_stay_in_raw(tmp_path: Path) -> None:
    path = write(tmp_path / "settings.toml", 'them = "light"\n[retry]\nmaxRetrys = 2\n[future]\nx = 1\n')
    result = load_settings(path)
    assert result.errors == [
        'settings.toml: them: unknown setting, ignored; did you mean "theme"?',
        'settings.toml: retry.max_retrys: unknown setting, ignored; did you mean "retry.max_retries"?',
        "settings.toml: future: unknown setting, ignored",
    ]
    assert result.settings == Settings()
    assert result.raw == {"them": "light", "retry": {"maxRetrys": 2}, "future": {"x": 1}}


def test_condense_section_errors_use_the_same_formatter() -> None:
    """`[condense]` is the engine's own model: dotted paths and suggestions reach inside it."""
    raw = {"condense": {"enabled": False, "purgeErrors": {"cooldownTurns": -1, "enabeld": True}}}
    settings, errors = validate_document(raw)
    assert settings.condense == CondenseConfig(enabled=False)
    assert errors == [
        "settings.toml: condense.purge_errors.cooldown_turns: expected an integer >= 0, got -1",
        'settings.toml: condense.purge_errors.enabeld: unknown setting, ignored; '
        'did you mean "condense.purge_errors.enabled"?',
    ]


# ------------------------------------------------------------------------------------------- saving


def test_save_creates_private_folder_and_file(home: Path) -> None:
    settings = set_value("theme", "light")
    path = home / "settings.toml"
    assert settings.theme == "light"
    assert on_disk(path) == {"theme": "light"}
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in home.iterdir()] == ["settings.toml"]  # no temp file left behind


def test_save_refuses_to_overwrite_a_file_with_a_syntax_error(home: Path) -> None:
    path = write(home / "settings.toml", 'theme = "dark"\n[retry\n')
    before = path.read_bytes()
    with pytest.raises(SettingsError) as caught:
        set_value("theme", "light")
    message = str(caught.value)
    assert "\n" not in message
    assert "line 2, column 7" in message
    assert "Fix " in message
    assert path.read_bytes() == before


def test_unknown_keys_survive_a_save(home: Path) -> None:
    path = write(home / "settings.toml", 'them = "light"\n[retry]\nmaxRetrys = 2\n[future]\nx = 1\n')
    set_value("retry.enabled", False)
    assert on_disk(path) == {"them": "light", "retry": {"maxRetrys": 2, "enabled": False}, "future": {"x": 1}}
    assert any("did you mean" in line for line in load_settings(path).errors)


HAND_WRITTEN = """\
# pi-tui settings, kept by hand
theme = "dark"  # easier on the eyes at night

# not a pi-tui key yet: mine
future_option = "kept"

[retry]
# give flaky proxies a chance
maxRetries = 7
"""


def test_a_save_changes_only_the_lines_it_must(home: Path) -> None:
    path = write(home / "settings.toml", HAND_WRITTEN)
    set_value("theme", "light")
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN.replace('"dark"', '"light"')
    set_value("retry.max_retries", 3)
    set_value("retry.enabled", False)
    set_value("quiet_startup", True)
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN.replace('"dark"', '"light"').replace(
        'future_option = "kept"\n', 'future_option = "kept"\nquiet_startup = true\n'
    ).replace("maxRetries = 7\n", "maxRetries = 3\nenabled = false\n")


def test_removing_a_key_keeps_the_comments_around_it(home: Path) -> None:
    path = write(home / "settings.toml", HAND_WRITTEN)
    set_value("theme", None)
    theme_line = 'theme = "dark"  # easier on the eyes at night\n'
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN.replace(theme_line, "")


def test_a_new_table_is_added_after_the_users_text(home: Path) -> None:
    path = write(home / "settings.toml", HAND_WRITTEN)
    set_value("condense.purge_errors.cooldown_turns", 5)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(HAND_WRITTEN)
    assert tomllib.loads(text[len(HAND_WRITTEN):]) == {"condense": {"purge_errors": {"cooldown_turns": 5}}}


def test_nested_tables_merge_key_by_key(home: Path) -> None:
    path = write(
        home / "settings.toml",
        "[retry]\nenabled = false\nbaseDelayMs = 10\n"
        "[condense]\nenabled = true\n[condense.purgeErrors]\nenabled = false\n",
    )
    save_settings({"retry": {"max_retries": 5}, "condense": {"purgeErrors": {"cooldownTurns": 5}}})
    assert on_disk(path) == {
        "retry": {"enabled": False, "baseDelayMs": 10, "max_retries": 5},
        "condense": {"enabled": True, "purgeErrors": {"enabled": False, "cooldown_turns": 5}},
    }


def test_changing_a_camel_case_key_keeps_one_spelling(home: Path) -> None:
    path = write(home / "settings.toml", "[retry]\nmaxRetries = 1\n")
    set_value("retry.max_retries", 9)
    assert on_disk(path) == {"retry": {"maxRetries": 9}}
    assert load_settings(path).errors == []


def test_none_is_never_written_and_removes_the_key(home: Path) -> None:
    path = home / "settings.toml"
    set_value("shell_path", "/bin/zsh")
    changes = {"shell_path": None, "shell_command_prefix": None, "keymap": {"submit": "ctrl+j", "x": None}}
    save_settings(changes)
    assert on_disk(path) == {"keymap": {"submit": "ctrl+j"}}
    set_value("keymap.submit", None)
    assert on_disk(path) == {}


def test_saving_a_settings_object_writes_only_what_differs(home: Path) -> None:
    path = write(home / "settings.toml", 'theme = "light"\nfuture = 1\n')
    settings = load_settings().settings.model_copy(update={"quiet_startup": True, "tools": ["read"]})
    saved = save_settings(settings)
    assert on_disk(path) == {"theme": "light", "future": 1, "quiet_startup": True, "tools": ["read"]}
    assert saved == settings
    assert load_settings().settings == settings


def test_invalid_change_is_refused_and_nothing_is_written(home: Path) -> None:
    path = write(home / "settings.toml", 'theme = "light"\n')
    before = path.read_bytes()
    with pytest.raises(SettingsError, match=r'retry\.max_retries: expected an integer >= 0, got -1'):
        set_value("retry.max_retries", -1)
    with pytest.raises(SettingsError, match='did you mean "theme"'):
        set_value("them", "dark")
    assert path.read_bytes() == before


def test_a_bad_key_elsewhere_does_not_block_an_unrelated_save(home: Path) -> None:
    path = write(home / "settings.toml", 'steering_mode = "sometimes"\n')
    saved = set_value("condense.purge_errors.cooldown_turns", 5)
    assert saved.condense.purge_errors.cooldown_turns == 5
    condense = {"purge_errors": {"cooldown_turns": 5}}
    assert on_disk(path) == {"steering_mode": "sometimes", "condense": condense}


# ----------------------------------------------------------------------------------------- watching


def replace_atomically(path: Path, data: bytes) -> None:
    """What editors and other programs do: write a temp file beside it, then rename over it."""
    temp = path.with_name(path.name + ".edit-tmp")
    temp.write_bytes(data)
    os.replace(temp, path)


async def next_result(queue: asyncio.Queue[LoadResult], timeout: float = 20.0) -> LoadResult:
    """The next delivery that is not a late echo of a readiness probe."""
    async with asyncio.timeout(timeout):
        while True:
            result = await queue.get()
            if not result.settings.theme.startswith("probe-"):
                return result


async def wait_until_watching(path: Path, queue: asyncio.Queue[LoadResult]) -> None:
    """The watcher has no ready signal; edit until it reports one, so later steps cannot be missed."""
    for attempt in range(40):
        replace_atomically(path, f'theme = "probe-{attempt}"\n'.encode())
        try:
            await asyncio.wait_for(queue.get(), 1.0)
            return
        except TimeoutError:
            continue
    raise AssertionError("the watcher never reported an edit")


@pytest.mark.timeout(120)
async def test_watcher_reports_outside_edits_and_skips_our_own_saves(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="pi_tui.settings.watch")
    path = tmp_path / "home" / "settings.toml"
    path.parent.mkdir()
    queue: asyncio.Queue[LoadResult] = asyncio.Queue()
    stop = asyncio.Event()
    task = asyncio.create_task(watch_settings(queue.put_nowait, stop, path=path))
    try:
        await wait_until_watching(path, queue)

        save_settings({"theme": "ours"}, path)
        ours = path.read_bytes()
        await until(lambda: any("own save" in r.getMessage() for r in caplog.records),
                    "the watcher to log its own save")

        replace_atomically(path, b'theme = "theirs"\n[retry\n')
        broken = await next_result(queue)
        assert broken.settings == Settings()
        assert broken.errors == [
            "settings.toml: line 2, column 7: Expected ']' at the end of a table declaration"
        ]

        replace_atomically(path, b'theme = "theirs"\n')
        assert (await next_result(queue)).settings.theme == "theirs"

        replace_atomically(path, ours)  # the user restores text we once wrote: still their edit
        assert (await next_result(queue)).settings.theme == "ours"
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
