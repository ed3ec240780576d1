"""A worker's catalog calls wait out a dropped catalog: each call made while PostgreSQL is away
(behind a forwarder the test cuts) returns once it is back, its change made once."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from sqlalchemy import Engine

from assets.catalog import jobs as jobs_repo
from assets.catalog.db import make_engine, migrate
from tests.support.catalog_rows import make_job, row
from tests.support.forwarder import Forwarder
from tests.support.postgres import admin_execute

pytestmark = pytest.mark.postgres


@pytest.fixture
def away(postgres_url: str) -> Iterator[tuple[Engine, Forwarder]]:
    """A migrated catalog reached through a forwarder the test can cut."""
    db = "t_" + secrets.token_hex(8)
    admin_execute(postgres_url, f"CREATE DATABASE {db}")
    pg = urlsplit(postgres_url.replace("postgresql+psycopg", "http"))
    fw = Forwarder(pg.hostname or "127.0.0.1", pg.port or 5432).start()
    engine = make_engine(postgres_url.rsplit("/", 1)[0].replace(f":{pg.port}", f":{fw.port}") + "/" + db)
    migrate(engine)
    try:
        yield engine, fw
    finally:
        engine.dispose()
        fw.cut()
        admin_execute(postgres_url, f"DROP DATABASE {db} WITH (FORCE)")


CALLS: dict[str, Callable[[Engine, str], Any]] = {
    "set_flow_run": lambda e, job_id: jobs_repo.set_flow_run(e, "w1", [job_id], "run-1"),
    "get_jobs_by_ids": lambda e, job_id: jobs_repo.get_jobs_by_ids(e, [job_id]),
    "renew": lambda e, job_id: jobs_repo.renew(e, "w1", [job_id], 60),
    "finish": lambda e, job_id: jobs_repo.finish(e, "w1", job_id, 1, status="successful", error=None,
                                                 result_key="results/x", total_pages=1, parsed_pages_count=1),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_worker_s_catalog_call_waits_out_the_catalog_away(away: tuple[Engine, Forwarder], call: str) -> None:
    engine, fw = away
    job = make_job(engine)
    assert [j.id for j in jobs_repo.claim(engine, "w1", limit=1, lease_s=60)] == [job.id]
    engine.dispose()  # (the pool's connections go with the outage)
    fw.cut()
    got: dict[str, Any] = {}

    def run() -> None:
        try:
            got["value"] = CALLS[call](engine, job.id)
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            got["error"] = exc
    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(1.5)
    assert worker.is_alive(), f"{call} returned while the catalog was away: {got}"
    fw.restore()
    worker.join(30)
    assert not worker.is_alive() and "error" not in got, got
    after = row(engine, job.id)
    if call == "set_flow_run":
        assert after.flow_run_id == "run-1"
    if call == "finish":
        assert got["value"] is True and after.status == "successful"
    if call == "get_jobs_by_ids":
        assert list(got["value"]) == [job.id]
