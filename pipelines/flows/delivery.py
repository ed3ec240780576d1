"""Jobs delivered through Prefect (``DOCKLAKE_WORKER__DELIVERY=prefect``): many machines.

The *feeder* (``docklake deliver``, started by ``docklake serve``) hands pending jobs to Prefect
as deferred task runs of ``docklake-jobs``: one organization's jobs per task run, a few at a time
where many wait (each delivery costs the Prefect server far more than a small document), named
like a catalog batch (``org-a/reports: 3 documents (…)``) and tagged ``job:<id>`` for each job.
Prefect's task workers (``docklake worker``: ``prefect.task_worker`` serving that task) receive
them over the Prefect server's websocket, as many at once as each has room for, on whichever host
is free. Inside, the jobs run in chunks as in the catalog mode (``flows.chunks``: a task run per
chunk, named after its documents and tagged with their organization, project, kind and dataset,
plus ``job:<id>`` for each; a failed job gets a failed run of its own), so the tag concurrency
limits an operator sets (``prefect concurrency-limit create org:acme 4``) hold per chunk across
all hosts.

The catalog stays the record and the exactly-once guard. A worker *takes* the jobs it was handed
(``pending → processing`` under its lease, renewed by a heartbeat) and finishes them only while it
holds them; a second delivery of a job finds it taken and skips it. The feeder keeps at most
``delivery_window`` jobs delivered and not taken (no organization more than half while others
wait, handed out in turn as the catalog dispatcher claims), so a backlog never queues ahead of a
newcomer in Prefect; it delivers a job again when its delivery was never taken (``redeliver_s``:
the Prefect server lost its queue in a restart) and when the worker running it died (its lease
expired a lease ago: a live worker cut off by a catalog outage renews first). Every few seconds it brings the Prefect states of delivered runs in line with the
catalog (``reconcile``). The job ids travel as tags, so no shared parameter storage is needed.

Outages are waited out: the catalog calls retry (``assets.catalog.db.waits_out_outages``); a delivery
the Prefect API refused is taken back unspent while the feeder waits for the API; a task worker
whose connection to Prefect broke reconnects.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import structlog
from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import TaskRun
from prefect.context import TaskRunContext
from prefect.states import Completed, State

from assets.catalog import deliveries
from assets.catalog import jobs as jobs_repo
from pipelines.core.records import Job, JobStatus
from pipelines.flows.chunks import flow_name, publish_batch_report, run_jobs
from pipelines.flows.dispatcher import Heartbeat, by_organization, send_webhooks, wait_for_prefect
from pipelines.usecases.runtime import Runtime, current

log = structlog.get_logger("docklake.delivery")

JOB_TAG = "job:"
RECONCILE_S = 15.0  # how often the feeder brings Prefect's run states in line with the catalog


class _Node:
    """The task worker this process runs (one per process)."""

    owner = ""
    heartbeat: Heartbeat | None = None
    finished: asyncio.Event | None = None


_node = _Node()
BATCH = "docklake:batch"  # on the task run of each delivery


def _job_tag(job: Job) -> list[str]:
    # one tag more than the catalog mode's: every tag costs each task run a concurrency lookup
    return [f"{JOB_TAG}{job.id}"]


@task(name="docklake-jobs", cache_policy=NO_CACHE, persist_result=False)
async def delivered_jobs() -> State:
    """A delivered batch (one organization's jobs), run by the task worker that received it: the
    jobs nobody took first, in chunks, at once."""
    ctx = TaskRunContext.get()
    assert ctx is not None and _node.heartbeat is not None
    ids = [t.removeprefix(JOB_TAG) for t in ctx.task_run.tags if t.startswith(JOB_TAG)]
    rt = current()
    taken = await asyncio.to_thread(deliveries.take, rt.engine, _node.owner, ids, rt.settings.worker.lease_s)
    if not taken:
        return Completed(message="skipped: taken through another delivery, finished or deleted", data="skipped")
    _node.heartbeat.job_ids.update(j.id for j in taken)
    try:
        outcomes, message = await run_jobs(taken, _node.owner, _job_tag)
        await publish_batch_report(taken)
    finally:
        # a job whose task run never got to run it (its start needs the Prefect API, which may
        # be away) is still held: hand it back unspent, to be delivered again
        if handed_back := await asyncio.to_thread(jobs_repo.release_jobs, rt.engine, _node.owner,
                                                  [j.id for j in taken]):
            log.warning("jobs_handed_back", jobs=handed_back)
        _node.heartbeat.job_ids.difference_update(j.id for j in taken)
        if _node.finished is not None:
            _node.finished.set()
    skipped = len(ids) - len(taken)
    return Completed(message=message + (f", {skipped} skipped (taken elsewhere)" if skipped else ""), data=outcomes)


# Prefect routes a delivered run to the task workers subscribed to its task key, which it derives
# from the function's code object, file path included: hosts (or a feeder and a worker) that load
# this module from different paths would never meet. The key is fixed instead.
TASK_KEY = "docklake-jobs"
delivered_jobs.task_key = TASK_KEY


def deliver(batch: list[Job]) -> str:
    """Hand ``batch`` (one organization's jobs) to Prefect as one task run; its id."""
    # no organization tag: a tag concurrency limit on it would let the batch hold the slot its
    # own jobs' task runs wait for
    tags = [BATCH, *(f"{JOB_TAG}{j.id}" for j in batch)]
    run = delivered_jobs.with_options(name=flow_name(batch), tags=tags)
    run.task_key = TASK_KEY  # with_options derives it again
    return str(run.delay().task_run_id)


def batches(jobs: list[Job], size: int) -> list[list[Job]]:
    """``jobs`` in batches of one organization each, at most ``size`` long."""
    out: list[list[Job]] = []
    for part in by_organization(jobs):
        out += [part[i:i + size] for i in range(0, len(part), size)]
    return out


def superseded(run: TaskRun, job: Job) -> bool:
    """Whether ``job`` was taken again after ``run`` started (by another delivery or worker)."""
    began = run.start_time or run.created
    return bool(began and job.started_us and began < datetime.fromtimestamp(job.started_us / 1e6, UTC)
                - timedelta(seconds=1))


async def reconcile(rt: Runtime, older_than_s: float) -> int:
    """Bring the Prefect states of delivered runs in line with the catalog (best effort; the
    catalog is the truth). A run whose end Prefect never recorded (its server was away just then)
    gets the job's outcome; the run of a worker that died, or of a delivery made again, becomes
    ``Crashed``; a delivery still queued when it was made again, ``Cancelled``. How many changed."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        TaskRunFilter,
        TaskRunFilterFlowRunId,
        TaskRunFilterState,
        TaskRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType
    from prefect.states import Cancelled, Crashed, Failed

    changed = 0
    now = datetime.now(UTC)
    async with get_client() as client:
        # delivered runs have no flow run; a job's own run is tagged with its job alone
        runs = await client.read_task_runs(task_run_filter=TaskRunFilter(
            flow_run_id=TaskRunFilterFlowRunId(is_null_=True),
            state=TaskRunFilterState(type=TaskRunFilterStateType(any_=[
                StateType.SCHEDULED, StateType.PENDING, StateType.RUNNING]))), limit=200)
        for run in runs:
            ids = [t.removeprefix(JOB_TAG) for t in run.tags if t.startswith(JOB_TAG)]
            if not ids or (run.created and run.created > now - timedelta(seconds=older_than_s)):
                continue
            jobs = [j for j in [await asyncio.to_thread(jobs_repo.get_job_by_id, rt.engine, i) for i in ids] if j]
            state: State | None = None
            if run.state_type == StateType.SCHEDULED:
                if run.created and run.created < now - timedelta(seconds=rt.settings.worker.redeliver_s):
                    state = Cancelled(message="never taken; its jobs were delivered again")
            elif any(superseded(run, j) for j in jobs) or any(j.status == JobStatus.pending for j in jobs):
                # its worker died: its jobs were taken again after it started, or wait for it
                if not any(j.status == JobStatus.processing and not superseded(run, j) for j in jobs):
                    # a chunk may have finished some of its jobs before its worker died
                    ended = [j for j in jobs if j.status.terminal and not superseded(run, j)]
                    state = Crashed(message=f"its worker stopped after finishing {len(ended)} of its "
                                    f"{len(jobs)} jobs; the others were delivered again" if ended else
                                    "its worker stopped; its jobs were delivered again")
            elif BATCH in run.tags or len(jobs) > 1:  # a delivery, or a chunk of its jobs
                if all(j.status.terminal for j in jobs):
                    state = Completed(message="its end was not recorded by Prefect; see its jobs")
            elif len(jobs) == 1:
                if jobs[0].status == JobStatus.failure:
                    state = Failed(message=jobs[0].error or "failed")
                elif jobs[0].status == JobStatus.successful:
                    state = Completed(message="its end was not recorded by Prefect (it was away)")
            if state is not None:
                try:
                    await client.set_task_run_state(run.id, state, force=True)
                    changed += 1
                except Exception as exc:  # noqa: BLE001
                    log.warning("reconcile_failed", task_run_id=str(run.id), error=repr(exc))
    return changed


class Feeder:
    """Hands pending jobs to Prefect, fairly and a window at a time."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self._stopping = asyncio.Event()
        self._last_org = ""
        self._next_reconcile = 0.0

    def stop(self) -> None:
        self._stopping.set()

    async def feed_once(self) -> int:
        """One round: requeue the jobs of dead workers, then deliver what the window has room for.
        How many were delivered; raises when the Prefect API refused (the jobs are taken back)."""
        s = self.rt.settings.worker
        requeued = await asyncio.to_thread(deliveries.requeue_expired, self.rt.engine, s.max_attempts, s.lease_s)
        if requeued:
            log.info("requeued_from_dead_workers", jobs=[r.job_id for r in requeued])
        if time.monotonic() >= self._next_reconcile:
            self._next_reconcile = time.monotonic() + RECONCILE_S
            try:
                if changed := await reconcile(self.rt, older_than_s=max(10.0, s.lease_s)):
                    log.info("reconciled_prefect_states", task_runs=changed)
            except Exception as exc:  # noqa: BLE001 - best effort; the next round tries again
                log.warning("reconcile_failed", error=repr(exc))
        waiting = await asyncio.to_thread(deliveries.delivered_waiting, self.rt.engine)
        room = max(1, s.delivery_window) - sum(waiting.values())
        if room <= 0:
            return 0
        batch = await asyncio.to_thread(
            deliveries.mark_for_delivery, self.rt.engine, room, s.redeliver_s, after_org=self._last_org,
            busy=waiting, per_org=max(1, s.delivery_window // 2))
        if not batch:
            return 0
        self._last_org = batch[-1].organization_id
        gate = asyncio.Semaphore(8)

        async def one(part: list[Job]) -> list[str]:
            async with gate:
                try:
                    await asyncio.to_thread(deliver, part)
                    return []
                except Exception as exc:  # noqa: BLE001 - the Prefect API away: take them back
                    log.warning("delivery_failed", jobs=[j.id for j in part], error=repr(exc))
                    return [j.id for j in part]

        # a few jobs per task run where many wait (a task run costs the Prefect server far more
        # than a small document's conversion), never so few batches that one host gets them all
        size = max(1, min(s.batch_size, s.delivery_window // 8))
        refused = [i for ids in await asyncio.gather(*(one(p) for p in batches(batch, size))) for i in ids]
        if refused:
            await asyncio.to_thread(deliveries.undeliver, self.rt.engine, refused)
            raise ConnectionError(f"the Prefect API refused {len(refused)} of {len(batch)} deliveries")
        log.info("delivered", jobs=len(batch))
        return len(batch)

    async def run_forever(self) -> None:
        log.info("feeder_started", window=self.rt.settings.worker.delivery_window)
        poll = max(0.2, self.rt.settings.worker.poll_s)
        while not self._stopping.is_set():
            try:
                delivered = await self.feed_once()
            except ConnectionError:
                await wait_for_prefect(self.rt.settings.effective_prefect_api_url, self._stopping)
                continue
            except Exception as exc:  # noqa: BLE001 - the catalog away longer than the retries
                log.error("feed_failed", error=repr(exc))
                delivered = 0
                poll_now = 5.0
            else:
                poll_now = poll
            if not delivered:
                try:
                    await asyncio.wait_for(self._stopping.wait(), poll_now)
                except TimeoutError:
                    pass
        log.info("feeder_stopped")


class TaskWorkerNode:
    """``docklake worker`` with ``prefect`` delivery: a Prefect task worker serving
    ``docklake-job``, ``max_in_flight`` jobs at once, plus the lease heartbeat and the webhook
    sender. It reconnects to Prefect after an outage instead of exiting."""

    def __init__(self, rt: Runtime, owner: str | None = None) -> None:
        self.rt = rt
        self.owner = owner or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()
        if self._serving is not None:
            self._serving.cancel()

    _serving: asyncio.Task[None] | None = None

    async def _serve(self) -> None:
        from prefect.task_worker import StopTaskWorker, TaskWorker

        api_url, stopping = self.rt.settings.effective_prefect_api_url, self._stopping

        class Resubscribing(TaskWorker):
            """A task worker that subscribes again when its connection to the Prefect server
            breaks, keeping the jobs it runs: Prefect's own ends the worker, and with it every
            job in flight."""

            async def _subscribe_to_task_scheduling(self) -> None:
                while True:
                    try:
                        await super()._subscribe_to_task_scheduling()
                    except (StopTaskWorker, asyncio.CancelledError):
                        raise
                    except Exception as exc:  # noqa: BLE001 - Prefect away: subscribe once it answers
                        log.warning("task_worker_disconnected", error=repr(exc))
                        await wait_for_prefect(api_url, stopping)
                        if stopping.is_set():
                            raise StopTaskWorker from exc

        limit = max(1, self.rt.settings.worker.max_in_flight)
        worker = Resubscribing(delivered_jobs, limit=limit)
        # TaskWorker would persist every run's result (a file per batch); the catalog holds results
        worker.tasks = [delivered_jobs]
        # its SIGTERM handler would exit the process mid-job; stop as the worker command does
        loop = asyncio.get_running_loop()
        worker.handle_sigterm = lambda *_: loop.call_soon_threadsafe(self.stop)  # type: ignore[method-assign]
        async with worker:
            await worker.astart()

    async def run_forever(self) -> None:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(ThreadPoolExecutor(
            max_workers=2 * max(1, self.rt.settings.worker.max_in_flight) + 8, thread_name_prefix="docklake-job"))
        _node.owner = self.owner
        _node.finished = asyncio.Event()
        _node.heartbeat = Heartbeat(self.rt, self.owner)
        _node.heartbeat.start()
        sender = asyncio.create_task(send_webhooks(self.rt, self.owner, self._stopping, _node.finished))
        log.info("task_worker_started", owner=self.owner, max_in_flight=self.rt.settings.worker.max_in_flight)
        try:
            while not self._stopping.is_set():
                self._serving = asyncio.create_task(self._serve())
                try:
                    await self._serving
                except asyncio.CancelledError:
                    if self._stopping.is_set():
                        break
                    raise
                except Exception as exc:  # noqa: BLE001 - Prefect away: reconnect once it answers
                    log.warning("task_worker_disconnected", error=repr(exc))
                if not self._stopping.is_set():
                    await wait_for_prefect(self.rt.settings.effective_prefect_api_url, self._stopping)
        finally:
            sender.cancel()
            try:
                released = await asyncio.to_thread(jobs_repo.release, self.rt.engine, self.owner)
            except Exception as exc:  # noqa: BLE001 - their leases expire instead
                released = 0
                log.error("release_failed", error=repr(exc))
            _node.heartbeat.stop()
            log.info("task_worker_stopped", owner=self.owner, released=released)
