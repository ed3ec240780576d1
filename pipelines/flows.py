"""Prefect flows: one flow run processes a batch of claimed jobs, one task run per job, and one
task run per page range when a large document is split.

A flow run costs 0.2–1.2 s and a task 10–80 ms, so the dispatcher batches; every job is still
its own task run (named after the job) in the Prefect UI. Flows only wire the stages.
"""

from __future__ import annotations

import asyncio
import time
from uuid import UUID

import structlog
from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from prefect.runtime import flow_run

from assets import jobs as jobs_repo
from pipelines import split
from pipelines.errors import DocklakeError, describe
from pipelines.models import DocumentInput, DocumentResult
from pipelines.records import Job, JobStatus
from pipelines.usecases import documents
from pipelines.usecases.runtime import Runtime, current

log = structlog.get_logger("docklake.flows")


@task(name="convert-pages", task_run_name="{job_id}-pages-{page_range}", cache_policy=NO_CACHE)
async def convert_pages(job_id: str, inp: DocumentInput, page_range: str, deadline: float,
                        tenant: str) -> DocumentResult:
    return await asyncio.to_thread(documents.convert, current(), inp, deadline, page_range, tenant=tenant)


@task(name="process-document", task_run_name="{kind}-{job_id}", cache_policy=NO_CACHE)
async def process_document(job_id: str, kind: str, owner: str) -> str:
    rt = current()
    job = await asyncio.to_thread(jobs_repo.get_job_by_id, rt.engine, job_id)
    if job is None or job.lease_owner != owner or job.status != JobStatus.processing:
        return "skipped"  # deleted, or reclaimed by another worker
    limit = rt.settings.limits.job_timeout_s
    try:
        # The children enforce the limit on conversions; this bounds everything else too.
        return await asyncio.wait_for(_process(rt, job, owner, time.monotonic() + limit), limit + 60)
    except TimeoutError:
        message = f"the job took longer than {limit:g} s (DOCKLAKE_LIMITS__JOB_TIMEOUT_S)"
    except Exception as exc:  # noqa: BLE001 - one job's failure must not sink its batch
        log.exception("job_crashed", job_id=job_id)
        message = f"internal error while processing the document: {describe(exc)}"
    return _outcome(await asyncio.to_thread(documents.fail, rt, job, owner, message))


def _outcome(status: JobStatus | None) -> str:
    return status.value if status else "lost_lease"


async def _process(rt: Runtime, job: Job, owner: str, deadline: float) -> str:
    try:
        inp = await asyncio.to_thread(documents.load_input, rt, job)
    except DocklakeError as exc:
        return _outcome(await asyncio.to_thread(documents.fail, rt, job, owner, exc.message))
    tenant = job.organization_id
    ranges = await asyncio.to_thread(documents.plan, rt, inp, deadline, tenant=tenant)
    if ranges:
        parts = await asyncio.gather(*(convert_pages(job.id, inp, r, deadline, tenant) for r in ranges))
        result = split.merge(inp, list(parts))
    else:
        result = await asyncio.to_thread(documents.convert, rt, inp, deadline, tenant=tenant)
    return _outcome(await asyncio.to_thread(documents.complete, rt, job, owner, result))


async def mark_abandoned(flow_run_ids: set[str]) -> int:
    """Mark the flow runs of a dead worker ``Crashed`` (Prefect OSS would show them running
    forever); returns how many changed. Best effort: the catalog, not Prefect, is the truth."""
    from prefect.client.orchestration import get_client
    from prefect.states import Crashed

    changed = 0
    async with get_client() as client:
        for run_id in flow_run_ids:
            try:
                run = await client.read_flow_run(UUID(run_id))
                if run.state is not None and not run.state.is_final():
                    await client.set_flow_run_state(
                        run.id, Crashed(message="its worker stopped; the jobs were claimed again"),
                        force=True)
                    changed += 1
            except Exception as exc:  # noqa: BLE001
                log.warning("mark_abandoned_failed", flow_run_id=run_id, error=repr(exc))
    return changed


@flow(name="docklake-jobs", flow_run_name="jobs-{first_job}", log_prints=False,
      validate_parameters=False)
async def process_jobs(jobs: list[tuple[str, str]], owner: str, first_job: str = "") -> dict[str, str]:
    """Process ``jobs`` (``(job_id, kind)`` pairs) claimed by ``owner``."""
    rt = current()
    run_id = flow_run.get_id()
    if run_id:
        jobs_repo.set_flow_run(rt.engine, owner, [j for j, _ in jobs], str(run_id))
    results = await asyncio.gather(*(process_document(j, k, owner) for j, k in jobs), return_exceptions=True)
    return {j: r if isinstance(r, str) else f"error: {r!r}" for (j, _), r in zip(jobs, results, strict=True)}
