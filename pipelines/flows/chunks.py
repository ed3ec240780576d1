"""Prefect task runs for claimed jobs: one task run per chunk of documents, one per page range of
a split document, and one ``Failed`` run of its own for each document that failed.

Why chunks: a task run costs the client and the Prefect server about 18 ms of CPU, more than a
small document's conversion, so one per document spent most of a batch on orchestration
(``usecases.chunking`` says how jobs are grouped). Each document stays visible: its lines in its
chunk's logs, its row in its batch's markdown artifact, the chunk named after its documents
(``parse 12 documents (memo.pdf, …)``) and tagged like them. A failed document is what a person
looks for, so it gets a ``Failed`` task run named after it (``parse broken.pdf``), with the
job's error as the state message, its log lines and its report: the runs list shows it in red
without opening its chunk. Failures are few; their runs cost nothing on a clean batch.

The documents of a chunk run at once (the conversion slots, ``engine.isolation``, bound the
CPU), each closing its own job in the catalog under its own lease, as before.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from uuid import UUID, uuid4

import structlog
from prefect import get_run_logger, task
from prefect.artifacts import acreate_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.context import TaskRunContext
from prefect.runtime import flow_run
from prefect.states import Completed, Failed, State

from assets.catalog import jobs as jobs_repo
from assets.storage import is_outage
from pipelines.core.errors import DocklakeError, describe
from pipelines.core.models import DocumentInput, DocumentResult
from pipelines.core.records import Job, JobStatus
from pipelines.usecases import documents
from pipelines.usecases.chunking import chunk_name, chunks, learn
from pipelines.usecases.reports import JobReport, batch_markdown
from pipelines.usecases.runtime import Runtime, current

log = structlog.get_logger("docklake.flows")

HANDED_BACK = "handed_back"  # a job's outcome when an outage kept it from running
SKIPPED = "skipped"  # deleted, or held by another worker, by the time its chunk ran
LOST = "lost_lease"  # another worker took it over while it ran


@task(name="convert-pages", cache_policy=NO_CACHE)
async def convert_pages(job: Job, inp: DocumentInput, page_range: str, deadline: float) -> DocumentResult:
    """One page range of a split document; its child stores the part, the summary comes back."""
    return await asyncio.to_thread(documents.convert_part, current(), job, inp, page_range, deadline)


# the jobs of the chunks running in this process, by id (their flow holds them already)
_known: dict[str, Job] = {}

# what to call as each job of a chunk ends (the dispatcher frees its room), by hook id
_hooks: dict[str, Callable[[str], None]] = {}


@task(name="process-documents", cache_policy=NO_CACHE)
async def process_chunk(job_ids: list[str], owner: str, hook: str = "") -> State:
    """The jobs of one chunk, at once. Its task run completes with the outcomes counted ("11
    successful, 1 failure"); each job's outcome is its data."""
    rt = current()
    known = {i: _known[i] for i in job_ids if i in _known}
    if len(known) == len(job_ids):  # the flow's own Job objects: only their leases are read again
        now = await asyncio.to_thread(jobs_repo.leases, rt.engine, job_ids)
        held = {i: j for i, j in known.items()
                if now.get(i) == (owner, JobStatus.processing.value, j.attempts)}
    else:
        held = {i: j for i, j in (await asyncio.to_thread(jobs_repo.get_jobs_by_ids, rt.engine, job_ids)).items()
                if j.lease_owner == owner and j.status == JobStatus.processing}
    done = _hooks.get(hook)

    async def one(job_id: str) -> str:
        try:
            job = held.get(job_id)
            if job is None:
                return SKIPPED
            return await run_held_job(job, owner)
        finally:
            if done is not None:
                done(job_id)

    outcomes = dict(zip(job_ids, await asyncio.gather(*(one(i) for i in job_ids)), strict=True))
    return Completed(message=counted(outcomes), data=outcomes)


@task(name="failed-document", cache_policy=NO_CACHE)
async def failed_document(job_id: str) -> State:
    """A failed document's own run: its log lines, its report, and its error as the message."""
    report = _reports.get(job_id)
    if report is None:
        return Failed(message="failed")
    await _report(report)
    return Failed(message=report.error or "failed", data=JobStatus.failure.value)


async def run_held_job(job: Job, owner: str) -> str:
    """Run a job ``owner`` holds to its end; its outcome (a ``JobStatus`` value, ``LOST`` or
    ``HANDED_BACK``). Its report waits in ``_reports`` for its batch's artifact."""
    rt = current()
    job_id = job.id
    limit = rt.settings.limits.job_timeout_s
    started = time.monotonic()
    result: DocumentResult | None = None
    try:
        # The children enforce the limit on conversions; this bounds everything else too.
        status, error, result = await asyncio.wait_for(_process(rt, job, owner, started + limit), limit + 60)
    except TimeoutError:
        error = f"the job took longer than {limit:g} s (DOCKLAKE_LIMITS__JOB_TIMEOUT_S)"
        status = await asyncio.to_thread(documents.fail, rt, job, owner, error)
    except Exception as exc:  # noqa: BLE001 - one job's failure must not sink its chunk
        if is_outage(exc):
            # the object store away for longer than a worker waits: the job is left held, and
            # its batch hands it back unspent (it runs again once the store answers)
            log.warning("job_handed_back_storage_unreachable", job_id=job_id, error=describe(exc))
            return HANDED_BACK
        log.exception("job_crashed", job_id=job_id)
        error = f"internal error while processing the document: {describe(exc)}"
        status = await asyncio.to_thread(documents.fail, rt, job, owner, error)
    if result is not None and result.timings:
        learn(job, sum(result.timings.values()))  # the conversion's own time, not its wait for a slot
    report = JobReport(job, status, error, result, time.monotonic() - started)
    _reports[job_id] = report
    # a failed job's report goes on its own run (``failed_document``); its line stays here too
    await _report(report, artifact=status != JobStatus.failure)
    if status is None:
        return LOST
    return status.value


# the reports of the jobs finished in this process, until their batch's artifact takes them
_reports: dict[str, JobReport] = {}


async def _report(report: JobReport, artifact: bool = True) -> None:
    """The job's log lines, and its markdown artifact if it met problems, sent to the Prefect API
    (best effort: the catalog, not Prefect, is the record). An artifact costs the Prefect server
    more than a small document's whole task run: a clean job has only its row in its batch's."""
    ctx = TaskRunContext.get()
    if ctx is not None and ctx.task_run.flow_run_id is None:
        # a delivered task run (no flow run): Prefect's log handler only sends logs of flow runs
        await _send_task_run_logs(ctx.task_run.id, report.log_lines())
    else:
        logger = get_run_logger()
        for level, line in report.log_lines():
            getattr(logger, level)(line)
    if not artifact or not report.troubled:
        return
    try:
        # a key names the report in the Artifacts page (lowercase letters, digits and dashes)
        await acreate_markdown_artifact(markdown=report.markdown(), key=f"report-{report.job.id.replace('_', '-')}",
                                        description=f"{task_name(report.job)}: what the job found")
    except Exception as exc:  # noqa: BLE001
        log.warning("artifact_failed", job_id=report.job.id, error=repr(exc))


async def publish_batch_report(jobs: list[Job]) -> None:
    """One markdown artifact for a batch, a row for each of ``jobs`` that ran here, on its flow
    run (or on the task run of a delivered batch); best effort."""
    reports = [r for j in jobs if (r := _reports.pop(j.id, None)) is not None]
    if not reports:
        return
    ctx = TaskRunContext.get()
    run_id = ctx.task_run.id if ctx is not None else flow_run.get_id()
    try:
        await acreate_markdown_artifact(markdown=batch_markdown(reports), key=f"batch-{run_id}" if run_id else None,
                                        description=f"{flow_name([r.job for r in reports])}: what each job found")
    except Exception as exc:  # noqa: BLE001
        log.warning("artifact_failed", jobs=[r.job.id for r in reports], error=repr(exc))


async def _send_task_run_logs(task_run_id: UUID, lines: Iterable[tuple[str, str]]) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import LogCreate

    at = datetime.now(UTC)
    logs = [LogCreate(name="prefect.task_runs", level=logging.getLevelNamesMapping()[level.upper()], message=line,
                      timestamp=at, task_run_id=task_run_id) for level, line in lines]
    try:
        async with get_client() as client:
            await client.create_logs(logs)
    except Exception as exc:  # noqa: BLE001 - best effort: the worker's own log has them too
        log.warning("task_run_logs_failed", task_run_id=str(task_run_id), error=repr(exc))


async def _process(rt: Runtime, job: Job, owner: str, deadline: float
                   ) -> tuple[JobStatus | None, str | None, DocumentResult | None]:
    try:
        inp = await asyncio.to_thread(documents.load_input, rt, job)
    except DocklakeError as exc:
        return await asyncio.to_thread(documents.fail, rt, job, owner, exc.message), exc.message, None
    result = await asyncio.to_thread(documents.convert, rt, inp, deadline, tenant=job.organization_id, job=job)
    if ranges := result.split_into:  # a large PDF: its page ranges in parallel, then joined
        parts = await asyncio.gather(*(
            convert_pages.with_options(task_run_name=f"{task_name(job)} pages {r}", tags=job_tags(job))(
                job, inp, r, deadline)
            for r in ranges))
        result = await asyncio.to_thread(documents.merge_parts, rt, job, inp, ranges, list(parts), deadline)
    status = await asyncio.to_thread(documents.complete, rt, job, owner, result)
    return status, result.error_message(), result


def job_tags(job: Job) -> list[str]:
    """What a person filters task runs by in the Prefect UI."""
    # few and shared: Prefect's server does work per tag on every task-run transition
    found = [f"org:{job.organization_id}", f"project:{job.project_id}", f"kind:{job.kind.value}"]
    if job.dataset_name or job.dataset_id:
        found.append(f"dataset:{job.dataset_name or job.dataset_id}")
    if job.attempts > 1:
        found.append("reclaimed")  # its first worker died; this is attempt 2 or later
    return found


def flow_name(jobs: list[Job]) -> str:
    where = {f"{j.organization_id}/{j.dataset_name or j.dataset_id or 'no dataset'}" for j in jobs}
    names = ", ".join(j.file_name or j.id for j in jobs[:3]) + (", …" if len(jobs) > 3 else "")
    return f"{' + '.join(sorted(where))}: {len(jobs)} document{'s' * (len(jobs) != 1)} ({names})"


def task_name(job: Job) -> str:
    """``parse memo.pdf``: the kind and the document, as a person would look for it."""
    return f"{job.kind.value} {job.file_name or job.id}"




async def run_jobs(jobs: list[Job], owner: str, extra_tags: Callable[[Job], list[str]] = lambda _j: [],
                   done: Callable[[str], None] | None = None) -> tuple[dict[str, str], str]:
    """Run ``jobs`` (held by ``owner``) in chunks, all at once, calling ``done(job id)`` as each
    job ends, then a ``Failed`` run for each failed job; each job's outcome and a message counting
    them ("7 successful, 1 failure")."""
    hook = ""
    if done is not None:
        hook = uuid4().hex
        _hooks[hook] = done

    async def one(part: list[Job]) -> State:
        tags = sorted({t for j in part for t in (*job_tags(j), *extra_tags(j))})
        return await process_chunk.with_options(task_run_name=chunk_name(part), tags=tags)(
            [j.id for j in part], owner, hook, return_state=True)

    parts = chunks(jobs)
    _known.update((j.id, j) for j in jobs)
    try:
        states = await asyncio.gather(*(one(p) for p in parts), return_exceptions=True)
    finally:
        _hooks.pop(hook, None)
        for j in jobs:
            _known.pop(j.id, None)
    outcomes: dict[str, str] = {}
    for part, st in zip(parts, states, strict=True):
        if isinstance(st, BaseException):
            outcomes.update({j.id: f"error: {st!r}" for j in part})
        elif st.is_completed():
            outcomes.update(await st.aresult(raise_on_failure=False))
        else:  # the chunk's run itself failed (its task machinery): no outcome per job
            outcomes.update({j.id: f"error: {st.message}" for j in part})
    failed = [j for j in jobs if outcomes.get(j.id) == JobStatus.failure.value]
    await asyncio.gather(*(failed_document.with_options(
        task_run_name=task_name(j), tags=[*job_tags(j), *extra_tags(j)])(j.id, return_state=True)
        for j in failed), return_exceptions=True)
    return outcomes, counted(outcomes)


def counted(outcomes: dict[str, str]) -> str:
    """"7 successful, 1 failure": the outcomes counted, successes first."""
    counts = Counter(outcomes.values())
    order = {JobStatus.successful.value: 0, JobStatus.failure.value: 1}
    return ", ".join(f"{counts[what]} {what}" for what in sorted(counts, key=lambda w: (order.get(w, 2), w)))
