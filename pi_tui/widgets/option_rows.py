"""One-line rows of an OptionList that fit its width: the part that tells a row apart from its neighbours
(a label and its time, a session's date and size) stays, the long text before it gives way.

Cutting at the line's end, as the list's own ellipsis does, hid exactly those parts at 80 columns: two
sessions that start with the same words read alike, a tree row lost its label. An identifier (a model's
provider/id) is cut in its middle instead: ids of one provider share their start and differ at the end.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import OptionList


def row_width(options: OptionList, rows: int, fallback: int) -> int:
    """The cells a row has: the list's width less its options' padding and the scrollbar `rows` rows will
    need; `fallback` (the terminal's width) before the first layout, when the resize after it fills again."""
    region = options.scrollable_content_region
    if not region.width:
        return fallback
    scrollbar = not options.show_vertical_scrollbar and rows > region.height
    padding = options.get_component_styles("option-list--option").padding.width
    return region.width - padding - (options.styles.scrollbar_size_vertical if scrollbar else 0)


def fitted(head: Content, text: Content, tail: Content, width: int, keep: int = 0, middle: bool = False) -> Content:
    """`head`, `text` and `tail` in `width` cells, only `text` cut (with an ellipsis) to make room, but to
    no fewer than `keep` cells (a tail too long for the row is then cut at its end by the list). `middle`:
    `text` is an identifier, cut in its middle so that its end shows."""
    room = max(width - head.cell_length - tail.cell_length, keep, 0)
    if text.cell_length > room:
        text = middle_cut(text, room) if middle else text.truncate(room, ellipsis=True)
    return Content.assemble(head, text, tail)


def middle_cut(text: Content, width: int) -> Content:
    """`text` in `width` cells with `…` in its middle, a third of the room before it and the rest after:
    `abliteration/ab…ted-model-large-flash`. For single-cell text (identifiers)."""
    if text.cell_length <= width:
        return text
    if width < 3:
        return text.truncate(width, ellipsis=True)
    before = (width - 1) // 3
    after = width - 1 - before
    return Content.assemble(text[:before], "…", text[len(text) - after:])
