"""The catalog side of ``prefect`` delivery: which jobs the feeder hands to Prefect, in what
order, and how a worker takes one exactly once (SQLite here; PostgreSQL in
``test_prefect_delivery``)."""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
import time
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import text

from api.services import Services
from assets.catalog import deliveries
from tests.support.helpers import A, B


def submit(client: TestClient, n: int, headers: dict[str, str]) -> list[str]:
    return [client.post("/documents/v2/parse", json={"raw_text": f"doc {i}", "mime_type": "text/plain"},
                        headers=headers).json()["parse_id"] for i in range(n)]


def status(services: Services, job_id: str) -> tuple[str, int, str | None]:
    with services.engine.connect() as conn:
        row = conn.execute(text("SELECT status, attempts, lease_owner FROM jobs WHERE id = :i"), {"i": job_id}).one()
    return row[0], row[1], row[2]


def test_a_newcomer_is_delivered_in_the_next_round_not_behind_a_backlog(client: TestClient,
                                                                        services: Services) -> None:
    backlog = submit(client, 30, A)
    first = deliveries.mark_for_delivery(services.engine, 4, 60)
    assert [j.id for j in first] == backlog[:4]  # oldest first
    newcomer = submit(client, 1, B)[0]
    waiting = deliveries.delivered_waiting(services.engine)
    assert waiting == {"org-a": 4}
    # room for 4 more; organization a may have at most 4 waiting while b waits: b's job goes now
    more = deliveries.mark_for_delivery(services.engine, 4, 60, busy=waiting, per_org=4)
    assert [j.id for j in more] == [newcomer]
    # delivered jobs stay pending for the API until a worker takes them
    assert client.get(f"/documents/v2/parse/{newcomer}", headers=B).json()["status"] == "pending"


def test_a_job_is_taken_once_however_often_it_was_delivered(client: TestClient, services: Services) -> None:
    job_id = submit(client, 1, A)[0]
    assert [j.id for j in deliveries.mark_for_delivery(services.engine, 10, 0.2)] == [job_id]
    assert deliveries.mark_for_delivery(services.engine, 10, 0.2) == []  # its delivery is waiting
    time.sleep(0.3)
    # never taken (the task run was lost): delivered again once the delivery's lease ran out
    assert [j.id for j in deliveries.mark_for_delivery(services.engine, 10, 60)] == [job_id]
    [taken] = deliveries.take(services.engine, "worker-1", [job_id], 30)
    assert taken.attempts == 1 and taken.lease_owner == "worker-1"
    assert deliveries.take(services.engine, "worker-2", [job_id], 30) == []  # the second delivery
    assert status(services, job_id) == ("processing", 1, "worker-1")
    assert deliveries.mark_for_delivery(services.engine, 10, 60) == []


def test_a_dead_workers_job_is_requeued_then_given_up_after_max_attempts(client: TestClient,
                                                                         services: Services) -> None:
    job_id = submit(client, 1, A)[0]
    for attempt in (1, 2):
        assert len(deliveries.take(services.engine, f"worker-{attempt}", [job_id], 0.1)) == 1
        time.sleep(0.2)  # the worker died: its lease runs out
        requeued = deliveries.requeue_expired(services.engine, max_attempts=2)
        assert [(r.job_id, r.owner) for r in requeued] == [(job_id, f"worker-{attempt}")]
        if attempt == 1:
            assert status(services, job_id) == ("pending", 1, None)
    # taken twice and abandoned twice: it ends failure instead of killing a third worker
    got = client.get(f"/documents/v2/parse/{job_id}", headers=A).json()
    assert got["status"] == "failure" and "abandoned by its worker 2 times" in got["error"]


def test_a_delivery_the_prefect_api_refused_is_taken_back(client: TestClient, services: Services) -> None:
    job_id = submit(client, 1, A)[0]
    deliveries.mark_for_delivery(services.engine, 1, 60)
    assert deliveries.undeliver(services.engine, [job_id]) == 1
    assert status(services, job_id) == ("pending", 0, None)
    assert [j.id for j in deliveries.mark_for_delivery(services.engine, 1, 60)] == [job_id]


def test_a_delivery_reaches_workers_that_load_the_code_from_another_path(client: TestClient, services: Services,
                                                                         prefect_api: str, tmp_path: Path) -> None:
    """Prefect routes a delivered run by its task key, which it derives from the code object
    and so from the file's path: a feeder and a worker installed in different places (in the
    image, `serve`'s feeder ran the checkout's copy and the workers the installed one) must
    still agree on it."""
    import httpx
    from prefect.task_worker import TaskWorker

    from pipelines.flows import delivery

    copy = tmp_path / "elsewhere" / "delivery.py"
    copy.parent.mkdir()
    shutil.copy(delivery.__file__, copy)
    spec = importlib.util.spec_from_file_location("delivery_elsewhere", copy)
    assert spec and spec.loader
    elsewhere = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(elsewhere)

    async def subscribed_keys() -> set[str]:
        return TaskWorker(elsewhere.delivered_jobs).task_keys

    job_id = submit(client, 1, A)[0]
    (job,) = deliveries.mark_for_delivery(services.engine, 1, 60)
    run_id = delivery.deliver([job])
    made = httpx.get(f"{prefect_api}/task_runs/{run_id}", timeout=30).json()
    assert made["task_key"] in asyncio.run(subscribed_keys()), (made["task_key"], job_id)
