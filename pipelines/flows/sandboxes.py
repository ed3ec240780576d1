"""The sandboxes' background lifecycle steps (snapshot, suspend, resume, restart, terminate) as
Prefect task runs: each shows in the Prefect UI under its own name (``suspend-<sandbox id>``),
with its state and duration. Creating a sandbox and proxying to it stay off Prefect: there its
bookkeeping would cost more than the step itself."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from prefect import task
from prefect.cache_policies import NO_CACHE

from pipelines.usecases.sandboxes import Runner


def prefect_runner(max_workers: int = 8) -> Runner:
    pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="sandbox-task")

    def run(name: str, fn: Callable[[], None]) -> Future:
        kind = name.split("-", 1)[0]
        step = task(fn, name=f"sandbox-{kind}", task_run_name=name, cache_policy=NO_CACHE,
                    tags=["sandbox", f"sandbox-{kind}"], retries=0)
        return pool.submit(step)

    return run
