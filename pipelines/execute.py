"""The steps of one claimed job: load its source, convert it (whole or in page ranges), write the
Parquet result and close the job. ``pipelines.flows`` runs them as Prefect tasks."""

from __future__ import annotations

import time

import structlog

from assets import files as files_repo
from assets import jobs as jobs_repo
from assets.keys import Principal
from assets.results import result_key, write_result
from pipelines import split
from pipelines.errors import DocumentError
from pipelines.fetch import fetch
from pipelines.isolation import IsolatedFailure, convert_isolated, run_isolated
from pipelines.models import (
    ConversionStatus,
    DocumentInput,
    DocumentResult,
    EnrichmentOptions,
    ParseRequest,
    ParsingOptions,
)
from pipelines.runtime import Runtime

log = structlog.get_logger("docklake.execute")


def load_input(rt: Runtime, job: dict) -> DocumentInput:
    req = ParseRequest.model_validate(job["request"])
    declared = req.mime_type
    name = req.file_name or job.get("file_name")
    if req.file_id:
        p = Principal(job["organization_id"], job["project_id"], "")
        rec = files_repo.get_file(rt.engine, p, req.file_id)
        if rec is None:
            raise DocumentError(f"file {req.file_id} no longer exists")
        data = rt.storage.read_bytes(rec.storage_key)
        name = name or rec.file_name
    elif job["request"].get("raw_text_key"):
        try:
            data = rt.storage.read_bytes(job["request"]["raw_text_key"])
        except FileNotFoundError:
            raise DocumentError("the job's raw_text is missing from storage") from None
    elif req.raw_text is not None:
        data = req.raw_text.encode("utf-8")
    elif req.file_url:
        s = rt.settings
        # The content decides the type; the server's Content-Type is not trusted.
        data, _ctype, url_name = fetch(req.file_url, max_bytes=s.max_upload_bytes,
                                       timeout_s=s.fetch_timeout_s, allow_private=s.allow_private_urls)
        name = name or url_name
    else:
        raise DocumentError("the job has no source")
    return DocumentInput(
        data=data, file_name=name, declared_mime_type=declared, page_range=req.page_range,
        parsing=req.parsing_options or ParsingOptions(),
        enrichment=req.enrichment_options or EnrichmentOptions(),
    )


def remaining(deadline: float) -> float:
    return max(1.0, deadline - time.monotonic())


def convert(rt: Runtime, inp: DocumentInput, deadline: float, page_range: str | None = None) -> DocumentResult:
    """Convert ``inp`` (or only ``page_range`` of it) in a limited child process."""
    part = split.part_input(inp, page_range) if page_range is not None else inp
    return convert_isolated(part, timeout_s=remaining(deadline), memory_mb=rt.settings.job_memory_mb)


def plan(rt: Runtime, inp: DocumentInput, deadline: float) -> list[str]:
    """The page ranges to convert in parallel, or ``[]``. Counting pages opens the document, so
    it happens in a limited child process like the conversion itself."""
    if rt.settings.split_pages <= 0 or not split.is_pdf(inp):
        return []
    try:
        return run_isolated(split.plan, inp, rt.settings.split_pages,
                            timeout_s=min(60.0, remaining(deadline)), memory_mb=rt.settings.job_memory_mb)
    except IsolatedFailure:
        return []  # the conversion will meet the same problem and report it


def _drop_earlier_attempts(rt: Runtime, job: dict, keep: str | None) -> None:
    """Results written by attempts whose worker died before closing the job."""
    prefix = result_key(job["organization_id"], job["project_id"], job.get("dataset_id"), job["id"], 0)
    for stale in rt.storage.list_keys(prefix.rsplit("/", 1)[0]):
        if stale != keep:
            rt.storage.delete(stale)


def fail_job(rt: Runtime, job: dict, owner: str, message: str) -> str:
    """Close a claimed job as ``failure``; returns the status ("" if we lost the lease)."""
    log.info("job_failed", job_id=job["id"], kind=job["kind"], attempt=job["attempts"], error=message)
    ok = jobs_repo.finish(rt.engine, owner, job["id"], job["attempts"], status="failure", error=message,
                          result_key=None, total_pages=None, parsed_pages_count=0)
    return "failure" if ok else ""



def complete_job(rt: Runtime, job: dict, owner: str, result: DocumentResult) -> str:
    """Write the result as Parquet and close the job; returns the status ("" if we lost it)."""
    job_id, attempt = job["id"], job["attempts"]
    status = "failure" if result.status == ConversionStatus.failure else "successful"
    key = None
    if result.pages:
        key = result_key(job["organization_id"], job["project_id"], job.get("dataset_id"), job_id, attempt)
        write_result(rt.storage, key, job_id, result)
    ok = jobs_repo.finish(rt.engine, owner, job_id, attempt, status=status,
                          error=result.error_message(), result_key=key,
                          total_pages=result.total_pages, parsed_pages_count=result.parsed_pages_count)
    if not ok and key:
        rt.storage.delete(key)  # another worker owns this job now; its result is the one kept
    if ok and attempt > 1:
        _drop_earlier_attempts(rt, job, key)
    log.info("job_finished", job_id=job_id, kind=job["kind"], attempt=attempt,
             status=status if ok else "lost_lease", pages=result.parsed_pages_count,
             timings={k: round(v, 4) for k, v in result.timings.items()})
    return status if ok else ""
