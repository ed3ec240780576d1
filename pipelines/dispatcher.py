"""The dispatcher: claims pending jobs from the catalog and runs them through Prefect.

One loop per worker process. It claims a batch (with a lease), starts one flow run for the batch
and keeps the leases alive from a heartbeat thread while the flow runs, so a worker that dies
simply lets its leases expire and another (or the restarted) worker reclaims the jobs.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import uuid

import structlog

from assets import jobs as jobs_repo
from pipelines.flows import mark_abandoned, process_jobs
from pipelines.usecases.runtime import Runtime

log = structlog.get_logger("docklake.dispatcher")


class Heartbeat(threading.Thread):
    def __init__(self, rt: Runtime, owner: str) -> None:
        super().__init__(name="docklake-heartbeat", daemon=True)
        self.rt, self.owner = rt, owner
        self.job_ids: list[str] = []
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


class Dispatcher:
    def __init__(self, rt: Runtime, owner: str | None = None) -> None:
        self.rt = rt
        self.owner = owner or f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        self._stopping.set()

    async def run_once(self) -> int:
        s = self.rt.settings
        batch = await asyncio.to_thread(jobs_repo.claim, self.rt.engine, self.owner,
                                        s.worker.batch_size, s.worker.lease_s, s.worker.max_attempts)
        if not batch:
            return 0
        hb = Heartbeat(self.rt, self.owner)
        hb.job_ids = [j.id for j in batch]
        hb.start()
        try:
            pairs = [(j.id, j.kind.value) for j in batch]
            log.info("batch_claimed", owner=self.owner, jobs=[j for j, _ in pairs])
            abandoned = {j.flow_run_id for j in batch if j.attempts > 1 and j.flow_run_id}
            if abandoned:
                await mark_abandoned(abandoned)
            await process_jobs(pairs, self.owner, first_job=pairs[0][0])
        except Exception as exc:  # noqa: BLE001 - the flow failed as a whole; leases will expire
            log.error("flow_failed", error=repr(exc))
        finally:
            hb.stop()
        return len(batch)

    async def run_forever(self) -> None:
        log.info("dispatcher_started", owner=self.owner)
        while not self._stopping.is_set():
            n = await self.run_once()
            if n == 0:
                try:
                    await asyncio.wait_for(self._stopping.wait(), self.rt.settings.worker.poll_s)
                except TimeoutError:
                    pass
        released = jobs_repo.release(self.rt.engine, self.owner)
        log.info("dispatcher_stopped", owner=self.owner, released=released)
