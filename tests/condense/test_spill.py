"""Scenarios of the reference's `src/spill.test.ts`: sidecar names, head previews, and the eager spill of
oversized results at the end of a turn."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from condense.blobs import blob_dir, blob_path, head_preview, sanitize_id
from condense.index import ToolCallIndexer
from condense.occurrence import occ_key
from condense.query import run_query
from condense.records import DEDUP_ALIAS, INDEX, Batch, ToolCallRecord
from condense.spill import spill_oversized_batch
from tests.support.typed import present


class Log:
    def __init__(self) -> None:
        self.entries: list[tuple[str, Any]] = []

    def __call__(self, custom_type: str, data: Any) -> None:
        self.entries.append((custom_type, data))


def call(call_id: str, text: str, ts: int | None = None, name: str = "fetch") -> ToolCallRecord:
    return ToolCallRecord(call_id, name, {}, text, False, 0, 1, ts)


def batch(*calls: ToolCallRecord) -> Batch:
    return Batch(turn_index=0, timestamp=1, assistant_text="", tool_calls=list(calls))


def spill(indexer: ToolCallIndexer, blobs: Path, *calls: ToolCallRecord, dedup: bool = True,
          append: Log | None = None) -> set[str]:
    return spill_oversized_batch(batch(*calls), indexer, threshold=10, preview_bytes=8, dedup=dedup,
                                 blobs_dir=blobs, append=append or Log())


@pytest.fixture
def blobs(tmp_path: Path) -> Path:
    return blob_dir(tmp_path, "sid")


def test_sanitize_id_replaces_path_separators_and_unsafe_chars() -> None:
    assert sanitize_id("toolu_abc-123") == "toolu_abc-123"
    assert sanitize_id("../../etc/passwd") == "______etc_passwd"
    assert sanitize_id("a/b\\c") == "a_b_c"


def test_blob_dir_blob_path_builds_session_dir_session_id_blobs_id_txt() -> None:
    assert blob_dir(Path("/s"), "sid") == Path("/s/sid-blobs")
    assert blob_path(blob_dir(Path("/s"), "sid"), "tc1") == Path("/s/sid-blobs/tc1.txt")


def test_head_preview_returns_the_whole_string_when_under_the_byte_cap() -> None:
    assert head_preview("hello", 1024) == "hello"


def test_head_preview_cuts_at_a_line_boundary_when_one_exists_in_budget() -> None:
    assert head_preview("aaaa\nbbbb\ncccc", 7) == "aaaa"


def test_head_preview_never_exceeds_the_byte_cap_and_stays_valid_utf_8() -> None:
    out = head_preview("é" * 100, 11)
    data = out.encode("utf-8")  # strict: a split code point would have become a lone surrogate here
    assert len(data) <= 11
    assert out == "é" * 5


def test_blob_path_distinguishes_two_occurrences_of_one_id() -> None:
    first = blob_path(Path("/tmp/s/sess-blobs"), occ_key("bash_23", 1150))
    second = blob_path(Path("/tmp/s/sess-blobs"), occ_key("bash_23", 3150))
    assert first != second
    assert first.name == "bash_23_1150.txt"


def test_legacy_bare_id_sidecar_path_is_unchanged() -> None:
    assert blob_path(Path("/tmp/s/sess-blobs"), "bash_23").name == "bash_23.txt"


def test_register_duplicate_is_called_with_occurrence_keys_on_both_sides(blobs: Path) -> None:
    # The reference checks a stubbed indexer's call; we use the real one and read what it persisted.
    body = "x" * 100
    indexer = ToolCallIndexer()
    indexer.add_batch([call("bash_1", body, 1000, name="bash")], Log())
    log = Log()
    handled = spill(indexer, blobs, call("bash_2", body, 2150, name="bash"), append=log)
    assert handled == {"bash_2@2150"}
    assert log.entries == [(DEDUP_ALIAS, {"newToolCallId": "bash_2", "newResultTimestamp": 2150,
                                          "originalToolCallId": "bash_1", "originalResultTimestamp": 1000})]
    assert not blobs.exists()


def test_g4_c4_legacy_bare_id_sidecar_recovery(tmp_path: Path) -> None:
    # A sidecar named the pre-occurrence-key way, and an index record without resultTimestamp pointing at
    # it: recovery reads the persisted spillPath instead of re-deriving a name.
    sidecar = blob_path(blob_dir(tmp_path, "sid"), "bash_7")
    sidecar.parent.mkdir(parents=True)
    sidecar.write_text("OLD SPILLED BODY" * 20)
    record = {"toolCallId": "bash_7", "toolName": "fetch", "args": {"url": "https://x"}, "resultText": "",
              "resultPreview": "OLD SPILLED", "spillPath": str(sidecar), "spillBytes": 320, "isError": False,
              "turnIndex": 0, "timestamp": 500}
    indexer = ToolCallIndexer()
    indexer.rebuild([{"type": "custom", "customType": INDEX, "data": {"toolCalls": [record]}}])
    assert indexer.has_legacy_bare_record("bash_7")
    text, _ = run_query(indexer, ["bash_7"])
    assert "OLD SPILLED BODY" * 20 in text


def test_spills_an_oversized_result_writes_file_mutates_record_indexes_it(blobs: Path) -> None:
    # "mutates record": ours indexes a changed copy; the caller's batch is left as it was.
    indexer = ToolCallIndexer()
    log = Log()
    original = call("tc1", "X" * 50)
    given = batch(original)
    handled = spill_oversized_batch(given, indexer, threshold=10, preview_bytes=8, dedup=True,
                                    blobs_dir=blobs, append=log)
    assert handled == {"tc1"}
    record = present(indexer.get_record("tc1"))
    assert record.spill_path == str(blob_path(blobs, "tc1"))
    assert record.spill_bytes == 50
    assert record.result_text == ""
    assert record.result_preview == "X" * 8
    assert Path(record.spill_path).read_text() == "X" * 50
    assert indexer.is_summarized("tc1")
    assert given.tool_calls == [original]
    assert [kind for kind, _ in log.entries] == [INDEX]
    persisted = log.entries[0][1]["toolCalls"][0]
    assert persisted["resultText"] == "" and persisted["spillPath"] == record.spill_path
    assert persisted["contentHash"] == record.content_hash


def test_leaves_a_small_result_untouched_not_spilled(blobs: Path) -> None:
    indexer = ToolCallIndexer()
    log = Log()
    assert spill(indexer, blobs, call("tc1", "tiny", name="bash"), append=log) == set()
    assert not indexer.is_summarized("tc1")
    assert log.entries == []
    assert not blobs.exists()


def test_leaves_the_tool_call_untouched_when_the_sidecar_write_fails(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    not_a_dir = tmp_path / "not-a-dir"
    not_a_dir.write_text("x")  # the session "folder" is a file: creating the blobs folder fails
    indexer = ToolCallIndexer()
    big = call("tc1", "Z" * 50)
    given = batch(big)
    log = Log()
    with caplog.at_level(logging.WARNING, logger="condense"):
        handled = spill_oversized_batch(given, indexer, threshold=10, preview_bytes=8, dedup=True,
                                        blobs_dir=blob_dir(not_a_dir, "sid"), append=log)
    assert handled == set()
    assert not indexer.is_summarized("tc1")
    assert given.tool_calls[0].result_text == "Z" * 50
    assert log.entries == []
    assert len(caplog.records) == 1 and "\n" not in caplog.records[0].getMessage()


def test_a_symlinked_blobs_folder_keeps_the_output_inline_and_says_why_in_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    blobs = blob_dir(tmp_path, "sid")
    blobs.symlink_to(elsewhere)
    indexer = ToolCallIndexer()
    given = batch(call("tc1", "Z" * 50))
    with caplog.at_level(logging.WARNING, logger="condense"):
        assert spill(indexer, blobs, *given.tool_calls) == set()
    assert not indexer.is_summarized("tc1") and given.tool_calls[0].result_text == "Z" * 50
    assert list(elsewhere.iterdir()) == []
    (record,) = caplog.records
    assert record.getMessage() == (f"spill: could not spill tc1 ({blobs} is a symbolic link; spill files are never"
                                   " written through one (make it a folder to spill again)); keeping it inline")


def test_two_occurrences_of_one_tool_call_id_spill_to_distinct_sidecar_files(blobs: Path) -> None:
    indexer = ToolCallIndexer()
    spill(indexer, blobs, call("bash_23", "FIRST" * 20, 1150, name="bash"), dedup=False)
    spill(indexer, blobs, call("bash_23", "SECOND" * 20, 3150, name="bash"), dedup=False)
    first, second = present(indexer.get_record("bash_23@1150")), present(indexer.get_record("bash_23@3150"))
    assert first.spill_path != second.spill_path
    assert Path(present(first.spill_path)).read_text() == "FIRST" * 20
    assert Path(present(second.spill_path)).read_text() == "SECOND" * 20


def test_dedups_an_oversized_duplicate_to_the_original_without_a_second_file(blobs: Path) -> None:
    indexer = ToolCallIndexer()
    body = "Y" * 50
    spill(indexer, blobs, call("tc1", body))
    handled = spill(indexer, blobs, call("tc2", body))
    assert handled == {"tc2"}
    assert indexer.is_summarized("tc2")
    assert present(indexer.get_record("tc2")).tool_call_id == "tc1"
    assert not blob_path(blobs, "tc2").exists()


# ----- beyond the reference -----


def test_with_dedup_off_an_identical_oversized_output_gets_its_own_sidecar(blobs: Path) -> None:
    indexer = ToolCallIndexer()
    spill(indexer, blobs, call("tc1", "Y" * 50), dedup=False)
    assert spill(indexer, blobs, call("tc2", "Y" * 50), dedup=False) == {"tc2"}
    assert present(indexer.get_record("tc2")).tool_call_id == "tc2"
    assert blob_path(blobs, "tc2").read_text() == "Y" * 50


def test_spilled_record_survives_rebuild_and_still_dedups_on_the_full_body(blobs: Path) -> None:
    log = Log()
    body = "BIG\n" * 1000
    spill(ToolCallIndexer(), blobs, call("tc1", body), append=log)
    again = ToolCallIndexer()
    again.rebuild([{"type": "custom", "customType": kind, "data": data} for kind, data in log.entries])
    assert present(again.get_record("tc1")).spill_path == str(blob_path(blobs, "tc1"))
    assert again.lookup_by_content("fetch", body) == "tc1"


def test_a_failing_append_never_raises_and_leaves_everything_inline(
    blobs: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def failing(_custom_type: str, _data: Any) -> None:
        raise RuntimeError("session closed")

    indexer = ToolCallIndexer()
    indexer.add_batch([call("orig", "D" * 40, 1)], Log())
    with caplog.at_level(logging.WARNING, logger="condense"):
        handled = spill_oversized_batch(batch(call("dup", "D" * 40, 2), call("big", "E" * 40, 3)), indexer,
                                        threshold=10, preview_bytes=8, dedup=True, blobs_dir=blobs,
                                        append=failing)
    assert handled == set()
    assert not indexer.is_summarized("dup@2")
    assert not indexer.is_summarized("big@3")
    assert len(caplog.records) == 2
