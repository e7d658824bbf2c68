"""Every key binding of the TUI, in one table, each with an id the user can remap.

`settings.toml` may hold `[keymap]` entries such as `"editor.submit" = "ctrl+j"`; the app hands them
to Textual's `set_keymap`, which swaps the keys of the binding with that id wherever it is used.
Widgets take their `BINDINGS` from here, so `/hotkeys` lists exactly what the keys do.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import cache

from textual import events
from textual.binding import Binding
from textual.keys import Keys, _character_to_key

# While the editor has focus it runs these too, at each key's turn (PiApp._check_bindings).
APP = [
    Binding("ctrl+c", "clear_or_quit", "clear editor (twice: quit)", id="app.clear-or-quit", priority=True),
    Binding("ctrl+d", "quit_if_empty", "quit (empty editor)", id="app.quit", priority=True),
    Binding("escape", "abort", "abort the agent", id="app.abort"),
    Binding("ctrl+t", "toggle_thinking", "show/hide thinking", id="app.toggle-thinking", priority=True),
    Binding("ctrl+o", "toggle_tools", "expand/collapse tool output", id="app.expand-tools", priority=True),
    Binding("ctrl+l", "pick_model", "choose a model", id="app.model", priority=True),
    Binding("shift+tab", "cycle_thinking", "cycle thinking level", id="app.thinking-level", priority=True),
    Binding("ctrl+p", "cycle_model(1)", "next model (/scoped-models)", id="app.cycle-model", priority=True),
    Binding("ctrl+shift+p", "cycle_model(-1)", "previous model", id="app.cycle-model-back", priority=True),
    Binding("pageup", "scroll_transcript(-1)", "scroll up (at the top: load earlier)", id="app.page-up",
            priority=True),
    Binding("pagedown", "scroll_transcript(1)", "scroll down (at the bottom: follow new output)",
            id="app.page-down", priority=True),
    Binding("ctrl+end", "jump_to_bottom", "jump to the newest output and follow it", id="app.bottom",
            priority=True),
    Binding("ctrl+home", "jump_to_top", "jump to the first message", id="app.top", priority=True),
    Binding("ctrl+z", "suspend_process", "suspend pi-tui (the shell's fg resumes it)", id="app.suspend",
            priority=True),
]

# The editor runs these itself, in order with the typed text (see PromptEditor._on_key): a priority
# binding would fire before the characters typed just ahead of it reach the editor.
EDITOR = [
    Binding("enter", "submit", "send (steers while the agent works)", id="editor.submit"),
    Binding("alt+enter", "follow_up", "queue a follow-up", id="editor.follow-up"),
    Binding("shift+enter,ctrl+j", "newline", "new line", id="editor.newline"),
    Binding("up", "history(-1)", "previous prompt (on the first line)", id="editor.history-up"),
    Binding("down", "history(1)", "next prompt (on the last line)", id="editor.history-down"),
    Binding("tab", "complete", "complete command or path", id="editor.complete"),
    Binding("home", "home", "line start (empty editor: the first message)", id="editor.home"),
    Binding("end", "end", "line end (empty editor: the newest output)", id="editor.end"),
    Binding("ctrl+k", "kill('line_end')", "cut to the line's end (Ctrl+Y puts it back)", id="editor.cut-to-end"),
    Binding("ctrl+u", "kill('line_start')", "cut to the line's start", id="editor.cut-to-start"),
    Binding("ctrl+w,alt+backspace", "kill('word_left')", "cut the word before the cursor", id="editor.cut-word"),
    Binding("alt+d,alt+delete", "kill('word_right')", "cut the word after the cursor", id="editor.cut-next-word"),
    Binding("ctrl+y", "yank", "put back the last cut", id="editor.yank"),
    Binding("alt+y", "yank_pop", "right after Ctrl+Y: an earlier cut instead", id="editor.yank-pop"),
    Binding("ctrl+underscore", "undo", "undo (Ctrl+- in most terminals)", id="editor.undo"),
    Binding("ctrl+v", "paste_image", "attach the clipboard's image (or paste a path)",
            id="editor.paste-image"),
    Binding("ctrl+g", "app('external_editor')", "edit the message in $VISUAL / $EDITOR", id="editor.external"),
    Binding("alt+up", "app('dequeue')", "queued messages back into the editor", id="editor.dequeue"),
]

OVERLAY = [
    Binding("escape", "close", "close", id="overlay.close"),
    Binding("q", "close", "close", id="overlay.quit", show=False),
]

PICKER = [
    Binding("escape", "close", "close", id="picker.close"),
    Binding("down", "move(1)", "next", id="picker.down", show=False, priority=True),
    Binding("up", "move(-1)", "previous", id="picker.up", show=False, priority=True),
    # not a priority binding: the filter takes Enter in order with the letters typed before it (a burst
    # of keys, a paste), and chooses through `Input.Submitted`
    Binding("enter", "choose", "choose", id="picker.choose"),
]

# /resume's picker adds its scope to a picker's keys; priority: Tab would otherwise move the focus
SESSION_PICKER = [
    Binding("tab", "toggle_scope", "this folder's sessions / every folder's", id="sessions.scope",
            priority=True),
]

CONFIRM = [
    Binding("y,enter", "answer(True)", "yes", id="confirm.yes"),
    Binding("n,escape", "answer(False)", "no", id="confirm.no"),
]

TREE = [
    Binding("escape", "close", "close", id="tree.close"),
    Binding("slash", "filter", "filter", id="tree.filter"),
    Binding("ctrl+o", "open_summary", "whole summary", id="tree.summary", priority=True),
]

FORM = [
    Binding("escape", "close", "close", id="form.close"),
]

SESSION_TREE = [
    Binding("escape", "close", "close", id="session-tree.close"),
    Binding("ctrl+left,alt+left", "fold", "fold, or go to the previous branch", id="session-tree.fold",
            priority=True),
    Binding("ctrl+right,alt+right", "unfold", "unfold, or go to the next branch", id="session-tree.unfold",
            priority=True),
    Binding("left", "page(-1)", "page up", id="session-tree.page-up", show=False),
    Binding("right", "page(1)", "page down", id="session-tree.page-down", show=False),
    Binding("ctrl+u", "mode('user')", "user messages only (again: back)", id="session-tree.user-only",
            priority=True),
    Binding("ctrl+o", "mode('all')", "every entry (again: back)", id="session-tree.all", priority=True),
    Binding("L", "set_label", "label the entry (Shift+L; empty: remove)", id="session-tree.label", priority=True),
    Binding("T", "toggle_times", "show when labels were set (Shift+T)", id="session-tree.label-times",
            priority=True),
]

GROUPS: dict[str, list[Binding]] = {
    "anywhere": APP, "editor": EDITOR, "pickers": PICKER, "/resume": SESSION_PICKER, "/pruner tree": TREE,
    "overlays": OVERLAY, "settings": FORM, "/tree": SESSION_TREE, "questions": CONFIRM,
}


MODIFIERS = frozenset({"ctrl", "alt", "shift", "super", "meta", "hyper"})
ESCAPE_ENTER = "\x1b\r"  # Alt+Enter as tmux and most terminals send it


@cache
def _key_names() -> frozenset[str]:
    """Every key name Textual can report, without modifiers."""
    named = {key.value.rsplit("+", 1)[-1] for key in Keys if not key.value.startswith("<")}
    return frozenset(named | {_character_to_key(chr(code)) for code in range(32, 127)} | {"newline"})


def is_key(key: str) -> bool:
    """Whether Textual could ever report `key` (`ctrl+j`, `alt+enter`, `f5`, `?`)."""
    *modifiers, name = key.strip().split("+")
    return (len(name) == 1 and name.isprintable()) or (name in _key_names() and MODIFIERS.issuperset(modifiers))


def _bindings_by_id() -> dict[str, Binding]:
    return {binding.id: binding for bindings in GROUPS.values() for binding in bindings if binding.id}


def check_keymap(entries: dict[str, str], source: str = "settings.toml") -> tuple[dict[str, str], list[str]]:
    """The `[keymap]` entries that can work, and one line per entry that cannot. A key Textual never
    reports would silently disable the binding, so a bad entry is dropped and its binding keeps its key."""
    bindings = _bindings_by_id()
    good: dict[str, str] = {}
    errors: list[str] = []
    for binding_id, keys in entries.items():
        if binding_id not in bindings:
            guess = difflib.get_close_matches(binding_id, list(bindings), n=1)
            hint = f'; did you mean "{guess[0]}"?' if guess else " (/hotkeys lists the ids)"
            errors.append(f"{source}: keymap.{binding_id}: unknown key binding id, ignored{hint}")
            continue
        unknown = [key.strip() for key in keys.split(",") if not is_key(key)]
        if unknown:
            errors.append(f'{source}: keymap.{binding_id}: expected key names such as "ctrl+j" or "alt+enter", '
                          f'got "{unknown[0]}"; keeping "{bindings[binding_id].key}"')
            continue
        good[binding_id] = keys
    return good, errors


def read_escape_enter_as_alt_enter() -> None:
    """tmux and most terminals send Alt+Enter as ESC then CR, which Textual reports as a plain Enter (so
    the follow-up key would steer). Teach Textual's key parser that pair; call it before the app starts."""
    from textual._xterm_parser import XTermParser

    plain = XTermParser._sequence_to_key_events
    if getattr(plain, "reads_escape_enter", False):
        return

    def with_escape_enter(parser: XTermParser, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if sequence == ESCAPE_ENTER or (alt and sequence == "\r"):  # whole, or re-read after the ESC delay
            return iter([events.Key("alt+enter", None)])
        return iter(plain(parser, sequence, alt))

    # Patching Textual's parser on purpose: mypy models neither a function's own attributes nor a
    # function assigned over a method.
    with_escape_enter.reads_escape_enter = True  # type: ignore[attr-defined]
    XTermParser._sequence_to_key_events = with_escape_enter  # type: ignore[method-assign, assignment]


KEYS_COLUMN = 16  # where descriptions start: the table fits the 66 columns the overlay has at 80


def _binding_lines(keys: str, what: str, name: str) -> list[str]:
    """A binding as rows of the `/hotkeys` table: keys (on a row of their own when too long for their
    column), what they do, and the id under it."""
    head = "  " + keys.replace(",", ", ")
    lines = [head] if len(head) >= KEYS_COLUMN - 1 else []
    first = " " * KEYS_COLUMN if lines else f"{head:<{KEYS_COLUMN}}"
    return [*lines, first + what, " " * KEYS_COLUMN + f"id {name}"]


def hotkeys_text(keymap: dict[str, str]) -> str:
    """The `/hotkeys` listing: keys, what they do and the id to remap them by, a heading per group, the
    user's remapped keys where they set any. Narrow enough for an 80-column terminal."""
    keymap, _ = check_keymap(keymap)
    lines = [f"{'keys':<{KEYS_COLUMN}}what they do, and the id that remaps them"]
    for group, bindings in GROUPS.items():
        lines += ["", group]
        for b in bindings:
            lines += _binding_lines(keymap.get(b.id or "", b.key), b.description, b.id or "")
    lines += ["", "Editor text: / commands, @ file paths (Tab completes),",
              "!cmd runs a shell command into the context, !!cmd runs one",
              "without adding it.", "",
              'Remap a key in settings.toml: [keymap], then a line like',
              '"editor.submit" = "ctrl+j".']
    return "\n".join(lines)
