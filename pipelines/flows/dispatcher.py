"""The dispatcher: claims pending jobs from the catalog and runs them through Prefect.

One per worker process. It keeps up to ``worker.max_in_flight`` jobs running and claims more as
soon as any finishes, instead of waiting for a whole batch: a slow or huge document holds its own
slot, never the queue. Claims are shared between organizations in turn (``assets.catalog.jobs.claim``),
an organization gets at most half of the worker's room, and conversion processes are handed out
fairly as well (``isolation.FairSlots``). A claim's jobs of one organization and dataset run as
one Prefect flow run (one task run per chunk of documents, ``flows.chunks``), and later claims of the same organization and
dataset join that run while it is open (``flows.Feed``), so documents arriving one at a time
share a flow run as a batch does.

The catalog lease is the exactly-once guard: a heartbeat thread renews the leases of every job in
flight, so a worker that dies simply lets them expire and another (or the restarted) worker
claims them again; a job is closed only by the worker that still holds it.

Outages are waited out, never counted against a job: the catalog calls retry for up to two
minutes (``assets.catalog.db.waits_out_outages``) and the loop survives longer ones; a batch whose
flow run could not be started or kept (the Prefect API away) hands its unfinished jobs back
without spending their attempts, and claiming pauses until the Prefect API answers again.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
import structlog
from prefect import tags

from assets.catalog import jobs as jobs_repo
from assets.catalog import webhooks as webhooks_repo
from assets.storage import Storage
from pipelines.core.records import Job
from pipelines.flows.chunks import flow_name
from pipelines.flows.documents import Feed, mark_abandoned, process_jobs, worker_tag
from pipelines.usecases import webhooks
from pipelines.usecases.runtime import Runtime

log = structlog.get_logger("docklake.dispatcher")


class Heartbeat(threading.Thread):
    """Renews the leases of the jobs in ``job_ids`` every third of a lease."""

    def __init__(self, rt: Runtime, owner: str) -> None:
        super().__init__(name="docklake-heartbeat", daemon=True)
        self.rt, self.owner = rt, owner
        self.job_ids: set[str] = set()
        self._stop_evt = threading.Event()

    def run(self) -> None:
        interval = max(0.5, self.rt.settings.worker.lease_s / 3)
        while not self._stop_evt.wait(interval):
            ids = list(self.job_ids)
            if ids:
                try:
                    jobs_repo.renew(self.rt.engine, self.owner, ids, self.rt.settings.worker.lease_s)
                except Exception as exc:  # noqa: BLE001 - keep beating through a catalog hiccup
                    log.warning("lease_renew_failed", error=str(exc))

    def stop(self) -> None:
        self._stop_evt.set()


async def send_webhooks(rt: Runtime, owner: str, stopping: asyncio.Event, finished: asyncio.Event) -> None:
    """Send due webhook events until ``stopping`` (``finished``, set when a job ends, wakes it)."""
    while not stopping.is_set():
        try:
            sent = await asyncio.to_thread(webhooks.deliver_due, rt, owner)
        except Exception as exc:  # noqa: BLE001 - a catalog hiccup: try again later
            log.warning("webhook_delivery_failed", error=repr(exc))
            sent = 0
        if not sent:
            finished.clear()
            try:
                await asyncio.wait_for(finished.wait(), max(1.0, rt.settings.worker.poll_s))
            except TimeoutError:
                pass


async def wait_for_prefect(url: str, stopping: asyncio.Event) -> None:
    """Probe the Prefect API's health (backing off up to 10 s) until it answers or ``stopping``."""
    delay = 1.0
    async with httpx.AsyncClient(timeout=5.0) as client:
        while not stopping.is_set():
            try:
                if (await client.get(url.rstrip("/") + "/health")).status_code == 200:
                    log.info("orchestrator_back", url=url)
                    return
            except httpx.HTTPError:
                pass
            log.warning("orchestrator_unreachable", url=url, retry_in_s=delay)
            try:
                await asyncio.wait_for(stopping.wait(), delay)
            except TimeoutError:
                pass
            delay = min(10.0, delay * 2)


async def wait_for_storage(storage: Storage, stopping: asyncio.Event) -> None:
    """Probe the object store (backing off up to 10 s) until it answers or ``stopping``."""
    delay = 1.0
    while not stopping.is_set() and not await asyncio.to_thread(storage.reachable):
        log.warning("storage_unreachable", url=storage.url, retry_in_s=delay)
        try:
            await asyncio.wait_for(stopping.wait(), delay)
        except TimeoutError:
            pass
        delay = min(10.0, delay * 2)


def by_organization(batch: list[Job]) -> list[list[Job]]:
    """One flow run per organization: a flow run's tags reach its task runs, so a run shared by
    two organizations would show each one's documents under the other's tag."""
    parts: dict[str, list[Job]] = {}
    for job in batch:
        parts.setdefault(job.organization_id, []).append(job)
    return list(parts.values())


def feed_key(job: Job) -> tuple[str, str]:
    """The jobs that may share a flow run: one organization's, of one dataset (or of none), so
    the run's tags and name say exactly whose and which."""
    return job.organization_id, job.dataset_id or ""


def by_feed(batch: list[Job]) -> list[list[Job]]:
    parts: dict[tuple[str, str], list[Job]] = {}
    for job in batch:
        parts.setdefault(feed_key(job), []).append(job)
    return list(parts.values())


class Dispatcher:
    def __init__(self, rt: Runtime, owner: str | None = None) -> None:
        self.rt = rt
        self.owner = owner or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self._stopping = asyncio.Event()
        self._wake = asyncio.Event()
        self._events = asyncio.Event()  # a batch ended: webhook events may be waiting
        self._enqueued_seen = 0
        self._in_flight: dict[str, str] = {}  # job id → organization
        self._last_org = ""
        self._batches: set[asyncio.Task[None]] = set()
        self._feeds: dict[tuple[str, str], Feed] = {}  # the open flow runs, by feed_key
        self._heartbeat: Heartbeat | None = None
        self._orchestrator_down = False

    @property
    def max_in_flight(self) -> int:
        return max(1, self.rt.settings.worker.max_in_flight)

    @property
    def min_claim(self) -> int:
        """While jobs run, claim once this much room is free, not one slot at a time: a chunk
        holds what one claim brought, and a task run costs the worker and the Prefect server
        about 14 ms, more than a small document's conversion. Half the room: the other half
        still queued keeps the conversion processes busy while the claim is made. A newcomer
        organization's job is still claimed at once."""
        return max(1, self.max_in_flight // 2)

    async def _newcomer_waiting(self) -> bool:
        if not self._in_flight:
            return True
        return await asyncio.to_thread(jobs_repo.others_waiting, self.rt.engine, set(self._in_flight.values()))

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()

    def _prepare_loop(self) -> None:
        """Threads for the blocking steps of every job in flight (each may wait for a child slot;
        the loop's default pool has only a few), and the heartbeat."""
        loop = asyncio.get_running_loop()
        if getattr(loop, "_docklake_executor", None) is None:
            pool = ThreadPoolExecutor(max_workers=2 * self.max_in_flight + 8, thread_name_prefix="docklake-job")
            loop.set_default_executor(pool)
            loop._docklake_executor = pool  # type: ignore[attr-defined]
        if self._heartbeat is None:
            self._heartbeat = Heartbeat(self.rt, self.owner)
            self._heartbeat.start()

    def _stop_heartbeat(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.stop()
            self._heartbeat = None

    async def _claim(self, room: int) -> list[Job]:
        """Up to ``room`` jobs: first fairly (no organization over half the room), then, if room
        is left because nobody else is waiting, more for whoever is, but never the last slot: a
        newcomer's job is claimed as soon as it arrives."""
        s = self.rt.settings.worker
        want = min(room, s.batch_size)
        busy: dict[str, int] = {}
        for org in self._in_flight.values():
            busy[org] = busy.get(org, 0) + 1
        batch: list[Job] = []
        for per_org in (max(1, self.max_in_flight // 2), max(1, self.max_in_flight - 1)):
            more = await asyncio.to_thread(
                jobs_repo.claim, self.rt.engine, self.owner, want - len(batch), s.lease_s, s.max_attempts,
                after_org=self._last_org, busy=busy, per_org=per_org, holding=list(self._in_flight))
            batch += more
            for j in more:
                busy[j.organization_id] = busy.get(j.organization_id, 0) + 1
            if len(batch) >= want:
                break
        if batch:
            self._last_org = batch[-1].organization_id
            for j in batch:
                self._in_flight[j.id] = j.organization_id
            assert self._heartbeat is not None
            self._heartbeat.job_ids.update(j.id for j in batch)
        return batch

    def _job_done(self, job_id: str) -> None:
        """A job's task run ended: its room is free (its lease, if it is still held, is kept
        renewed until its flow run ends)."""
        self._in_flight.pop(job_id, None)
        self._wake.set()
        if webhooks_repo.enqueued[0] != self._enqueued_seen:  # only when a delivery was queued
            self._enqueued_seen = webhooks_repo.enqueued[0]
            self._events.set()

    def _dispatch(self, part: list[Job]) -> None:
        """Hand ``part`` (one organization's jobs of one dataset) to the open flow run of its
        organization and dataset, or start one. Jobs claimed again after their worker died start
        a run of their own, which marks the dead worker's runs first."""
        key = feed_key(part[0])
        open_feed = self._feeds.get(key)
        reclaimed = any(j.attempts > 1 or j.reclaimed_from for j in part)
        if open_feed is not None and not reclaimed and open_feed.offer(part):
            log.info("batch_joined", owner=self.owner, jobs=[j.id for j in part])
            return
        feed = Feed(part, done=self._job_done)
        self._feeds[key] = feed
        task = asyncio.create_task(self._run_batch(part, feed))
        self._batches.add(task)
        task.add_done_callback(self._batches.discard)

    async def _run_batch(self, batch: list[Job], feed: Feed) -> None:
        try:
            log.info("batch_claimed", owner=self.owner, jobs=[j.id for j in batch])
            abandoned = {j.flow_run_id for j in batch if j.attempts > 1 and j.flow_run_id}
            dead = {j.reclaimed_from for j in batch if j.reclaimed_from}
            if abandoned or dead:
                await mark_abandoned(abandoned, dead)
            orgs = {f"org:{j.organization_id}" for j in batch}
            datasets = {f"dataset:{j.dataset_name or j.dataset_id}" for j in batch if j.dataset_name or j.dataset_id}
            with tags(worker_tag(self.owner), *orgs, *datasets):
                await process_jobs(batch, self.owner, label=flow_name(batch), feed=feed.id if feed.open else "")
        except Exception as exc:  # noqa: BLE001
            # process_jobs turns every document's failure into its job's outcome: what escapes is
            # the orchestrator's (its API unreachable or failing). The documents not finished go
            # back to pending with their attempt unspent, and claiming waits for the API.
            feed.close()
            handed_back = await asyncio.to_thread(jobs_repo.release_jobs, self.rt.engine, self.owner,
                                                  [j.id for j in feed.jobs])
            self._orchestrator_down = True
            log.error("flow_failed", error=repr(exc), handed_back=handed_back)
        else:
            # a job whose task run never got to run it (the Prefect API away as it started) is
            # still held: hand it back unspent
            if handed_back := await asyncio.to_thread(jobs_repo.release_jobs, self.rt.engine, self.owner,
                                                      [j.id for j in feed.jobs]):
                self._orchestrator_down = True
                log.warning("jobs_handed_back", handed_back=handed_back)
        finally:
            feed.close()
            if self._feeds.get(feed_key(batch[0])) is feed:
                del self._feeds[feed_key(batch[0])]
            for j in feed.jobs:
                self._in_flight.pop(j.id, None)
                if self._heartbeat is not None:
                    self._heartbeat.job_ids.discard(j.id)
            self._wake.set()
            self._events.set()

    async def run_once(self) -> int:
        """Claim one batch and run it to the end, then send the webhook events that are due; how
        many jobs it held (tests, tools)."""
        self._prepare_loop()
        try:
            batch = await self._claim(self.max_in_flight)
            # one flow run per organization and dataset, taking nothing later
            await asyncio.gather(*(self._run_batch(part, Feed(part, open_=False)) for part in by_feed(batch)))
            await asyncio.to_thread(webhooks.deliver_due, self.rt, self.owner)
        finally:
            self._stop_heartbeat()
        return len(batch)

    async def _wait_for_orchestrator(self) -> None:
        """After jobs were handed back (a flow run could not be started, or the object store was
        away): wait for the Prefect API and the store before claiming again."""
        await wait_for_prefect(self.rt.settings.effective_prefect_api_url, self._stopping)
        await wait_for_storage(self.rt.storage, self._stopping)
        self._orchestrator_down = False

    async def run_forever(self) -> None:
        self._prepare_loop()
        log.info("dispatcher_started", owner=self.owner, max_in_flight=self.max_in_flight)
        poll = self.rt.settings.worker.poll_s
        sender = asyncio.create_task(send_webhooks(self.rt, self.owner, self._stopping, self._events))
        try:
            while not self._stopping.is_set():
                self._wake.clear()
                if self._orchestrator_down:
                    await self._wait_for_orchestrator()
                    continue
                room = self.max_in_flight - len(self._in_flight)
                try:
                    if 0 < room < self.min_claim and not await self._newcomer_waiting():
                        room = 0  # wait for a larger claim: it makes larger chunks (flows.chunks)
                    batch = await self._claim(room) if room > 0 else []
                except Exception as exc:  # noqa: BLE001 - the catalog away longer than the retries
                    log.error("claim_failed", error=repr(exc))
                    try:
                        await asyncio.wait_for(self._stopping.wait(), 5.0)
                    except TimeoutError:
                        pass
                    continue
                if batch:
                    for part in by_feed(batch):
                        self._dispatch(part)
                    continue  # there may be more room, and more waiting
                try:
                    await asyncio.wait_for(self._wake.wait(), poll)
                except TimeoutError:
                    pass
        finally:
            try:
                released = jobs_repo.release(self.rt.engine, self.owner)
            except Exception as exc:  # noqa: BLE001 - their leases expire instead
                released = 0
                log.error("release_failed", error=repr(exc))
            sender.cancel()
            for task in list(self._batches):
                task.cancel()
            self._stop_heartbeat()
            log.info("dispatcher_stopped", owner=self.owner, released=released)
