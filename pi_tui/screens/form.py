"""A settings overlay generated from a pydantic model: `/pruner settings` and `/settings`.

Each field becomes a control by its type: bools are switches, Literals selects, numbers and strings
inputs (a number is checked as you type), string lists comma-separated inputs, nested models titled
groups. The field's description is its help line. A change is handed to `on_change(path, value)`,
which validates and saves it at once and returns an error line to show under the field, or None.
Inputs save on Enter or when they lose the focus; switches and selects on every change.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Select, Static, Switch

from pi_tui import keymap

Path = tuple[str, ...]
OnChange = Callable[[Path, Any], str | None]
Kind = Literal["bool", "choice", "int", "float", "list", "text", "group", "readonly"]


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


class FieldRow(Vertical):
    """One field: its name and control on a line, its description and the last outcome below."""

    DEFAULT_CSS = """
    FieldRow { height: auto; margin-bottom: 1; }
    FieldRow > Horizontal { height: auto; }
    FieldRow .field-name { width: 32; color: $foreground; }
    FieldRow Input, FieldRow Select { width: 1fr; background: $panel; }
    FieldRow Switch { border: none; height: 1; padding: 0 1; background: $panel; }
    FieldRow Switch:focus { background: $primary 30%; }
    FieldRow .field-help { color: $muted; padding-left: 32; }
    FieldRow .field-outcome { color: $success; padding-left: 32; }
    FieldRow .field-outcome.-error { color: $error; }
    """

    def __init__(self, spec: FieldSpec, value: Any) -> None:
        super().__init__(id=spec.dom_id)
        self.spec = spec
        self.value = value
        self.outcome = Static("", classes="field-outcome")
        self.outcome.display = False

    def control(self) -> Widget:
        spec, value = self.spec, self.value
        if spec.kind == "bool":
            return Switch(bool(value), id=f"{spec.dom_id}-control")
        if spec.kind == "choice":
            options = [(choice, choice) for choice in spec.choices]
            current = str(value) if value is not None and str(value) in spec.choices else Select.NULL
            return Select(options, value=current, allow_blank=spec.optional, compact=True,
                          id=f"{spec.dom_id}-control")
        if spec.kind == "readonly":
            return Static(Content(repr(value)), id=f"{spec.dom_id}-control")
        kind = {"int": "integer", "float": "number"}.get(spec.kind, "text")
        return Input(to_text(spec, value), type=kind, compact=True,  # type: ignore[arg-type]
                     id=f"{spec.dom_id}-control")

    def compose(self) -> Iterator[Widget]:
        with Horizontal():
            yield Static(Content(self.spec.path[-1]), classes="field-name")
            yield self.control()
        if self.spec.description:
            yield Static(Content(self.spec.description), classes="field-help")
        yield self.outcome

    def show_outcome(self, error: str | None) -> None:
        self.outcome.display = True
        self.outcome.set_class(error is not None, "-error")
        self.outcome.update(Content(error or "saved"))


class SettingsFormScreen(ModalScreen[None]):
    BINDINGS = keymap.FORM
    DEFAULT_CSS = """
    SettingsFormScreen { align: center middle; }
    SettingsFormScreen > #form {
        width: 92%; max-width: 130; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    SettingsFormScreen .form-title { color: $accent; text-style: bold; }
    SettingsFormScreen .form-hint { color: $muted; }
    SettingsFormScreen .group-title { color: $accent; text-style: bold; margin-top: 1; }
    SettingsFormScreen .group-help { color: $muted; margin-bottom: 1; }
    SettingsFormScreen VerticalScroll { height: 1fr; }
    """

    def __init__(self, title: str, specs: list[FieldSpec], values: dict[str, Any], on_change: OnChange,
                 hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.specs = specs
        self.values = values
        self.on_change = on_change
        self.hint = hint or ("Tab moves · changes are saved at once (inputs: on Enter or leaving the field)"
                             " · Esc closes")
        self.rows: dict[str, FieldRow] = {}

    def _rows(self, specs: list[FieldSpec]) -> Iterator[Widget]:
        for spec in specs:
            if spec.kind == "group":
                yield Static(Content(spec.dotted), classes="group-title")
                if spec.description:
                    yield Static(Content(spec.description), classes="group-help")
                yield from self._rows(spec.children)
                continue
            row = FieldRow(spec, value_at(self.values, spec.path))
            self.rows[spec.dom_id] = row
            yield row

    def compose(self) -> Iterator[Widget]:
        with Vertical(id="form"):
            yield Static(Content(self.title_text), classes="form-title")
            with VerticalScroll(id="form-body"):
                yield from self._rows(self.specs)
            yield Static(Content(self.hint), classes="form-hint")

    def _row_of(self, widget: Widget) -> FieldRow | None:
        for node in widget.ancestors_with_self:
            if isinstance(node, FieldRow):
                return node
        return None

    def apply(self, row: FieldRow, value: Any) -> str | None:
        error = self.on_change(row.spec.path, value)
        if error is None:
            row.value = value
        row.show_outcome(error)
        return error

    def _apply_text(self, widget: Input) -> None:
        row = self._row_of(widget)
        if row is None or widget.value == to_text(row.spec, row.value):
            return
        try:
            value = parse_value(row.spec, widget.value)
        except ValueError as exc:
            row.show_outcome(str(exc))
            return
        self.apply(row, value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._apply_text(event.input)

    def on_input_blurred(self, event: Input.Blurred) -> None:
        self._apply_text(event.input)

    def on_switch_changed(self, event: Switch.Changed) -> None:
        row = self._row_of(event.switch)
        if row is not None and event.value != row.value:
            self.apply(row, event.value)

    def on_select_changed(self, event: Select.Changed) -> None:
        row = self._row_of(event.select)
        value = None if event.value is Select.NULL else event.value
        if row is not None and value != row.value:
            self.apply(row, value)

    def action_close(self) -> None:
        self.dismiss(None)
