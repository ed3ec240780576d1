"""Stored results keep what the parser recovered from (page warnings) and say it on the wire."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq

from api.wire.documents import page_json
from assets.results import ResultReader, table_key, write_result
from assets.storage import Storage
from pipelines.core.models import DocumentInput, DocumentResult, Fragment, PageResult


def test_page_warnings_are_stored_read_back_and_sent(tmp_path) -> None:  # type: ignore[no-untyped-def]
    storage = Storage(f"file://{tmp_path}")
    warned = "2 words of the text layer were not placed by the layout and were added as plain text: a b"
    result = DocumentResult(input=DocumentInput(), total_pages=2, pages=[
        PageResult(page_number=1, fragments=[Fragment(fragment_type="text", content={"content": "a b"})],
                   warnings=[warned]),
        PageResult(page_number=2)])
    write_result(storage, "results/o/p/_/job/1", "job", result)
    pages = list(ResultReader(storage, "results/o/p/_/job/1", 2).pages())
    assert [p.warnings for p in pages] == [[warned], []]
    assert page_json(pages[0])["warnings"] == [warned] and "warnings" not in page_json(pages[1])

    # a result stored before pages had warnings reads as none
    old = pa.table({"parse_id": ["job"], "page_number": pa.array([1], pa.int32()), "width": pa.array([1], pa.int32()),
                    "height": pa.array([1], pa.int32()), "skew_angle": pa.array([None], pa.float64()),
                    "page_image": pa.array([None], pa.string())})
    buf = io.BytesIO()
    pq.write_table(old, buf)
    storage.put_bytes(table_key("results/o/p/_/job/1", "pages"), buf.getvalue())
    assert [p.warnings for p in ResultReader(storage, "results/o/p/_/job/1", 1).pages()] == [[]]
