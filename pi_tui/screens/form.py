"""A settings overlay generated from a pydantic model: `/pruner settings` and `/settings`.

One line-based list, not a widget per field: fifty fields as widgets took seconds to open, and a single
list opens in the time of one frame. Each field is a row, its name, its value (switches read On/Off) and
its description (Markdown: `code` and **bold** render, their marks do not); nested models are titled
groups. Enter on a row changes it by its type: a switch flips, a choice moves to the next option (a
long list of them opens a searchable picker), a number, text or comma-separated list opens the edit
line below the list (Enter saves, Esc cancels). A change is handed to `on_change(path, value)`, which
validates and saves it at once and returns an error line to show under the field, or None.
"""

from __future__ import annotations

import re
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from pi_tui.screens.picker import Choice, PickerScreen
from pi_tui.settings.keys import set_dotted
from pi_tui.widgets import keymap

Path = tuple[str, ...]
OnChange = Callable[[Path, Any], str | None]
Kind = Literal["bool", "choice", "int", "float", "list", "text", "group", "readonly"]
CYCLE_AT_MOST = 4  # a choice with more options (themes) opens a searchable picker instead of cycling
NAME_WIDTH = 26  # with the value beside it, a row fits the 80-column overlay
_INLINE = re.compile(r"(`[^`]+`|\*\*[^*]+\*\*)")


@dataclass
class FieldSpec:
    path: Path
    kind: Kind
    description: str = ""
    optional: bool = False
    choices: list[str] = field(default_factory=list)
    children: list[FieldSpec] = field(default_factory=list)

    @property
    def dotted(self) -> str:
        return ".".join(self.path)

    @property
    def dom_id(self) -> str:
        return "field-" + "-".join(self.path).replace("_", "-")


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """The type inside `Annotated[...]` and `X | None`, and whether None is allowed."""
    optional = False
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            args = [arg for arg in get_args(annotation) if arg is not type(None)]
            optional = optional or len(args) < len(get_args(annotation))
            annotation = args[0] if len(args) == 1 else str
        else:
            return annotation, optional


def field_specs(model: type[BaseModel], prefix: Path = (), skip: frozenset[str] = frozenset(),
                choices: dict[str, list[str]] | None = None) -> list[FieldSpec]:
    """One spec per field of `model`, nested models as groups; `choices` turns a text field into a select."""
    specs: list[FieldSpec] = []
    for name, info in model.model_fields.items():
        path = (*prefix, name)
        dotted = ".".join(path)
        if dotted in skip:
            continue
        annotation, optional = _unwrap(info.annotation)
        description = info.description or ""
        if choices and dotted in choices:
            specs.append(FieldSpec(path, "choice", description, optional, list(choices[dotted])))
        elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
            children = field_specs(annotation, path, skip, choices)
            specs.append(FieldSpec(path, "group", description, children=children))
        elif get_origin(annotation) is Literal:
            options = [str(arg) for arg in get_args(annotation)]
            specs.append(FieldSpec(path, "choice", description, optional, options))
        elif annotation is bool:
            specs.append(FieldSpec(path, "bool", description))
        elif annotation is int:
            specs.append(FieldSpec(path, "int", description, optional))
        elif annotation is float:
            specs.append(FieldSpec(path, "float", description, optional))
        elif get_origin(annotation) is list:
            specs.append(FieldSpec(path, "list", description, optional))
        elif annotation is str:
            specs.append(FieldSpec(path, "text", description, optional))
        else:
            specs.append(FieldSpec(path, "readonly", description or "edit this one in settings.toml"))
    return specs


def value_at(data: Any, path: Path) -> Any:
    for part in path:
        data = data.get(part) if isinstance(data, dict) else None
    return data


def to_text(spec: FieldSpec, value: Any) -> str:
    if value is None:
        return ""
    if spec.kind == "list":
        return ", ".join(str(item) for item in value)
    if spec.kind == "float" and isinstance(value, float) and value == 0:
        return "0"
    return str(value)


def parse_value(spec: FieldSpec, text: str) -> Any:
    """What the user typed, as the field's type; ValueError says in words what was expected."""
    raw = text.strip()
    if spec.kind == "list":
        return [part.strip() for part in raw.split(",") if part.strip()]
    if not raw and spec.optional:
        return None
    if spec.kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"{spec.dotted}: expected a whole number, got {raw!r}") from None
    if spec.kind == "float":
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"{spec.dotted}: expected a number, got {raw!r}") from None
    return raw


def inline_markdown(text: str, style: str = "") -> Content:
    """A description's inline Markdown as styled text: `code` and **bold** show, their marks do not."""
    pieces: list[str | tuple[str, str]] = []
    for part in _INLINE.split(text):
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            pieces.append((part[1:-1], "$accent"))
        elif part.startswith("**") and part.endswith("**") and len(part) > 3:
            pieces.append((part[2:-2], f"bold {style}".strip()))
        elif part:
            pieces.append((part, style))
    return Content.assemble(*pieces)


def shown_value(spec: FieldSpec, value: Any) -> Content:
    """The value as a person reads it: On/Off, a choice, a number, a list, or (none)."""
    if spec.kind == "bool":
        return Content.styled("On", "$success") if value else Content.styled("Off", "$warning")
    if spec.kind == "readonly":
        return Content.styled(repr(value), "$muted")
    text = to_text(spec, value)
    return Content(text) if text else Content.styled("(none)", "$muted")


def next_choice(spec: FieldSpec, value: Any) -> Any:
    """The option after `value` (an optional field cycles through "none" too)."""
    options: list[Any] = [*spec.choices, *([None] if spec.optional else [])]
    current = str(value) if value is not None else None
    position = options.index(current) if current in options else -1
    return options[(position + 1) % len(options)]


def _flatten(specs: list[FieldSpec]) -> Iterator[FieldSpec]:
    for spec in specs:
        yield spec
        if spec.kind == "group":
            yield from _flatten(spec.children)


class SettingsFormScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.FORM]
    DEFAULT_CSS = """
    SettingsFormScreen { align: center middle; }
    SettingsFormScreen > #form {
        width: 96%; max-width: 110; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    SettingsFormScreen .form-title { color: $accent; text-style: bold; }
    SettingsFormScreen .form-hint { color: $muted; }
    SettingsFormScreen #form-fields { height: 1fr; border: none; background: $surface; }
    SettingsFormScreen #form-edit-label { color: $accent; }
    SettingsFormScreen #form-edit { border: none; height: 1; padding: 0; background: $panel; }
    """

    def __init__(self, title: str, specs: list[FieldSpec], read_values: Callable[[], dict[str, Any]],
                 on_change: OnChange, hint: str = "") -> None:
        """`read_values()` gives the values in force now: at opening, and again on `reload`."""
        super().__init__()
        self.title_text = title
        self.specs = specs
        self.read_values = read_values
        self.values = read_values()
        self.on_change = on_change
        self.hint = hint or "↑↓ move · Enter: switches flip, short choices move on, long ones open a list," \
            " values open the edit line · saved at once · Esc closes"
        self.fields = {spec.dotted: spec for spec in _flatten(specs)}
        self.outcomes: dict[str, str | None] = {}  # dotted -> None (saved) or the error line
        self.editing: FieldSpec | None = None
        self.list = OptionList(*(self._option(spec) for spec in _flatten(specs)), id="form-fields")
        self.edit_label = Static("", id="form-edit-label")
        self.edit = Input(id="form-edit", compact=True)

    def compose(self) -> Iterator[Widget]:
        with Vertical(id="form"):
            yield Static(Content(self.title_text), classes="form-title")
            yield self.list
            yield self.edit_label
            yield self.edit
            yield Static(Content(self.hint), classes="form-hint")

    def on_mount(self) -> None:
        self._show_edit(None)
        self.list.focus()

    # ----- rows ---------------------------------------------------------------------------------

    def _prompt(self, spec: FieldSpec) -> Content:
        lines: list[Content] = []
        if spec.kind == "group":
            lines.append(Content.styled(spec.dotted, "bold $accent"))
        else:
            name = Content(spec.path[-1].ljust(NAME_WIDTH - 1) + " ")
            lines.append(Content.assemble(name, shown_value(spec, value_at(self.values, spec.path))))
        if spec.description:
            lines.append(Content.assemble("  ", inline_markdown(spec.description, "dim")))
        if spec.dotted in self.outcomes:
            error = self.outcomes[spec.dotted]
            lines.append(Content.styled(f"  {error}", "$error") if error
                         else Content.styled("  saved", "$success"))
        return Content("\n").join(lines)

    def _option(self, spec: FieldSpec) -> Option:
        return Option(self._prompt(spec), id=spec.dotted, disabled=spec.kind == "group")

    def _redraw(self, spec: FieldSpec) -> None:
        self.list.replace_option_prompt(spec.dotted, self._prompt(spec))

    def reload(self) -> None:
        """The settings changed elsewhere (an edit of settings.toml): show what is in force now."""
        self.values = self.read_values()
        for spec in self.fields.values():
            self._redraw(spec)

    def focus_field(self, dotted: str) -> None:
        """Move the highlight to a field (as the arrow keys would)."""
        self.list.highlighted = self.list.get_option_index(dotted)

    # ----- changing -----------------------------------------------------------------------------

    def apply(self, spec: FieldSpec, value: Any) -> str | None:
        error = self.on_change(spec.path, value)
        if error is None:
            self.values = set_dotted(self.values, spec.path, value)
        self.outcomes[spec.dotted] = error
        self._redraw(spec)
        return error

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        spec = self.fields.get(event.option.id or "")
        if spec is None:
            return
        value = value_at(self.values, spec.path)
        if spec.kind == "bool":
            self.apply(spec, not value)
        elif spec.kind == "choice" and len(spec.choices) > CYCLE_AT_MOST:
            choices = [Choice(option, option) for option in spec.choices]

            def picked(chosen: Any) -> None:
                if chosen is not None:
                    self.apply(spec, chosen)

            self.app.push_screen(PickerScreen(spec.dotted, choices, current=value), picked)
        elif spec.kind == "choice":
            self.apply(spec, next_choice(spec, value))
        elif spec.kind == "readonly":
            self.outcomes[spec.dotted] = "edit this one in settings.toml"
            self._redraw(spec)
        elif spec.kind != "group":
            self._show_edit(spec)

    def _show_edit(self, spec: FieldSpec | None) -> None:
        self.editing = spec
        self.edit_label.display = self.edit.display = spec is not None
        if spec is None:
            self.list.focus()
            return
        hint = "comma-separated" if spec.kind == "list" else {"int": "a whole number", "float": "a number"}.get(
            spec.kind, "text")
        self.edit_label.update(Content(f"{spec.dotted} ({hint}; Enter saves, Esc cancels):"))
        self.edit.value = to_text(spec, value_at(self.values, spec.path))
        self.edit.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        spec = self.editing
        if spec is None:
            return
        try:
            value = parse_value(spec, event.value)
        except ValueError as exc:
            self.outcomes[spec.dotted] = str(exc)
            self._redraw(spec)
            return
        if self.apply(spec, value) is None:
            self._show_edit(None)

    def action_close(self) -> None:
        if self.editing is not None:
            self._show_edit(None)
            return
        self.dismiss(None)
