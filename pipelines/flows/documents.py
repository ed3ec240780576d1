"""Prefect flows: one flow run processes a batch of claimed jobs, one task run per job, and one
task run per page range when a large document is split.

A flow run costs 0.2–1.2 s and a task 10–80 ms, so the dispatcher batches; every job is still
its own task run (named after the job) in the Prefect UI. Flows only wire the stages.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from datetime import UTC, datetime
from uuid import UUID, uuid4

import structlog
from prefect import flow, get_run_logger, task
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
from pipelines.usecases.reports import JobReport, batch_markdown
from pipelines.usecases.runtime import Runtime, current

log = structlog.get_logger("docklake.flows")


@task(name="convert-pages", cache_policy=NO_CACHE)
async def convert_pages(job: Job, inp: DocumentInput, page_range: str, deadline: float) -> DocumentResult:
    """One page range of a split document; its child stores the part, the summary comes back."""
    return await asyncio.to_thread(documents.convert_part, current(), job, inp, page_range, deadline)


HANDED_BACK = "handed_back"  # a job's outcome when an outage kept it from running


@task(name="process-document", cache_policy=NO_CACHE)
async def process_document(job_id: str, kind: str, owner: str) -> State:
    """One job. Its task run ends ``Completed``, or ``Failed`` with the job's error as the state
    message when the job ends ``failure``, so the Prefect UI shows what the API says; its logs
    say what the job found and where the time went, and a markdown artifact says it again for a
    job that met problems (its batch's artifact has a row for every job)."""
    job = await asyncio.to_thread(jobs_repo.get_job_by_id, current().engine, job_id)
    if job is None or job.lease_owner != owner or job.status != JobStatus.processing:
        return Completed(message="skipped: deleted, or claimed by another worker", data="skipped")
    return await run_held_job(job, owner)


async def run_held_job(job: Job, owner: str) -> State:
    """The body of a job's task run, for a job ``owner`` holds (whichever way it got there)."""
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
    except Exception as exc:  # noqa: BLE001 - one job's failure must not sink its batch
        if is_outage(exc):
            # the object store away for longer than a worker waits: the job is left held, and
            # its batch hands it back unspent (it runs again once the store answers)
            log.warning("job_handed_back_storage_unreachable", job_id=job_id, error=describe(exc))
            return Completed(message=f"handed back, not run: {describe(exc)}", data=HANDED_BACK)
        log.exception("job_crashed", job_id=job_id)
        error = f"internal error while processing the document: {describe(exc)}"
        status = await asyncio.to_thread(documents.fail, rt, job, owner, error)
    report = JobReport(job, status, error, result, time.monotonic() - started)
    _reports[job_id] = report
    await _report(report)
    if status is None:
        return Completed(message="lost the job's lease: another worker finishes it", data="lost_lease")
    if status == JobStatus.failure:
        return Failed(message=error or "failed", data=status.value)
    return Completed(message=f"pages with errors: {error}" if error else None, data=status.value)


# the reports of the jobs finished in this process, until their batch's artifact takes them
_reports: dict[str, JobReport] = {}


async def _report(report: JobReport) -> None:
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
    if not report.troubled:
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


def worker_tag(owner: str) -> str:
    """The tag on every flow run a worker starts, so its runs can be found once it is gone."""
    return f"worker:{owner}"


async def mark_abandoned(flow_run_ids: Collection[str], dead_owners: Collection[str] = ()) -> int:
    """Mark the flow runs of dead workers ``Crashed`` (Prefect OSS would show them running, or
    pending, forever): the runs the catalog names, and every unfinished run tagged with a dead
    worker (one killed before it could record its id). Returns how many changed. Best effort:
    the catalog, not Prefect, is the truth."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
        FlowRunFilterTags,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.states import Crashed

    changed = 0
    unfinished = [StateType.PENDING, StateType.SCHEDULED, StateType.RUNNING]
    async with get_client() as client:
        runs = []
        for run_id in flow_run_ids:
            try:
                runs.append(await client.read_flow_run(UUID(run_id)))
            except Exception as exc:  # noqa: BLE001
                log.warning("mark_abandoned_failed", flow_run_id=run_id, error=repr(exc))
        for owner in dead_owners:
            try:
                runs += await client.read_flow_runs(flow_run_filter=FlowRunFilter(
                    tags=FlowRunFilterTags(all_=[worker_tag(owner)]),
                    state=FlowRunFilterState(type=FlowRunFilterStateType(any_=unfinished))), limit=200)
            except Exception as exc:  # noqa: BLE001
                log.warning("mark_abandoned_failed", owner=owner, error=repr(exc))
        for run in {r.id: r for r in runs}.values():
            if run.state is not None and not run.state.is_final():
                try:
                    await client.set_flow_run_state(
                        run.id, Crashed(message="its worker stopped; the jobs were claimed again"), force=True)
                    changed += 1
                except Exception as exc:  # noqa: BLE001
                    log.warning("mark_abandoned_failed", flow_run_id=str(run.id), error=repr(exc))
    return changed


def job_tags(job: Job) -> list[str]:
    """What a person filters task runs by in the Prefect UI."""
    # few and shared: Prefect's server does work per tag on every task-run transition
    found = [f"org:{job.organization_id}", f"project:{job.project_id}", f"kind:{job.kind.value}"]
    if job.dataset_name or job.dataset_id:
        found.append(f"dataset:{job.dataset_name or job.dataset_id}")
    if job.attempts > 1:
        found.append("reclaimed")  # its first worker died; this is attempt 2 or later
    return found


def task_name(job: Job) -> str:
    """``parse memo.pdf``: the kind and the document, as a person would look for it."""
    return f"{job.kind.value} {job.file_name or job.id}"


def flow_name(jobs: list[Job]) -> str:
    where = {f"{j.organization_id}/{j.dataset_name or j.dataset_id or 'no dataset'}" for j in jobs}
    names = ", ".join(j.file_name or j.id for j in jobs[:3]) + (", …" if len(jobs) > 3 else "")
    return f"{' + '.join(sorted(where))}: {len(jobs)} document{'s' * (len(jobs) != 1)} ({names})"


async def run_jobs(jobs: list[Job], owner: str, extra_tags: Callable[[Job], list[str]] = lambda _j: [],
                   done: Callable[[str], None] | None = None) -> tuple[dict[str, str], str]:
    """Run ``jobs`` (held by ``owner``) at once, one task run each, calling ``done(job id)`` as
    each ends; each job's outcome and a message counting them ("7 successful, 1 failure")."""

    async def one(j: Job) -> State:
        try:
            return await process_document.with_options(task_run_name=task_name(j), tags=[*job_tags(j), *extra_tags(j)])(
                j.id, j.kind.value, owner, return_state=True)
        finally:
            if done is not None:
                done(j.id)

    states = await asyncio.gather(*(one(j) for j in jobs), return_exceptions=True)
    outcomes: dict[str, str] = {}
    for j, st in zip(jobs, states, strict=True):
        if isinstance(st, BaseException):
            outcomes[j.id] = f"error: {st!r}"
        elif st.is_failed():
            outcomes[j.id] = JobStatus.failure.value
        else:
            outcomes[j.id] = str(await st.aresult(raise_on_failure=False))
    return outcomes, counted(outcomes)


def counted(outcomes: dict[str, str]) -> str:
    """"7 successful, 1 failure": the outcomes counted, successes first."""
    counts = Counter(outcomes.values())
    order = {JobStatus.successful.value: 0, JobStatus.failure.value: 1}
    return ", ".join(f"{counts[what]} {what}" for what in sorted(counts, key=lambda w: (order.get(w, 2), w)))



class Feed:
    """More jobs for a flow run while it runs: the worker's later claims of the same organization
    and dataset join the open run (as task runs of it) instead of each starting a flow run of its
    own, which cost 0.2-0.9 s and far more of the Prefect server than a small document. The run
    stops taking jobs once ``MAX_JOBS`` joined or ``MAX_AGE_S`` passed (so runs end, and each
    stays readable in the UI), and ends when none of its jobs is left running."""

    MAX_JOBS = 256
    MAX_AGE_S = 120.0

    def __init__(self, jobs: list[Job], done: Callable[[str], None] | None = None, open_: bool = True) -> None:
        self.id = uuid4().hex
        self.jobs = list(jobs)
        self.done = done
        self.open = open_
        self.born = time.monotonic()
        self.queue: asyncio.Queue[list[Job]] = asyncio.Queue()
        if open_:
            _feeds[self.id] = self

    def offer(self, jobs: list[Job]) -> bool:
        """Add ``jobs`` to the run, if it still takes jobs."""
        if not self.open or len(self.jobs) + len(jobs) > self.MAX_JOBS or time.monotonic() - self.born > self.MAX_AGE_S:
            return False
        self.jobs += jobs
        self.queue.put_nowait(jobs)
        return True

    def close(self) -> None:
        self.open = False
        _feeds.pop(self.id, None)


_feeds: dict[str, Feed] = {}


@flow(name="docklake-jobs", flow_run_name="{label}", log_prints=False, validate_parameters=False)
async def process_jobs(jobs: list[Job], owner: str, label: str = "", feed: str = "") -> State:
    """Process ``jobs``, claimed by ``owner``, one task run each, and those the ``feed`` (an open
    ``Feed``'s id) adds while they run. The flow run completes with a message counting the
    outcomes ("7 successful, 1 failed"), failures included: a batch whose documents failed did
    its work and is not shown as crashed."""
    rt = current()
    run_id = flow_run.get_id()
    more = _feeds.get(feed)
    done = more.done if more is not None else None
    outcomes: dict[str, str] = {}
    running: set[asyncio.Future[tuple[dict[str, str], str]]] = set()

    def launch(part: list[Job]) -> None:
        if run_id:
            jobs_repo.set_flow_run(rt.engine, owner, [j.id for j in part], str(run_id))
        running.add(asyncio.ensure_future(run_jobs(part, owner, done=done)))

    try:
        launch(jobs)
        while True:
            if not running:
                if more is None or more.queue.empty():
                    break
                launch(more.queue.get_nowait())
                continue
            getter = asyncio.ensure_future(more.queue.get()) if more is not None else None
            finished, _ = await asyncio.wait(running | ({getter} if getter else set()),
                                             return_when=asyncio.FIRST_COMPLETED)
            if getter is not None:
                if getter.done():
                    launch(getter.result())
                else:
                    getter.cancel()
            for t in finished - {getter}:
                running.discard(t)  # type: ignore[arg-type]
                outcomes.update(t.result()[0])  # type: ignore[union-attr]
    finally:
        if more is not None:
            more.close()
        for t in running:
            t.cancel()
    taken = more.jobs if more is not None else jobs  # the feed kept every job it added
    await publish_batch_report(taken)
    message = counted(outcomes)
    name = flow_name(taken) if len(taken) != len(jobs) else label
    failed = JobStatus.failure.value in outcomes.values()
    if run_id and (name != label or failed):
        # the runs list then shows every document the run took, and the failures
        await _rename(run_id, f"{name} — {message}" if failed else name)
    return Completed(message=message, data=outcomes)


async def _rename(run_id: object, name: str) -> None:
    from prefect.client.orchestration import get_client

    try:
        async with get_client() as client:
            await client.update_flow_run(UUID(str(run_id)), name=name[:500])
    except Exception as exc:  # noqa: BLE001 - best effort: the state message says it too
        log.warning("flow_run_rename_failed", flow_run_id=str(run_id), error=repr(exc))
