"""Prefect flows: one flow run processes a batch of claimed jobs (one organization's, of one
dataset), in chunks of documents, one task run each (``flows.chunks``), with a task run per page
range when a large document is split.

A flow run costs 0.2–1.2 s and a task run about 18 ms of CPU, so the dispatcher batches and the
batch chunks; every document is still named in its chunk's run, its batch's report and, when it
failed, a failed run of its own. Flows only wire the stages.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection
from uuid import UUID, uuid4

import structlog
from prefect import flow
from prefect.runtime import flow_run
from prefect.states import Completed, State

from assets.catalog import jobs as jobs_repo
from pipelines.core.records import Job, JobStatus
from pipelines.flows.chunks import counted, flow_name, publish_batch_report, run_jobs
from pipelines.usecases.runtime import current

log = structlog.get_logger("docklake.flows")


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
    """Process ``jobs``, claimed by ``owner``, in chunks (a task run each), and those the
    ``feed`` (an open ``Feed``'s id) adds while they run. The flow run completes with a message counting the
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
