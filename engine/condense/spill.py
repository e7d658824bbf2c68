"""Eager spill: one huge tool output (a 1 MB fetch) leaves the context at the end of its turn.

It does not wait for a summary: the body goes to a sidecar file, the index keeps a head preview and
the path, and from then on the result renders as a file pointer. Spilling is a safeguard, so it is
best-effort: whatever fails leaves the output inline for the normal flush, and nothing is lost.
"""

from __future__ import annotations

import logging
from pathlib import Path

from condense.blobs import blob_path, head_preview, utf8_bytes, write_sidecar
from condense.dedup import content_hash
from condense.index import Append, ToolCallIndexer
from condense.records import Batch, ToolCallRecord

log = logging.getLogger("condense")


def spill_record(
    record: ToolCallRecord, *, threshold: int, preview_bytes: int, blobs_dir: Path
) -> ToolCallRecord:
    """The record with its body in a sidecar when it is at least `threshold` characters, else the
    record itself. The sidecar is written before anything else changes; OSError propagates. This is
    the `Spiller` that chain backfill uses (with `functools.partial`), where failure must abort."""
    text = record.result_text
    if len(text) < threshold:
        return record
    path = blob_path(blobs_dir, record.key)
    write_sidecar(path, text)
    return record.with_changes(
        result_text="",
        spill_path=str(path),
        spill_bytes=len(utf8_bytes(text)),
        result_preview=head_preview(text, preview_bytes),
        content_hash=content_hash(record.tool_name, text),  # of the full body: dedup still works later
    )


def spill_oversized_batch(
    batch: Batch,
    indexer: ToolCallIndexer,
    *,
    threshold: int,
    preview_bytes: int,
    dedup: bool,
    blobs_dir: Path,
    append: Append,
) -> set[str]:
    """Spill (or alias to an indexed identical output) every oversized result of `batch`, index the
    spilled ones in one entry under `tN` refs (as every pruned output has), and return the occurrence
    keys handled; the caller drops those calls from the batch. The batch itself is not modified. Never
    raises."""
    handled: set[str] = set()
    spilled: list[ToolCallRecord] = []
    for call in batch.tool_calls:
        if len(call.result_text) < threshold:
            continue
        try:
            if dedup and _alias_duplicate(call, indexer, append):
                handled.add(call.key)
                continue
            spilled.append(
                spill_record(call, threshold=threshold, preview_bytes=preview_bytes, blobs_dir=blobs_dir)
            )
        except Exception as error:  # best-effort: the output stays inline
            log.warning("spill: could not spill %s (%s); keeping it inline", call.key, _one_line(error))
    if spilled:
        try:
            indexer.add_with_refs(spilled, indexer.allocate_summary_refs(spilled), append, original=True)
        except Exception as error:
            log.warning("spill: could not index %d spilled output(s) (%s); keeping them inline",
                        len(spilled), _one_line(error))
            return handled
        handled.update(record.key for record in spilled)
    return handled


def _alias_duplicate(call: ToolCallRecord, indexer: ToolCallIndexer, append: Append) -> bool:
    original = indexer.lookup_by_content(call.tool_name, call.result_text)
    if original is None or original == call.key:
        return False
    indexer.register_duplicate(call.key, original, append)
    return True


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
