"""A chain's refs stored as ranges read back as the very list compression made, and anything that is not a
list of `tN` refs is kept as it is."""

from __future__ import annotations

from condense.ref_ranges import packed, unpacked


def test_refs_that_run_on_are_one_range_and_read_back_in_their_order() -> None:
    refs = ["t359", "t360", "t361", "t5", "t7", "t8"]
    assert packed(refs) == "t359-t361,t5,t7-t8"
    assert unpacked(packed(refs)) == tuple(refs)


def test_a_list_with_anything_but_tn_refs_stays_a_list() -> None:
    for refs in (["toolu_01", "t2"], ["t01"], []):
        assert packed(refs) == refs
        assert unpacked(packed(refs)) == tuple(refs)


def test_a_damaged_range_is_read_as_it_is_not_expanded() -> None:
    assert unpacked("t9-t3,t1-t99999999999") == ("t9-t3", "t1-t99999999999")
    assert unpacked(7) == ()
