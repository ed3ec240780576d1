"""Jobs delivered through Prefect (``DOCKLAKE_WORKER__DELIVERY=prefect``): many machines.

The *feeder* (``docklake deliver``, started by ``docklake serve``) hands each pending job to
Prefect as a deferred task run of ``docklake-job``, named and tagged like every job's task run
(``parse memo.pdf``; organization, project, kind, dataset) plus ``job:<id>``. Prefect's task
workers (``docklake worker``: ``prefect.task_worker`` serving that task) receive them over the
Prefect server's websocket, as many at once as each has room for, on whichever host is free; the
tag concurrency limits an operator sets (``prefect concurrency-limit create org:acme 4``) hold
across all of them.

The catalog stays the record and the exactly-once guard. A worker *takes* the job it was handed
(``pending → processing`` under its lease, renewed by a heartbeat) and finishes it only while it
holds it; a second delivery of the same job finds it taken and ends ``skipped``. The feeder keeps
at most ``delivery_window`` deliveries waiting (no organization more than half while others
wait, handed out in turn as the catalog dispatcher claims), so a backlog never queues ahead of a
newcomer in Prefect; it hands a job over again when its delivery was never taken
(``redeliver_s``) and when the worker running it died (lease expired; that worker's task run is
marked ``Crashed``). The job id travels as a tag, so no shared parameter storage is needed.

Outages are waited out: the catalog calls retry (``assets.catalog.waits_out_outages``); a delivery
the Prefect API refused is taken back unspent while the feeder waits for the API; a task worker
whose connection to Prefect broke reconnects.
"""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from concurrent.futures import ThreadPoolExecutor
from uuid import UUID

import structlog
from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.context import TaskRunContext
from prefect.states import Completed, State

from assets import jobs as jobs_repo
from pipelines.dispatcher import Heartbeat, send_webhooks, wait_for_prefect
from pipelines.flows import job_tags, run_held_job, task_name
from pipelines.records import Job
from pipelines.usecases.runtime import Runtime, current

log = structlog.get_logger("docklake.delivery")

JOB_TAG = "job:"


class _Node:
    """The task worker this process runs (one per process)."""

    owner = ""
    heartbeat: Heartbeat | None = None
    finished: asyncio.Event | None = None


_node = _Node()


@task(name="docklake-job", cache_policy=NO_CACHE, persist_result=False)
async def delivered_job() -> State:
    """One delivered job, run by the task worker that received it (if nobody took it first)."""
    ctx = TaskRunContext.get()
    assert ctx is not None
    job_id = next((t.removeprefix(JOB_TAG) for t in ctx.task_run.tags if t.startswith(JOB_TAG)), None)
    if job_id is None:
        return Completed(message="skipped: no job:<id> tag", data="skipped")
    rt = current()
    job = await asyncio.to_thread(jobs_repo.take, rt.engine, _node.owner, job_id, rt.settings.worker.lease_s)
    if job is None:
        return Completed(message="skipped: taken through another delivery, finished or deleted", data="skipped")
    await asyncio.to_thread(jobs_repo.set_flow_run, rt.engine, _node.owner, [job.id], str(ctx.task_run.id))
    assert _node.heartbeat is not None
    _node.heartbeat.job_ids.add(job.id)
    try:
        return await run_held_job(job, _node.owner)
    finally:
        _node.heartbeat.job_ids.discard(job.id)
        if _node.finished is not None:
            _node.finished.set()


def deliver(job: Job) -> str:
    """Hand ``job`` to Prefect; the task run's id."""
    future = delivered_job.with_options(name=task_name(job), tags=[*job_tags(job), f"{JOB_TAG}{job.id}"]).delay()
    return str(future.task_run_id)


async def mark_crashed(task_run_ids: list[str]) -> None:
    """The task runs of workers that died holding a job: ``Crashed`` (Prefect would show them
    running forever). Best effort: the catalog is the truth."""
    from prefect.client.orchestration import get_client
    from prefect.states import Crashed

    async with get_client() as client:
        for run_id in task_run_ids:
            try:
                await client.set_task_run_state(
                    UUID(run_id), Crashed(message="its worker stopped; the job was handed over again"), force=True)
            except Exception as exc:  # noqa: BLE001
                log.warning("mark_crashed_failed", task_run_id=run_id, error=repr(exc))


class Feeder:
    """Hands pending jobs to Prefect, fairly and a window at a time."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self._stopping = asyncio.Event()
        self._last_org = ""

    def stop(self) -> None:
        self._stopping.set()

    async def feed_once(self) -> int:
        """One round: requeue the jobs of dead workers, then deliver what the window has room for.
        How many were delivered; raises when the Prefect API refused (the jobs are taken back)."""
        s = self.rt.settings.worker
        requeued = await asyncio.to_thread(jobs_repo.requeue_expired, self.rt.engine, s.max_attempts)
        if crashed := [r.run_id for r in requeued if r.run_id]:
            log.info("requeued_from_dead_workers", jobs=[r.job_id for r in requeued])
            await mark_crashed(crashed)
        waiting = await asyncio.to_thread(jobs_repo.delivered_waiting, self.rt.engine)
        room = max(1, s.delivery_window) - sum(waiting.values())
        if room <= 0:
            return 0
        batch = await asyncio.to_thread(
            jobs_repo.mark_for_delivery, self.rt.engine, room, s.redeliver_s, after_org=self._last_org,
            busy=waiting, per_org=max(1, s.delivery_window // 2))
        if not batch:
            return 0
        self._last_org = batch[-1].organization_id
        gate = asyncio.Semaphore(8)

        async def one(job: Job) -> str | None:
            async with gate:
                try:
                    await asyncio.to_thread(deliver, job)
                    return None
                except Exception as exc:  # noqa: BLE001 - the Prefect API away: take it back
                    log.warning("delivery_failed", job_id=job.id, error=repr(exc))
                    return job.id

        refused = [j for j in await asyncio.gather(*(one(j) for j in batch)) if j]
        if refused:
            await asyncio.to_thread(jobs_repo.undeliver, self.rt.engine, refused)
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
        from prefect.task_worker import TaskWorker

        limit = max(1, self.rt.settings.worker.max_in_flight)
        worker = TaskWorker(delivered_job, limit=limit)
        # TaskWorker would persist every run's result (a file per job); the catalog holds results
        worker.tasks = [delivered_job]
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
