"""Document jobs (``parse``, ``read``, ``extract``, ``classify``, ``edit``): submit, get, list and delete for a caller, and the steps a
worker runs for one claimed job (load its source, convert it whole or in page ranges, write the
result, close the job). ``pipelines.flows.documents`` runs the worker steps as Prefect tasks.

An ``edit`` job fills a PDF's form (``engine.document.fill_and_convert``): its result also holds
the filled PDF and the filling report beside its tables (``filled.pdf``, ``form_filling.json``),
and the filled PDF is kept as a new file of the caller (``usecases.edits``)."""

from __future__ import annotations

import time
from functools import partial

import structlog
from fsspec.core import url_to_fs

from assets.catalog import files as files_repo
from assets.catalog import jobs as jobs_repo
from assets.catalog.db import waits_out_outages
from assets.catalog.jobs import raw_text_key
from assets.results import (
    ResultReader,
    ResultSink,
    StoredResult,
    job_results_prefix,
    result_key,
    work_key,
    write_result,
)
from assets.storage import StorageUnavailable, StoredBytes
from pipelines.core.errors import (
    DocumentError,
    InvalidMimeType,
    InvalidRequest,
    NotFound,
    PayloadTooLarge,
)
from pipelines.core.models import (
    ConversionStatus,
    DocumentInput,
    DocumentResult,
    EngineLimits,
    ErrorItem,
    FormFillingReport,
)
from pipelines.core.records import (
    Dataset,
    Job,
    JobFilter,
    JobKind,
    JobSource,
    JobStatus,
    Page,
    Principal,
)
from pipelines.core.requests import EnrichmentOptions, ParseRequest, ParsingOptions
from pipelines.engine import split
from pipelines.engine.document import fill_and_convert
from pipelines.engine.fetch import check_url, fetch_into
from pipelines.engine.isolation import IsolatedFailure, convert_isolated, run_isolated
from pipelines.stages.detect import TEXT_TYPES, normalize_mime
from pipelines.stages.pagerange import PageRange
from pipelines.usecases import checks, edits
from pipelines.usecases.runtime import Runtime

log = structlog.get_logger("docklake.documents")

def _source(rt: Runtime, p: Principal, req: ParseRequest) -> tuple[JobSource | None, str | None]:
    """Check where the document comes from; the source (``None`` for raw text, which is stored
    once the job id is known) and the file name to show."""
    given = [n for n in ("file_id", "file_url", "raw_text") if getattr(req, n) is not None]
    if len(given) != 1:
        raise InvalidRequest("give exactly one of file_id, file_url or raw_text"
                             + (f" (got {', '.join(given)})" if given else ""))
    limits = rt.settings.limits
    if req.raw_text is not None:
        if len(req.raw_text.encode("utf-8")) > limits.max_upload_bytes:
            raise PayloadTooLarge(f"raw_text is larger than the upload limit of {limits.max_upload_bytes} "
                                  "bytes (DOCKLAKE_LIMITS__MAX_UPLOAD_BYTES); upload it as a file")
        mime = normalize_mime(req.mime_type)
        if mime is None:
            raise InvalidMimeType("mime_type is required with raw_text")
        if mime not in TEXT_TYPES:
            raise InvalidMimeType(f"raw_text needs a text mime_type ({', '.join(sorted(TEXT_TYPES))}), "
                                  f"not {req.mime_type}")
        return None, req.file_name
    if req.file_url is not None:
        check_url(req.file_url, limits.allow_private_urls)
        return JobSource.from_url(req.file_url), req.file_name
    assert req.file_id is not None
    rec = files_repo.get_file(rt.engine, p, req.file_id) if files_repo.FILE_ID.match(req.file_id) else None
    if rec is None:
        raise NotFound(f"file {req.file_id} not found")
    return JobSource.file(rec.id, rec.file_size), req.file_name or rec.file_name


def submit(rt: Runtime, p: Principal, kind: JobKind, req: ParseRequest, *, dataset: Dataset | None = None) -> Job:
    """Check the request and record a pending job (in ``dataset``, if given); a worker picks it up."""
    if kind == JobKind.edit:
        edits.refuse_edit(req)
    else:
        checks.refuse_unsupported(req, rt.settings.llm.provider())
    PageRange.parse(req.page_range)
    if req.mime_type is not None and normalize_mime(req.mime_type) is None:
        raise InvalidMimeType("mime_type is empty")
    source, file_name = _source(rt, p, req)
    if kind == JobKind.edit:
        edits.needs_pdf(rt, p, req)
    job_id = jobs_repo.new_job_id()
    text_key = None
    if source is None:  # raw text goes to storage, not into the catalog row
        text_key = raw_text_key(p, job_id)
        raw = (req.raw_text or "").encode("utf-8")
        rt.storage.put_bytes(text_key, raw)
        source = JobSource.text(text_key, len(raw))
    try:
        return jobs_repo.create_job(rt.engine, p, kind=kind, source=source, options=req,
                                    labels=req.labels or {}, file_id=req.file_id, file_name=file_name,
                                    job_id=job_id, dataset_id=dataset.id if dataset else None,
                                    dataset_name=dataset.name if dataset else None)
    except Exception:
        if text_key:
            rt.storage.delete(text_key)
        raise


def get(rt: Runtime, p: Principal, job_id: str) -> Job:
    """The job (its result is read with ``open_result``)."""
    job = jobs_repo.get_job(rt.engine, p, job_id)
    if job is None:
        raise NotFound(f"parse job {job_id} not found")
    return job


def open_result(rt: Runtime, p: Principal, job_id: str, pages: str | None = None
                ) -> tuple[Job, ResultReader | None, PageRange | None]:
    """The job and a reader of its result (``None`` until it has one), for answers that go out a
    page at a time; ``pages`` (``"1-20,25"``) selects part of it. A result larger than
    ``api.max_response_bytes`` must be asked for in parts."""
    job = jobs_repo.get_job(rt.engine, p, job_id)
    if job is None:
        raise NotFound(f"parse job {job_id} not found")
    wanted = PageRange.parse(pages)
    if not job.result_key:
        return job, None, wanted
    reader = ResultReader(rt.storage, job.result_key, job.total_pages or 0)
    cap = rt.settings.api.max_response_bytes
    if wanted is None and (size := reader.size_bytes()) > cap:
        raise InvalidRequest(f"the result is about {size / 2**20:,.0f} MiB, over the {cap / 2**20:,.0f} MiB one "
                             "response may carry (DOCKLAKE_API__MAX_RESPONSE_BYTES); ask for part of it with "
                             "?pages=1-100", code="INVALID_QUERY_PARAMS")
    return job, reader, wanted


def status(rt: Runtime, p: Principal, job_id: str) -> JobStatus | None:
    return jobs_repo.get_status(rt.engine, p, job_id)


def list_jobs(rt: Runtime, p: Principal, f: JobFilter, *, cursor: str | None, direction: str,
              limit: int) -> Page:
    """A page of ``JobSummary`` records."""
    return jobs_repo.list_jobs(rt.engine, p, f, cursor=cursor, direction=direction, limit=limit)


def delete(rt: Runtime, p: Principal, job_id: str) -> None:
    """Delete the job, its result and its stored text."""
    job = jobs_repo.delete_job(rt.engine, p, job_id)
    if job is None:
        raise NotFound(f"parse job {job_id} not found")
    for key in rt.storage.list_keys(job_results_prefix(job.organization_id, job.project_id,
                                                       job.dataset_id, job.id)):
        rt.storage.delete(key)
    if job.source.text_key:
        rt.storage.delete(job.source.text_key)


# ---------------------------------------------------------------- on a worker


def load_input(rt: Runtime, job: Job) -> DocumentInput:
    """The job's document and its options, as the stages take them: where its bytes are, not
    the bytes (the limited process that converts it reads them). A ``file_url`` is downloaded
    once, by a limited process, into the attempt's work folder."""
    src, name = job.source, job.options.file_name or job.file_name
    url = rt.settings.storage.url
    if src.kind == "file" and src.file_id:
        rec = waits_out_outages(files_repo.get_file)(rt.engine, job.principal, src.file_id)  # a worker's read
        if rec is None:
            raise DocumentError(f"file {src.file_id} no longer exists")
        source = StoredBytes(url, rec.storage_key, rt.storage.wait_s)
        name = name or rec.file_name
    elif src.kind == "text" and src.text_key:
        if not rt.storage.exists(src.text_key):
            raise DocumentError("the job's raw_text is missing from storage")
        source = StoredBytes(url, src.text_key, rt.storage.wait_s)
    elif src.kind == "ref" and src.url:  # taken by reference (bulk ingestion): read where it lies
        base, key = src.url.rsplit("/", 1)
        source = StoredBytes(base, key, rt.storage.wait_s)
        fs, path = url_to_fs(src.url)
        if not fs.exists(path):
            raise DocumentError(f"{src.url} is no longer there")
    elif src.kind == "url" and src.url:
        limits = rt.settings.limits
        source = StoredBytes(url, f"{work_folder(job)}/input", rt.storage.wait_s)
        try:
            # The content decides the type; the server's Content-Type is not trusted.
            url_name = run_isolated(fetch_into, source.write, src.url, limits.max_upload_bytes,
                                    limits.fetch_timeout_s, limits.allow_private_urls,
                                    timeout_s=limits.fetch_timeout_s + 30, memory_mb=limits.job_memory_mb,
                                    fair=False)
        except IsolatedFailure as exc:
            raise DocumentError(exc.message) from None
        name = name or url_name
    else:
        raise DocumentError("the job has no source")
    opts = job.options
    return DocumentInput(
        source=source, file_name=name, declared_mime_type=opts.mime_type, page_range=opts.page_range,
        parsing=opts.parsing_options or ParsingOptions(),
        enrichment=opts.enrichment_options or EnrichmentOptions(),
        extraction=opts.structured_extraction_options or [],
        classification=opts.page_classifications or [],
        form_filling=opts.form_filling if job.kind == JobKind.edit else None,
        limits=engine_limits(rt),
        llm=rt.settings.llm.provider(),
    )


def engine_limits(rt: Runtime) -> EngineLimits:
    lim, ocr = rt.settings.limits, rt.settings.ocr
    return EngineLimits(max_page_pixels=lim.max_page_pixels, max_pages=lim.max_pages,
                        max_table_columns=lim.max_table_columns, max_result_bytes=lim.max_result_bytes,
                        tessdata_dir=str(ocr.tessdata_dir) if ocr.tessdata_dir else None)


def remaining(deadline: float) -> float:
    return max(1.0, deadline - time.monotonic())


def convert(rt: Runtime, inp: DocumentInput, deadline: float, *, tenant: str = "",
            job: Job | None = None) -> DocumentResult:
    """Convert ``inp`` in a limited child process, in ``tenant``'s turn for one (see
    ``isolation.FairSlots``); a PDF with more than ``worker.split_pages`` selected pages comes back
    unconverted with the page ranges to convert in parallel (``split_into``). Given the ``job``,
    the child writes the result itself and only its summary comes back. An edit job's PDF is
    filled, then converted whole (the filled PDF comes back with the summary)."""
    sink = ResultSink(rt.settings.storage.url, attempt_key(job), job.id, rt.storage.wait_s) if job is not None else None
    target = partial(split.convert_unless_large, part_pages=rt.settings.worker.split_pages)
    if job is not None and job.kind == JobKind.edit:
        target = fill_and_convert
    return convert_isolated(inp, timeout_s=remaining(deadline), memory_mb=rt.settings.limits.job_memory_mb,
                            tenant=tenant, sink=sink, target=target)


def convert_part(rt: Runtime, job: Job, inp: DocumentInput, page_range: str, deadline: float) -> DocumentResult:
    """Convert ``page_range`` of a split document; the child stores the part in the attempt's
    work folder and returns its summary (``merge_parts`` joins the parts)."""
    sink = ResultSink(rt.settings.storage.url, _part_key(job, page_range), job.id, rt.storage.wait_s)
    return convert_isolated(split.part_input(inp, page_range), timeout_s=remaining(deadline),
                            memory_mb=rt.settings.limits.job_memory_mb, tenant=job.organization_id, sink=sink)


def merge_parts(rt: Runtime, job: Job, inp: DocumentInput, ranges: list[str], parts: list[DocumentResult],
                deadline: float) -> DocumentResult:
    """One result from the stored parts, merged and written by a limited child process (it holds
    the whole document; the worker only its summary)."""
    url = rt.settings.storage.url
    readers = [StoredResult(url, _part_key(job, r), p.total_pages, rt.storage.wait_s) if p.stored else None
               for r, p in zip(ranges, parts, strict=True)]
    try:
        result: DocumentResult = run_isolated(
            split.merge_stored, inp.without_data(), parts, readers, ResultSink(url, attempt_key(job), job.id, rt.storage.wait_s),
            timeout_s=remaining(deadline), memory_mb=rt.settings.limits.job_memory_mb, tenant=job.organization_id)
    except IsolatedFailure as exc:
        return DocumentResult(input=inp, status=ConversionStatus.failure,
                              errors=[ErrorItem(stage="worker", message=f"joining the document's parts: {exc.message}")])
    inp.mime_type = result.input.mime_type or inp.mime_type
    result.input = inp
    return result


def attempt_key(job: Job) -> str:
    return result_key(job.organization_id, job.project_id, job.dataset_id, job.id, job.attempts)


def work_folder(job: Job) -> str:
    return work_key(job.organization_id, job.project_id, job.dataset_id, job.id, job.attempts)


def _part_key(job: Job, page_range: str) -> str:
    return f"{work_folder(job)}/part-{page_range.replace(',', '_')}"


def _remove(rt: Runtime, prefix: str) -> None:
    for key in rt.storage.list_keys(prefix):
        rt.storage.delete(key)


def _drop_earlier_attempts(rt: Runtime, job: Job, keep: str | None) -> None:
    """Results written by attempts whose worker died before closing the job."""
    for stale in rt.storage.list_keys(job_results_prefix(job.organization_id, job.project_id,
                                                         job.dataset_id, job.id)):
        if keep is None or not stale.startswith(keep + "/"):
            rt.storage.delete(stale)


def fail(rt: Runtime, job: Job, owner: str, message: str) -> JobStatus | None:
    """Close a claimed job as ``failure``; ``None`` if this worker lost the job's lease."""
    log.info("job_failed", job_id=job.id, kind=job.kind.value, attempt=job.attempts, error=message)
    _remove(rt, work_folder(job))
    ok = jobs_repo.finish(rt.engine, owner, job.id, job.attempts, status=JobStatus.failure, error=message,
                          result_key=None, total_pages=None, parsed_pages_count=0,
                          org=job.organization_id, project=job.project_id)
    return JobStatus.failure if ok else None


def complete(rt: Runtime, job: Job, owner: str, result: DocumentResult) -> JobStatus | None:
    """Write the result and close the job; ``None`` if this worker lost the job's lease. A
    failure while the object store cannot be reached is the outage's, not the document's: it
    raises ``StorageUnavailable`` and the job is handed back unspent."""
    status = JobStatus.failure if result.status == ConversionStatus.failure else JobStatus.successful
    if status == JobStatus.failure and not rt.storage.reachable():
        raise StorageUnavailable(f"the object store cannot be reached ({result.error_message()})")
    key = attempt_key(job) if result.pages else None
    if key and not result.stored:
        write_result(rt.storage, key, job.id, result)
    filed = None
    if key and status == JobStatus.successful and result.filled_pdf is not None:
        filed = edits.keep_filled(rt, job, key, result.filled_pdf, result.form_filling or FormFillingReport())
    _remove(rt, work_folder(job))
    if key is None:  # nothing to keep: no half-written tables of this attempt either
        _remove(rt, attempt_key(job))
    ok = jobs_repo.finish(rt.engine, owner, job.id, job.attempts, status=status,
                          error=result.error_message(), result_key=key,
                          total_pages=result.total_pages, parsed_pages_count=result.parsed_pages_count,
                          org=job.organization_id, project=job.project_id)
    if not ok and key:  # another worker owns this job now; its result is the one kept
        _remove(rt, key)
        if filed is not None:
            edits.drop_file(rt, job.principal, filed)
    if ok and job.attempts > 1:
        _drop_earlier_attempts(rt, job, key)
    log.info("job_finished", job_id=job.id, kind=job.kind.value, attempt=job.attempts,
             status=status.value if ok else "lost_lease", pages=result.parsed_pages_count,
             timings={k: round(v, 4) for k, v in result.timings.items()})
    return status if ok else None
