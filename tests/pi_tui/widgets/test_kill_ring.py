"""The kill ring: cuts in a row join in the order the text stood, Ctrl+Y puts back the newest, Alt+Y
turns to an earlier one."""

from __future__ import annotations

from pi_tui.widgets.kill_ring import SIZE, KillRing


def test_cuts_in_a_row_join_in_the_order_the_text_stood() -> None:
    ring = KillRing()
    ring.push("three", before=True, join=False)
    ring.push("two ", before=True, join=True)  # Ctrl+W again: the word before goes in front
    ring.push(" four", before=False, join=True)  # then Alt+D: the word after goes behind
    assert ring.peek() == "two three four"
    ring.push("other", before=False, join=False)
    assert ring.entries == ["two three four", "other"]


def test_rotate_turns_to_earlier_cuts_and_the_ring_is_bounded() -> None:
    ring = KillRing()
    assert ring.peek() is None and ring.rotate() is None
    for n in range(SIZE + 5):
        ring.push(f"cut {n}", before=False, join=False)
    assert len(ring.entries) == SIZE and ring.peek() == f"cut {SIZE + 4}"
    assert ring.rotate() == f"cut {SIZE + 3}"
    assert ring.rotate() == f"cut {SIZE + 2}"
