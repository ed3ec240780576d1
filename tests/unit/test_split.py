"""Large PDFs are converted in page ranges, in parallel, and merged into the same result."""

from __future__ import annotations

import asyncio
import time

from fastapi.testclient import TestClient

from api.services import Services
from pipelines.core.models import ConversionStatus, DocumentInput
from pipelines.core.requests import ParsingOptions
from pipelines.engine import split
from pipelines.engine.document import convert
from tests.support import docgen
from tests.support.helpers import A


def pdf_input(data: bytes, page_range: str | None = None, **opts: object) -> DocumentInput:
    return DocumentInput(data=data, page_range=page_range, parsing=ParsingOptions(**opts))


def test_plan_cuts_selected_pages_into_parts() -> None:
    doc = docgen.text_pdf(pages=12).data
    assert split.plan(pdf_input(doc), 4) == ["1-4", "5-8", "9-12"]
    assert split.plan(pdf_input(doc, "2,4-9,11-1000"), 3) == ["2,4-5", "6-8", "9,11-12"]
    assert split.plan(pdf_input(doc), 20) == []  # small enough for one piece
    assert split.plan(pdf_input(doc, "1-3"), 2) == []
    assert split.plan(DocumentInput(data=b"plain text"), 1) == []  # only PDFs are split
    assert split.plan(pdf_input(docgen.encrypted_pdf()), 1) == []  # convert() reports it


def test_merged_parts_equal_the_whole_document() -> None:
    data = docgen.text_pdf(pages=12).data
    whole = convert(pdf_input(data, chunking_strategy="page"))
    inp = pdf_input(data, chunking_strategy="page")
    parts = [convert(split.part_input(inp, r)) for r in reversed(split.plan(inp, 4))]
    merged = split.merge(inp, parts)
    assert merged.status == ConversionStatus.success
    assert merged.total_pages == 12 and [p.page_number for p in merged.pages] == list(range(1, 13))

    def texts(r):
        return [[(f.fragment_type, f.content.get("content")) for f in p.fragments] for p in r.pages]

    assert texts(merged) == texts(whole)
    assert any(f.fragment_type == "page_header" for f in merged.pages[5].fragments)
    assert [c.content for c in merged.chunks] == [c.content for c in whole.chunks]


def test_a_table_split_across_parts_is_joined_after_the_merge() -> None:
    inp = pdf_input(docgen.split_table_pdf().data, table_merging=True)
    merged = split.merge(inp, [convert(split.part_input(inp, "1")), convert(split.part_input(inp, "2"))])
    assert merged.merged_tables is not None and len(merged.merged_tables) == 1
    assert merged.merged_tables[0]["pages_merged"] == 2


def test_large_pdf_job_runs_its_parts_as_prefect_tasks(client: TestClient, run_jobs,
                                                      services: Services) -> None:
    services.settings.worker.split_pages = 4
    data = docgen.text_pdf(pages=10).data
    fid = client.put("/documents/v2/files", files={"file": ("long.pdf", data)}, headers=A).json()["file_id"]
    pid = client.post("/documents/v2/parse", json={"file_id": fid, "page_range": "2-10"},
                      headers=A).json()["parse_id"]
    assert run_jobs() == 1
    res = client.get(f"/documents/v2/parse/{pid}", headers=A).json()
    assert res["status"] == "successful", res["error"]
    assert res["total_pages"] == 10 and res["parsed_pages_count"] == 9
    assert [p["page_number"] for p in res["pages"]] == list(range(2, 11))

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    from assets.catalog import jobs as jobs_repo

    flow_run_id = jobs_repo.get_job_by_id(services.engine, pid).flow_run_id

    async def runs() -> list[tuple[str, set[str]]]:
        async with get_client() as c:
            found = await c.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id])))
            return sorted((r.name, set(r.tags)) for r in found)

    want = sorted(["parse long.pdf", "parse long.pdf pages 2-5", "parse long.pdf pages 6-9", "parse long.pdf pages 10"])
    # Prefect records task runs in batches, once a second, and a run's first record may carry its
    # task's default name ("convert-pages-369") until its named state comes in: wait for them
    deadline = time.monotonic() + 30
    got = asyncio.run(runs())
    while [name for name, _ in got] != want and time.monotonic() < deadline:
        time.sleep(0.5)
        got = asyncio.run(runs())
    assert [name for name, _ in got] == want
    assert all({"org:org-a", "project:proj-a", "kind:parse"} <= tags for _, tags in got)
