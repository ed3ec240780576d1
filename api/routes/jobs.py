"""Document jobs: ``POST /documents/v2/{parse,read}``, and get/list/delete of parse results."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

import orjson
from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from sqlalchemy import Engine
from sse_starlette.sse import EventSourceResponse

from api.deps import EngineDep, PrincipalDep, SettingsDep, StorageDep
from api.metrics import JOBS_SUBMITTED
from api.wire import JSON, paginated, parse_result, parse_rfc3339, rfc3339
from assets import files as files_repo
from assets import jobs as jobs_repo
from assets.jobs import raw_text_key
from assets.keys import Principal
from assets.pagination import MAX_LIMIT
from assets.results import read_result
from assets.storage import Storage
from pipelines.errors import InvalidMimeType, InvalidRequest, NotFound, PayloadTooLarge
from pipelines.fetch import check_url
from pipelines.models import JobKind, JobStatus, ParseRequest
from pipelines.settings import Settings
from pipelines.stages.detect import TEXT_TYPES, normalize_mime
from pipelines.stages.pagerange import PageRange

router = APIRouter(prefix="/documents/v2", tags=["documents"])

SSE_POLL_S = 0.25


def _dumps(obj: dict) -> str:
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()


def validate_source(req: ParseRequest, principal: Principal, engine: Engine, settings: Settings) -> str | None:
    """Check the request; return the file name when it names a stored file."""
    given = [n for n in ("file_id", "file_url", "raw_text") if getattr(req, n) is not None]
    if len(given) != 1:
        raise InvalidRequest("give exactly one of file_id, file_url or raw_text"
                             + (f" (got {', '.join(given)})" if given else ""))
    PageRange.parse(req.page_range)
    if req.mime_type is not None and normalize_mime(req.mime_type) is None:
        raise InvalidMimeType("mime_type is empty")
    opts = req.parsing_options
    if opts is not None and opts.table_parsing_format == "vlm":
        raise InvalidRequest("table_parsing_format 'vlm' needs a VLM provider, and none is configured; "
                             "use 'tsr'")
    if req.raw_text is not None:
        if len(req.raw_text.encode("utf-8")) > settings.max_upload_bytes:
            raise PayloadTooLarge(f"raw_text is larger than the upload limit of {settings.max_upload_bytes} "
                                  "bytes (DOCKLAKE_MAX_UPLOAD_BYTES); upload it as a file")
        mime = normalize_mime(req.mime_type)
        if mime is None:
            raise InvalidMimeType("mime_type is required with raw_text")
        if mime not in TEXT_TYPES:
            raise InvalidMimeType(f"raw_text needs a text mime_type ({', '.join(sorted(TEXT_TYPES))}), "
                                  f"not {req.mime_type}")
        return req.file_name
    if req.file_url is not None:
        check_url(req.file_url, settings.allow_private_urls)
        return req.file_name
    rec = files_repo.get_file(engine, principal, req.file_id) if files_repo.FILE_ID.match(req.file_id or "") else None
    if rec is None:
        raise NotFound(f"file {req.file_id} not found")
    return req.file_name or rec.file_name


def _submit(kind: JobKind, req: ParseRequest, principal: Principal, engine: Engine,
            storage: Storage, settings: Settings) -> dict:
    file_name = validate_source(req, principal, engine, settings)
    job_id = jobs_repo.new_job_id()
    request = req.model_dump(mode="json", exclude_none=True)
    text_key = None
    if req.raw_text is not None:  # the text goes to storage, not into the catalog row
        text_key = raw_text_key(principal, job_id)
        storage.put_bytes(text_key, request.pop("raw_text").encode("utf-8"))
        request["raw_text_key"] = text_key
    try:
        job = jobs_repo.create_job(engine, principal, kind=kind.value, request=request,
                                   labels=req.labels or {}, file_id=req.file_id, file_name=file_name,
                                   job_id=job_id)
    except Exception:
        if text_key:
            storage.delete(text_key)
        raise
    JOBS_SUBMITTED.labels(kind=kind.value).inc()
    return {"parse_id": job["id"], "created_at": rfc3339(job["created_us"])}


@router.post("/parse", response_class=JSON)
async def create_parse(req: ParseRequest, principal: PrincipalDep, engine: EngineDep,
                       storage: StorageDep, settings: SettingsDep) -> JSON:
    return JSON(await run_in_threadpool(_submit, JobKind.parse, req, principal, engine, storage, settings))


@router.post("/read", response_class=JSON)
async def create_read(req: ParseRequest, principal: PrincipalDep, engine: EngineDep,
                      storage: StorageDep, settings: SettingsDep) -> JSON:
    return JSON(await run_in_threadpool(_submit, JobKind.read, req, principal, engine, storage, settings))


@router.get("/parse", response_class=JSON)
async def list_parse(
    principal: PrincipalDep,
    engine: EngineDep,
    cursor: str | None = None,
    direction: Literal["next", "prev"] = "next",
    limit: Annotated[int, Query(ge=0, le=MAX_LIMIT)] = 100,
    dataset_name: str | None = None,
    filename: str | None = None,
    file_name: str | None = None,
    status: JobStatus | None = None,
    id: str | None = None,  # noqa: A002 - the spec's parameter name
    created_after: str | None = None,
    created_before: str | None = None,
    finished_after: str | None = None,
    finished_before: str | None = None,
) -> JSON:
    f = jobs_repo.JobFilter(
        status=status.value if status else None, dataset_name=dataset_name,
        file_name=filename or file_name, job_id=id,
        created_after=parse_rfc3339(created_after, "created_after"),
        created_before=parse_rfc3339(created_before, "created_before"),
        finished_after=parse_rfc3339(finished_after, "finished_after"),
        finished_before=parse_rfc3339(finished_before, "finished_before"),
    )

    def run() -> dict:
        page = jobs_repo.list_jobs(engine, principal, f, cursor=cursor, direction=direction, limit=limit)
        return paginated(page, [parse_result(j) for j in page.rows])

    return JSON(await run_in_threadpool(run))


def _load(engine: Engine, storage: Storage, principal: Principal, parse_id: str, with_options: bool) -> dict:
    job = jobs_repo.get_job(engine, principal, parse_id)
    if job is None:
        raise NotFound(f"parse job {parse_id} not found")
    stored = read_result(storage, job["result_key"]) if job["result_key"] else None
    return parse_result(job, stored, with_options)


@router.get("/parse/{parse_id}", response_model=None)
async def get_parse(parse_id: str, request: Request, principal: PrincipalDep, engine: EngineDep,
                    storage: StorageDep, with_options: bool = False) -> JSON | EventSourceResponse:
    first = await run_in_threadpool(_load, engine, storage, principal, parse_id, with_options)
    if "text/event-stream" not in request.headers.get("accept", ""):
        return JSON(first)

    async def events():  # type: ignore[no-untyped-def]
        current = first
        if current["status"] == "pending":
            yield {"event": "parse_queued", "data": _dumps(current)}
        last = None
        while True:
            status = current["status"]
            if status in ("successful", "failure"):
                yield {"event": "parse_done" if status == "successful" else "parse_failed",
                       "data": _dumps(current)}
                return
            if status != last and status != "pending":
                yield {"event": "parse_update", "data": _dumps(current)}
            last = status
            if await request.is_disconnected():
                return
            await asyncio.sleep(SSE_POLL_S)
            status_now = await run_in_threadpool(jobs_repo.get_status, engine, principal, parse_id)
            if status_now is None:
                current = {**current, "status": "failure", "error": "the parse job was deleted"}
            elif status_now != status:
                try:
                    current = await run_in_threadpool(_load, engine, storage, principal, parse_id,
                                                      with_options)
                except NotFound:
                    current = {**current, "status": "failure", "error": "the parse job was deleted"}

    return EventSourceResponse(events(), ping=15)


@router.delete("/parse/{parse_id}", status_code=204)
async def delete_parse(parse_id: str, principal: PrincipalDep, engine: EngineDep,
                       storage: StorageDep) -> Response:
    def run() -> None:
        job = jobs_repo.delete_job(engine, principal, parse_id)
        if job is None:
            raise NotFound(f"parse job {parse_id} not found")
        for key in (job["result_key"], job["request"].get("raw_text_key")):
            if key:
                storage.delete(key)

    await run_in_threadpool(run)
    return Response(status_code=204)
