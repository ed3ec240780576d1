"""The legacy ``/documents/v1`` API: datasets by name, files (with download and the large-file
pair), jobs, parse and webhooks — thin adapters over the same use cases as v2 (``api.wire.v1`` holds
the shapes)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import iterate_in_threadpool, run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from api.deps import PrincipalDep, RuntimeDep
from api.upload import receive_file, receive_upload
from api.wire import v1
from api.wire.common import JSON, parse_rfc3339, responses
from api.wire.documents import page_json, structured_data_json
from api.wire.files import UPLOAD_BODY
from pipelines.core.errors import InvalidRequest, PayloadTooLarge
from pipelines.core.records import MAX_LIMIT, DatasetStatus, JobFilter, JobKind, JobStatus, Principal, rfc3339
from pipelines.core.requests import DatasetCreate, DatasetParseRequest, DatasetUpdate, ParseRequest
from pipelines.usecases import datasets, documents, files, large_files, webhooks
from pipelines.usecases.runtime import Runtime

router = APIRouter(prefix="/documents/v1", tags=["v1 (legacy)"])
Limit = Annotated[int, Query(ge=0, le=MAX_LIMIT)]
Direction = Literal["next", "prev"]


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _dispatched(job: Any) -> dict[str, Any]:
    return {"jobId": job.id, "fileId": job.file_id or "", "status": job.status.value}


# ---------------------------------------------------------------- datasets


@router.get("/datasets", response_class=JSON, responses=responses(query=True))
async def list_datasets(principal: PrincipalDep, rt: RuntimeDep, cursor: str | None = None, limit: Limit = 25,
                        direction: Direction = "next", status: DatasetStatus | None = None) -> JSON:
    def run() -> dict:
        p = datasets.list_datasets(rt, principal, name=None, status=status, cursor=cursor, direction=direction,
                                   limit=limit)
        return v1.page([v1.dataset_item(d) for d in p.rows], p)

    return JSON(await run_in_threadpool(run))


@router.post("/datasets", response_class=JSON, responses=responses(400, 409, body=True))
async def create_dataset(req: v1.CreateDataset, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    body = DatasetCreate.model_validate({"name": req.name, "description": req.description,
                                         **req.settings.configuration().model_dump()})
    ds = await run_in_threadpool(datasets.create, rt, principal, body)
    return JSON({"id": ds.id})


@router.get("/datasets/{dataset_name}", response_class=JSON, responses=responses(404))
async def find_dataset(dataset_name: str, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    return JSON(v1.dataset(await run_in_threadpool(datasets.by_name, rt, principal, dataset_name)))


@router.put("/datasets/{dataset_name}", response_class=JSON, responses=responses(400, 404, 409, body=True))
async def update_dataset(dataset_name: str, req: v1.UpdateDataset, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    def run() -> dict:
        ds = datasets.by_name(rt, principal, dataset_name)
        change = DatasetUpdate.model_validate(req.settings.configuration().model_dump()) if req.settings \
            else DatasetUpdate()
        return v1.dataset(datasets.update(rt, principal, ds.id, change, name=req.name))

    return JSON(await run_in_threadpool(run))


@router.post("/datasets/{dataset_name}", response_class=JSON, responses=responses(400, 404, 413),
             openapi_extra=UPLOAD_BODY)
async def add_file_to_dataset(dataset_name: str, request: Request, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """Multipart: ``file`` (uploaded and parsed) or ``file_id``, and optional ``pages`` and ``labels``."""
    ds = await run_in_threadpool(datasets.by_name, rt, principal, dataset_name)
    s = rt.settings
    if request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        form = await request.form()  # only fields: a file id
        fields, labels = {k: str(v) for k, v in form.items()}, {}
        file_id = fields.get("file_id")
    else:
        up = await receive_upload(request, str(s.data_dir / "spool"), s.limits.max_upload_bytes, require_file=False)
        fields, labels = up.fields, up.labels
        try:
            file_id = up.fields.get("file_id")
            if up.path is not None:
                rec = await run_in_threadpool(files.store, rt, principal, Path(up.path), file_name=up.file_name,
                                              size=up.size, sha256=up.sha256, labels={})
                file_id = rec.id
        finally:
            up.discard()
    if not file_id:
        raise InvalidRequest("give a 'file' part or a 'file_id' field", code="INVALID_MULTIPART")
    req = DatasetParseRequest(file_id=file_id, page_range=fields.get("pages") or None, labels=labels or None)
    job = await run_in_threadpool(datasets.parse, rt, principal, ds.id, req)
    return JSON(_dispatched(job))


@router.delete("/datasets/{dataset_name}", status_code=204, response_class=Response, responses=responses(404))
async def delete_dataset(dataset_name: str, principal: PrincipalDep, rt: RuntimeDep) -> Response:
    def run() -> None:
        datasets.delete(rt, principal, datasets.by_name(rt, principal, dataset_name).id)

    await run_in_threadpool(run)
    return Response(status_code=204)


@router.get("/datasets/{dataset_name}/jobs", response_class=JSON, responses=responses(404, query=True))
async def list_dataset_jobs(dataset_name: str, request: Request, principal: PrincipalDep, rt: RuntimeDep,
                            cursor: str | None = None, limit: Limit = 25, direction: Direction = "next",
                            status: JobStatus | None = None, job_id: str | None = None, filename: str | None = None,
                            without_outputs: bool = False, created_after: str | None = None,
                            created_before: str | None = None) -> JSON:
    f = JobFilter(status=status, job_id=job_id, file_name=filename,
                  created_after=parse_rfc3339(created_after, "created_after"),
                  created_before=parse_rfc3339(created_before, "created_before"))

    def run() -> dict:
        ds = datasets.by_name(rt, principal, dataset_name)
        p = datasets.data(rt, principal, ds.id, f, cursor=cursor, direction=direction, limit=limit)
        items = [v1.dataset_job(j, _base(request)) for j in p.rows]
        if without_outputs:
            for item in items:
                item["outputsUrl"] = None
        return v1.page(items, p)

    return JSON(await run_in_threadpool(run))


# ---------------------------------------------------------------- files


@router.get("/files", response_class=JSON, responses=responses(query=True))
async def list_files(principal: PrincipalDep, rt: RuntimeDep, cursor: str | None = None, limit: Limit = 25,
                     direction: Direction = "next", filename: str | None = None, created_after: str | None = None,
                     created_before: str | None = None) -> JSON:
    after, before = parse_rfc3339(created_after, "created_after"), parse_rfc3339(created_before, "created_before")

    def run() -> dict:
        p = files.list_files(rt, principal, cursor=cursor, direction=direction, limit=limit, file_name=filename,
                             created_after=after, created_before=before)
        return v1.page([v1.file_item(r) for r in p.rows], p)

    return JSON(await run_in_threadpool(run))


@router.post("/files", response_class=JSON, responses=responses(400, 413, 499), openapi_extra=UPLOAD_BODY)
async def upload_file(request: Request, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    rec = await receive_file(request, rt, principal)
    return JSON({"id": rec.id})


def _pages_of(rt: Runtime, principal: Principal, file_id: str) -> int:
    """Pages of the file as its newest successful job counted them (0 before any)."""
    page = documents.list_jobs(rt, principal, JobFilter(file_id=file_id, status=JobStatus.successful),
                               cursor=None, direction="next", limit=1)
    return next((j.total_pages or 0 for j in page.rows), 0)


@router.get("/files/{file_id}", response_class=JSON, responses=responses(400, 404))
async def download_file(file_id: str, request: Request, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """Where to download the file (``location``, with the same API key) and what it is."""
    rec = await run_in_threadpool(files.get, rt, principal, file_id)
    pages = await run_in_threadpool(_pages_of, rt, principal, file_id)
    return JSON({"location": f"{_base(request)}/documents/v1/files/{rec.id}/content", "filename": rec.file_name or "",
                 "mimeType": rec.mime_type, "pageCount": pages, "fileSize": rec.file_size})


@router.get("/files/{file_id}/content", response_class=StreamingResponse, responses=responses(400, 404))
async def file_content(file_id: str, principal: PrincipalDep, rt: RuntimeDep) -> StreamingResponse:
    """The file's bytes (a docklake addition: the ``location`` of ``GET /files/{id}``)."""
    rec = await run_in_threadpool(files.get, rt, principal, file_id)

    def chunks():  # type: ignore[no-untyped-def]
        with rt.storage.open(rec.storage_key) as fh:
            yield from iter(lambda: fh.read(1 << 20), b"")

    return StreamingResponse(iterate_in_threadpool(chunks()), media_type=rec.mime_type,
                             headers={"Content-Length": str(rec.file_size)})


@router.delete("/files/{file_id}", response_class=JSON, responses=responses(400, 404))
async def delete_file(file_id: str, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    await run_in_threadpool(files.delete, rt, principal, file_id)
    return JSON({"id": file_id})


class LargeInit(BaseModel):
    filename: str
    file_size: int
    sha256_checksum: str
    mime_type: str | None = None


@router.post("/files_large", response_class=JSON, responses=responses(400, 413, body=True))
async def upload_large_file_init(req: LargeInit, request: Request, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """Step 1 of 3: announce the file; PUT its bytes to ``presigned_url`` (with the same API key),
    then POST ``/files_large/{id}`` to finish."""
    upload_id = await run_in_threadpool(large_files.init, rt, principal, file_name=req.filename,
                                        file_size=req.file_size, sha256=req.sha256_checksum, mime_type=req.mime_type)
    return JSON({"id": upload_id, "presigned_url": f"{_base(request)}/documents/v1/files_large/{upload_id}/content"})


@router.put("/files_large/{upload_id}/content", response_class=JSON, responses=responses(400, 404, 413))
async def upload_large_file_content(upload_id: str, request: Request, principal: PrincipalDep,
                                    rt: RuntimeDep) -> JSON:
    """Step 2 of 3: the bytes, as the raw request body (spooled to disk, then stored)."""
    import tempfile

    limit = rt.settings.limits.max_upload_bytes
    spool = rt.settings.data_dir / "spool"
    spool.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=spool) as fh:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise PayloadTooLarge(f"the upload exceeds the limit of {limit} bytes "
                                      "(DOCKLAKE_LIMITS__MAX_UPLOAD_BYTES)")
            fh.write(chunk)
        fh.seek(0)
        received = await run_in_threadpool(large_files.write, rt, principal, upload_id,
                                           iter(lambda: fh.read(1 << 20), b""))
    return JSON({"id": upload_id, "received": received})


@router.post("/files_large/{upload_id}", response_class=JSON, responses=responses(400, 404))
async def upload_large_file_finalize(upload_id: str, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """Step 3 of 3: the bytes become a file if their size and SHA-256 are the ones announced."""
    rec = await run_in_threadpool(large_files.finalize, rt, principal, upload_id)
    return JSON({"id": rec.id})


# ---------------------------------------------------------------- jobs, parse, webhooks


@router.get("/jobs", response_class=JSON, responses=responses(query=True))
async def list_jobs(principal: PrincipalDep, rt: RuntimeDep, cursor: str | None = None, limit: Limit = 25,
                    direction: Direction = "next", filename: str | None = None, job_id: str | None = None,
                    dataset_name: str | None = None, status: JobStatus | None = None,
                    created_after: str | None = None, created_before: str | None = None,
                    updated_after: str | None = None, updated_before: str | None = None) -> JSON:
    f = JobFilter(status=status, file_name=filename, job_id=job_id, dataset_name=dataset_name,
                  created_after=parse_rfc3339(created_after, "created_after"),
                  created_before=parse_rfc3339(created_before, "created_before"),
                  finished_after=parse_rfc3339(updated_after, "updated_after"),
                  finished_before=parse_rfc3339(updated_before, "updated_before"))

    def run() -> dict:
        p = documents.list_jobs(rt, principal, f, cursor=cursor, direction=direction, limit=limit)
        return v1.page([v1.job_item(j) for j in p.rows], p)

    return JSON(await run_in_threadpool(run))


@router.get("/jobs/{job_id}", response_class=JSON, responses=responses(400, 404))
async def fetch_job(job_id: str, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    def run() -> dict:
        job, reader, _ = documents.open_result(rt, principal, job_id)
        pages = [page_json(p) for p in reader.pages()] if reader else []
        chunks = [c.model_dump() for c in reader.chunks()] if reader else []
        return {
            "jobId": job.id, "status": job.status.value, "message": job.error, "fileId": job.file_id,
            "fileName": job.file_name, "traceId": None, "pageRange": job.options.page_range,
            "parsedPages": job.parsed_pages_count, "labels": job.labels,
            "settings": v1.Settings.of(job.options), "createdAt": rfc3339(job.created_us),
            "finishedAt": rfc3339(job.finished_us), "tasksCompleted": 1 if job.status.terminal else 0, "tasksTotal": 1,
            "outputs": {"chunks": chunks, "pages": pages, "num_pages": job.total_pages,
                        "structured_data": structured_data_json(reader.structured_data()),
                        "errors": None} if reader else None,
            "chunks": chunks,
        }

    return JSON(await run_in_threadpool(run))


@router.delete("/jobs/{job_id}", status_code=204, response_class=Response, responses=responses(404))
async def delete_job(job_id: str, principal: PrincipalDep, rt: RuntimeDep) -> Response:
    await run_in_threadpool(documents.delete, rt, principal, job_id)
    return Response(status_code=204)


@router.post("/parse", response_class=JSON, responses=responses(400, 404, 413, body=True))
async def parse(req: v1.ParseV1, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """``file`` (a file id or a URL) or ``content`` (text, ``mimeType`` default text/plain)."""
    source: dict[str, Any] = {}
    if req.file:
        source = {"file_url": req.file} if req.file.startswith(("http://", "https://")) else {"file_id": req.file}
    elif req.content is not None:
        source = {"raw_text": req.content, "mime_type": req.mimeType or "text/plain"}
    body = ParseRequest.model_validate({**source, "page_range": req.pages, "labels": req.labels,
                                        **req.settings.configuration().model_dump()})
    job = await run_in_threadpool(documents.submit, rt, principal, JobKind.parse, body)
    return JSON(_dispatched(job))


@router.post("/webhooks", response_class=JSON, responses=responses(400, body=True))
async def configure_webhook(req: v1.Webhook, principal: PrincipalDep, rt: RuntimeDep) -> JSON:
    """Send the project's job events to ``url`` (see ``/documents/v2/webhooks``)."""
    hook = await run_in_threadpool(webhooks.register, rt, principal, req.url)
    return JSON({"url": hook.url, "webhook_id": hook.id, "secret": hook.secret})
