"""Document jobs: ``POST /documents/v2/{parse,read,extract,classify,edit}``, and get/list/delete of
parse results (an edit job's carries its filled PDF)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial
from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import iterate_in_threadpool

from api.deps import JobFilterDep, PrincipalDep, RuntimeDep
from api.middleware.metrics import JOBS_SUBMITTED
from api.routes.paging import PagingDep, listing
from api.wire.common import JSON, dumps, responses
from api.wire.documents import (
    SSE_200,
    EditCreated,
    ParseCreated,
    ParseList,
    ParseResult,
    parse_result,
    stream_parse_result,
)
from pipelines.core.errors import InvalidRequest, NotFound
from pipelines.core.models import EditOutput
from pipelines.core.records import Job, JobKind, JobStatus, Principal, rfc3339
from pipelines.core.requests import ClassifyRequest, EditRequest, ExtractRequest, ParseRequest
from pipelines.stages.pagerange import PageRange
from pipelines.usecases import documents, edits
from pipelines.usecases.runtime import Runtime

if TYPE_CHECKING:  # the use case hands the reader in
    from assets.results import ResultReader

router = APIRouter(prefix="/documents/v2", tags=["documents"])


def _dumps(obj: dict) -> str:
    return dumps(obj).decode()


async def _submit(kind: JobKind, req: ParseRequest, principal: Principal, rt: Runtime) -> JSON:
    job = await run_in_threadpool(documents.submit, rt, principal, kind, req)
    JOBS_SUBMITTED.labels(kind=kind.value).inc()
    body = {"parse_id": job.id, "created_at": rfc3339(job.created_us)}
    if kind == JobKind.edit:
        body["edit_id"] = job.id
    return JSON(body)


SUBMIT = {"response_model": ParseCreated, "response_class": JSON, "responses": responses(400, 404, 413, body=True)}


@router.post("/parse", **SUBMIT)
async def create_parse(req: ParseRequest, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    return await _submit(JobKind.parse, req, principal, rt)


@router.post("/read", **SUBMIT)
async def create_read(req: ParseRequest, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    return await _submit(JobKind.read, req, principal, rt)


@router.post("/extract", **SUBMIT)
async def create_extract(req: ExtractRequest, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """Structured extraction: the document is parsed and each ``structured_extraction_options``
    schema is filled from it (``structured_data`` in the result)."""
    return await _submit(JobKind.extract, req, principal, rt)


@router.post("/classify", **SUBMIT)
async def create_classify(req: ClassifyRequest, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """Page classification: each page gets the best fitting of ``page_classifications``, or none
    (``page_classes`` in the result)."""
    return await _submit(JobKind.classify, req, principal, rt)


@router.post("/edit", **{**SUBMIT, "response_model": EditCreated})
async def create_edit(req: EditRequest, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """Form filling: the PDF's AcroForm fields, and the blank lines of a flat form, filled from
    ``form_filling.fill_prompt`` (``field: value`` lines or a JSON object). The result carries
    ``filled_pdf_base64`` and ``form_filling_metadata``; the filled PDF is also kept as a new
    file (``filled_file_id``)."""
    return await _submit(JobKind.edit, ParseRequest.model_validate(req.model_dump(exclude_unset=True)), principal, rt)


@router.get("/parse", response_model=ParseList, response_class=JSON, responses=responses(query=True))
async def list_parse(
    principal: PrincipalDep,
    rt: RuntimeDep,
    f: JobFilterDep,
    page: PagingDep,
    dataset_name: str | None = None,
    filename: str | None = None,
    file_name: str | None = None,
    id: str | None = None,  # noqa: A002 - the spec's parameter name
) -> JSON:
    f.dataset_name, f.file_name, f.job_id = dataset_name, filename or file_name, id
    return await listing(partial(documents.list_jobs, rt, principal, f), page, parse_result)


def _summary(rt: Runtime, principal: Principal, parse_id: str, with_options: bool) -> dict:
    return parse_result(documents.get(rt, principal, parse_id), with_options=with_options)


def _opened(rt: Runtime, principal: Principal, parse_id: str, pages: str | None = None
            ) -> tuple[Job, ResultReader | None, PageRange | None, EditOutput | None]:
    """``documents.open_result``, and an edit job's filled PDF and report."""
    job, reader, wanted = documents.open_result(rt, principal, parse_id, pages)
    return job, reader, wanted, edits.edit_output(rt, job)


@router.get("/parse/{parse_id}", response_model=ParseResult, response_class=JSON,
            responses={**responses(400, 404, query=True), **SSE_200})
async def get_parse(parse_id: str, request: Request, principal: PrincipalDep, rt: RuntimeDep,
                    with_options: bool = False,
                    pages: Annotated[str | None, Query(description="Only these pages of the result and "
                                                       "their chunks, e.g. 1-20,25.")] = None,
                    ) -> Response:
    if "text/event-stream" not in request.headers.get("accept", ""):
        job, reader, wanted, edit = await run_in_threadpool(_opened, rt, principal, parse_id, pages)
        if reader is None:
            return JSON(parse_result(job, None, with_options, edit))
        return StreamingResponse(stream_parse_result(job, reader, wanted, with_options, edit),
                                 media_type="application/json")
    first = await run_in_threadpool(_summary, rt, principal, parse_id, with_options)

    async def events():  # type: ignore[no-untyped-def]
        current = first
        if current["status"] == JobStatus.pending.value:
            yield {"event": "parse_queued", "data": _dumps(current)}
        last = None
        while True:
            status = current["status"]
            if JobStatus(status).terminal:
                async for line in _final_event(rt, principal, parse_id, current, with_options):
                    yield line
                return
            if status != last and status != JobStatus.pending.value:
                yield {"event": "parse_update", "data": _dumps(current)}
            last = status
            if await request.is_disconnected():
                return
            await asyncio.sleep(rt.settings.api.sse_poll_s)
            status_now = await run_in_threadpool(documents.status, rt, principal, parse_id)
            if status_now is None:
                current = {**current, "status": JobStatus.failure.value, "error": "the parse job was deleted"}
            elif status_now.value != status:
                try:
                    current = await run_in_threadpool(_summary, rt, principal, parse_id, with_options)
                except NotFound:
                    current = {**current, "status": JobStatus.failure.value, "error": "the parse job was deleted"}

    # Keep-alive comments are single lines (no blank line), so one may fall between the data
    # lines of the final event without ending it.
    return EventSourceResponse(events(), ping=15, ping_message_factory=lambda: b": ping\r\n")


async def _final_event(rt: Runtime, principal: Principal, parse_id: str, current: dict,
                       with_options: bool) -> AsyncIterator[dict | bytes]:
    """``parse_done`` (or ``parse_failed``) with the whole ParseResult, streamed a page at a time
    as data lines (the client joins them with newlines, which JSON ignores), never held whole. A
    result over ``api.max_response_bytes`` is announced without its pages, saying how to get it."""
    name = "parse_done" if current["status"] == JobStatus.successful.value else "parse_failed"
    try:
        job, reader, _, edit = await run_in_threadpool(_opened, rt, principal, parse_id)
    except NotFound:
        yield {"event": name, "data": _dumps(current)}
        return
    except InvalidRequest as exc:  # too large for one answer
        yield {"event": name, "data": _dumps({**current, "message_update": exc.message})}
        return
    if reader is None:
        yield {"event": name, "data": _dumps(parse_result(job, None, with_options, edit))}
        return
    yield f"event: {name}\r\n".encode()
    async for chunk in iterate_in_threadpool(stream_parse_result(job, reader, None, with_options, edit)):
        yield b"data: " + chunk + b"\r\n"
    yield b"\r\n"


@router.delete("/parse/{parse_id}", status_code=204, response_class=Response, responses=responses(404))
async def delete_parse(parse_id: str, principal: PrincipalDep, rt: RuntimeDep) -> Response:
    await run_in_threadpool(documents.delete, rt, principal, parse_id)
    return Response(status_code=204)
