"""Outages are waited out, never counted against a job: a standalone ``docklake worker`` on a
PostgreSQL catalog keeps going through a Prefect API that is away for longer than three lease
periods and through a dropped catalog, and every job ends ``successful`` exactly once."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from api.app import create_app
from api.services import Services
from pipelines.core.settings import Settings
from tests.support.forwarder import Forwarder
from tests.support.helpers import API_KEYS, A
from tests.support.postgres import admin_execute

ROOT = Path(__file__).resolve().parents[2]
LEASE_S = 4


def submit(client: TestClient, n: int, tag: str) -> list[str]:
    ids = []
    for i in range(n):
        r = client.post("/documents/v2/parse", json={"raw_text": f"{tag} document {i}", "mime_type": "text/plain"},
                        headers=A)
        assert r.status_code == 200, r.text
        ids.append(r.json()["parse_id"])
    return ids


def statuses(services: Services, ids: list[str]) -> dict[str, tuple[str, int, str | None]]:
    with services.engine.connect() as conn:
        rows = conn.execute(text("SELECT id, status, attempts, error FROM jobs")).all()
    return {r[0]: (r[1], r[2], r[3]) for r in rows if r[0] in ids}


def wait_done(services: Services, ids: list[str], timeout: float) -> dict[str, tuple[str, int, str | None]]:
    deadline = time.monotonic() + timeout
    while True:
        now = statuses(services, ids)
        if all(s in ("successful", "failure") for s, _, _ in now.values()) and len(now) == len(ids):
            return now
        assert time.monotonic() < deadline, f"not all done: {sorted(set(s for s, _, _ in now.values()))}"
        time.sleep(0.5)


def start_worker(env: dict[str, str], log_path: Path) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
    """A standalone ``docklake worker`` with ``env``, its output in ``log_path``."""
    log = open(log_path, "wb")
    worker = subprocess.Popen([sys.executable, "-m", "api.cli.main", "worker"], cwd=ROOT, env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    return worker, log


def stop_worker(worker: subprocess.Popen[bytes], log: IO[bytes]) -> None:
    worker.terminate()
    try:
        worker.wait(30)
    except subprocess.TimeoutExpired:
        worker.kill()
    log.close()


def test_a_worker_waits_out_prefect_and_catalog_outages(postgres_url: str, prefect_api: str, tmp_path: Path) -> None:
    admin_execute(postgres_url.rsplit("/", 1)[0] + "/postgres", "CREATE DATABASE outages")
    catalog = postgres_url.rsplit("/", 1)[0] + "/outages"
    pg = urlsplit(catalog.replace("postgresql+psycopg", "http"))
    prefect = urlsplit(prefect_api)
    pg_fw = Forwarder(pg.hostname, pg.port).start()
    prefect_fw = Forwarder(prefect.hostname, prefect.port).start()

    storage = f"file://{tmp_path / 'storage'}"
    settings = Settings(data_dir=tmp_path / "api", api_keys=API_KEYS, prefect={"api_url": prefect_api},
                        storage={"url": storage, "catalog_url": catalog})
    services = Services.build(settings)  # migrates the fresh database
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "DOCKLAKE_"))}
    env.update(DOCKLAKE_DATA_DIR=str(tmp_path / "worker"), DOCKLAKE_API_KEYS=API_KEYS,
               DOCKLAKE_STORAGE__URL=storage,
               DOCKLAKE_STORAGE__CATALOG_URL=catalog.replace(f":{pg.port}/", f":{pg_fw.port}/"),
               DOCKLAKE_PREFECT__API_URL=f"http://127.0.0.1:{prefect_fw.port}/api",
               DOCKLAKE_WORKER__LEASE_S=str(LEASE_S), DOCKLAKE_LOG_JSON="false")
    worker, log = start_worker(env, tmp_path / "worker.log")
    try:
        with TestClient(create_app(services=services)) as client:
            first = submit(client, 5, "before")
            wait_done(services, first, 120)

            # the Prefect API away for more than three leases: jobs claimed meanwhile must not
            # be spent by failing to start their flow runs
            prefect_fw.cut()
            during = submit(client, 8, "prefect-away")
            time.sleep(4 * LEASE_S)
            assert worker.poll() is None, "the worker exited during the Prefect outage"
            prefect_fw.restore()
            wait_done(services, during, 180)

            # the catalog dropped for a while, with jobs in flight
            more = submit(client, 8, "catalog-away")
            time.sleep(0.5)
            pg_fw.cut()
            time.sleep(8)
            assert worker.poll() is None, "the worker exited during the catalog outage"
            pg_fw.restore()
            done = wait_done(services, first + during + more, 180)
        assert worker.poll() is None
        failed = {i: s for i, s in done.items() if s[0] != "successful"}
        assert failed == {}, f"jobs lost to outages: {failed}\n{(tmp_path / 'worker.log').read_text()[-3000:]}"
        groups = {**{i: "before" for i in first}, **{i: "prefect" for i in during}, **{i: "catalog" for i in more}}
        spent = [(groups[i], a) for i, (_, a, _) in done.items() if a != 1]
        assert spent == [], f"outages spent attempts: {spent}\n{(tmp_path / 'worker.log').read_text()[-6000:]}"
    finally:
        stop_worker(worker, log)
        services.close()
        pg_fw.cut()
        prefect_fw.cut()


def test_two_workers_share_a_batch_on_s3_and_postgres_and_survive_a_kill(postgres_url: str, prefect_api: str,
                                                                         tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The multi-machine path on one machine: the API and two ``docklake worker`` processes on
    a PostgreSQL catalog and an S3-compatible store (moto's server); ``kill -9`` of one worker
    mid-batch loses no job and finishes none twice, and the results are in the bucket."""
    import signal

    import boto3
    import s3fs
    from moto.server import ThreadedMotoServer

    from tests.support.helpers import free_port

    port = free_port()
    s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    s3.start()
    aws = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "docklake",
           "AWS_SECRET_ACCESS_KEY": "docklake", "AWS_DEFAULT_REGION": "us-east-1"}
    for k, v in aws.items():
        monkeypatch.setenv(k, v)
    s3fs.S3FileSystem.clear_instance_cache()  # fsspec keeps instances, with the endpoint they read
    boto3.client("s3").create_bucket(Bucket="docklake-scale")
    storage = "s3://docklake-scale/data"
    admin_execute(postgres_url.rsplit("/", 1)[0] + "/postgres", "CREATE DATABASE scaleout")
    catalog = postgres_url.rsplit("/", 1)[0] + "/scaleout"
    services = Services.build(Settings(data_dir=tmp_path / "api", api_keys=API_KEYS, prefect={"api_url": prefect_api},
                                       storage={"url": storage, "catalog_url": catalog}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "DOCKLAKE_"))}
    env.update(aws, DOCKLAKE_API_KEYS=API_KEYS, DOCKLAKE_STORAGE__URL=storage, DOCKLAKE_STORAGE__CATALOG_URL=catalog,
               DOCKLAKE_PREFECT__API_URL=prefect_api, DOCKLAKE_WORKER__LEASE_S=str(LEASE_S),
               DOCKLAKE_WORKER__MAX_IN_FLIGHT="4", DOCKLAKE_LOG_JSON="false")
    workers = []
    for name in ("one", "two"):
        log = open(tmp_path / f"worker-{name}.log", "wb")
        workers.append(subprocess.Popen([sys.executable, "-m", "api.cli.main", "worker"], cwd=ROOT,
                                        env={**env, "DOCKLAKE_DATA_DIR": str(tmp_path / name)}, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True))
    try:
        def log_of(name: str) -> bytes:
            return (tmp_path / f"worker-{name}.log").read_bytes()

        # both dispatchers up before the batch, or the first one up may run all of it alone
        deadline = time.monotonic() + 180
        while not all(b"dispatcher_started" in log_of(n) for n in ("one", "two")):
            assert time.monotonic() < deadline, {n: log_of(n)[-2000:] for n in ("one", "two")}
            time.sleep(0.2)
        with TestClient(create_app(services=services)) as client:
            ids = submit(client, 40, "scale")

            def held_by(worker: subprocess.Popen[bytes]) -> list[str]:
                with services.engine.connect() as conn:
                    return [r[0] for r in conn.execute(text(
                        "SELECT id FROM jobs WHERE status = 'processing' AND lease_owner LIKE :me"),
                        {"me": f"%-{worker.pid}-%"}).all()]

            def finished_by(name: str) -> int:
                return log_of(name).count(b"job_finished")

            def seen() -> str:  # what a failed wait saw, short enough to be read whole
                with services.engine.connect() as conn:
                    rows = conn.execute(text("SELECT status, lease_owner, count(*) FROM jobs "
                                             "GROUP BY status, lease_owner")).all()
                return f"jobs by status and owner {rows}; finished one {finished_by('one')}, two {finished_by('two')}"

            # both at work (one has finished a job, two has finished or holds one), and the one
            # to lose holds some. A loaded machine is slow, so the wait is long; it fails at once
            # if the batch ends first, since a kill then tests nothing.
            deadline = time.monotonic() + 300
            while not (finished_by("one") and (finished_by("two") or held_by(workers[1])) and held_by(workers[0])):
                assert time.monotonic() < deadline, seen()
                ended = [s for s, _, _ in statuses(services, ids).values() if s in ("successful", "failure")]
                assert len(ended) < len(ids), f"the batch ended first: {seen()}"
                time.sleep(0.05)
            os.killpg(workers[0].pid, signal.SIGKILL)  # a host lost mid-batch, children and all
            # what it held (nobody takes it over before its lease runs out)
            held = held_by(workers[0])
            workers[0].wait(10)
            done = wait_done(services, ids, 240)
        assert {s for s, _, _ in done.values()} == {"successful"}, done
        assert all(attempts in (1, 2) for _, attempts, _ in done.values())
        # what the dead worker held was done again by the other, once: its attempt counted
        assert all(done[i][1] == 2 for i in held), {i: done[i] for i in held}
        with services.engine.connect() as conn:
            owners = {r[0] for r in conn.execute(text("SELECT DISTINCT lease_owner FROM jobs")).all()}
        assert owners == {None}  # every lease given up: nothing held by the dead worker
        keys = [o["Key"] for o in boto3.client("s3").list_objects_v2(Bucket="docklake-scale", MaxKeys=1000)["Contents"]]
        for job_id in ids:
            assert any(job_id in k and k.endswith("document.parquet") for k in keys), f"no result of {job_id} in the bucket"
    finally:
        for w in workers:
            if w.poll() is None:
                w.terminate()
                try:
                    w.wait(30)
                except subprocess.TimeoutExpired:
                    w.kill()
        services.close()
        s3.stop()
        s3fs.S3FileSystem.clear_instance_cache()


def test_a_worker_waits_out_the_object_store_and_hands_back_what_it_cannot_run(
        postgres_url: str, prefect_api: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The object store unreachable from the worker: a short outage is waited out inside the
    job; a longer one than ``storage.outage_wait_s`` hands the job back unspent, and the worker
    waits for the store before claiming again. No job fails, none spends an attempt."""
    import boto3
    import s3fs
    from moto.server import ThreadedMotoServer

    from tests.support.helpers import free_port

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    for k, v in {"AWS_ACCESS_KEY_ID": "docklake", "AWS_SECRET_ACCESS_KEY": "docklake",
                 "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}"}.items():
        monkeypatch.setenv(k, v)
    s3fs.S3FileSystem.clear_instance_cache()
    boto3.client("s3").create_bucket(Bucket="docklake-outage")
    store_fw = Forwarder("127.0.0.1", port).start()  # the worker's way to the store
    admin_execute(postgres_url.rsplit("/", 1)[0] + "/postgres", "CREATE DATABASE store_outages")
    catalog = postgres_url.rsplit("/", 1)[0] + "/store_outages"
    storage = "s3://docklake-outage/data"
    settings = Settings(data_dir=tmp_path / "api", api_keys=API_KEYS, prefect={"api_url": prefect_api},
                        storage={"url": storage, "catalog_url": catalog})
    services = Services.build(settings)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "DOCKLAKE_"))}
    env.update(DOCKLAKE_DATA_DIR=str(tmp_path / "worker"), DOCKLAKE_API_KEYS=API_KEYS,
               DOCKLAKE_STORAGE__URL=storage, DOCKLAKE_STORAGE__CATALOG_URL=catalog,
               DOCKLAKE_STORAGE__OUTAGE_WAIT_S="8", AWS_ENDPOINT_URL=f"http://127.0.0.1:{store_fw.port}",
               DOCKLAKE_PREFECT__API_URL=prefect_api, DOCKLAKE_WORKER__LEASE_S=str(LEASE_S),
               DOCKLAKE_LOG_JSON="false")
    worker, log = start_worker(env, tmp_path / "worker.log")
    try:
        with TestClient(create_app(services=services)) as client:
            first = submit(client, 3, "before")
            wait_done(services, first, 120)

            # away for a moment: the jobs wait inside their conversions and finish
            store_fw.cut()
            brief = submit(client, 4, "store-blinks")
            time.sleep(3)
            store_fw.restore()
            wait_done(services, brief, 120)
            assert b"job_handed_back_storage_unreachable" not in (tmp_path / "worker.log").read_bytes()

            # away for longer than the worker waits: handed back, run once it is back
            store_fw.cut()
            long = submit(client, 4, "store-away")
            time.sleep(25)
            assert worker.poll() is None, "the worker exited during the object store outage"
            held = statuses(services, long)
            store_fw.restore()
            done = wait_done(services, first + brief + long, 180)
        worker_log = (tmp_path / "worker.log").read_text()
        assert worker.poll() is None
        assert {s for s, _, _ in held.values()} <= {"pending", "processing"}, held
        assert "job_handed_back_storage_unreachable" in worker_log, worker_log[-3000:]
        failed = {i: s for i, s in done.items() if s[0] != "successful"}
        assert failed == {}, f"jobs lost to the outage: {failed}\n{worker_log[-3000:]}"
        spent = {i: a for i, (_, a, _) in done.items() if a != 1}
        assert spent == {}, f"the outage spent attempts: {spent}\n{worker_log[-3000:]}"
    finally:
        stop_worker(worker, log)
        services.close()
        store_fw.cut()
        server.stop()
        s3fs.S3FileSystem.clear_instance_cache()


def test_the_api_answers_503_while_the_catalog_is_away(postgres_url: str, prefect_api: str, tmp_path: Path) -> None:
    admin_execute(postgres_url.rsplit("/", 1)[0] + "/postgres", "CREATE DATABASE api_outage")
    catalog = postgres_url.rsplit("/", 1)[0] + "/api_outage"
    pg = urlsplit(catalog.replace("postgresql+psycopg", "http"))
    fw = Forwarder(pg.hostname, pg.port).start()
    settings = Settings(data_dir=tmp_path, api_keys=API_KEYS, prefect={"api_url": prefect_api},
                        storage={"url": f"file://{tmp_path / 'storage'}",
                                 "catalog_url": catalog.replace(f":{pg.port}/", f":{fw.port}/")})
    services = Services.build(settings)
    try:
        with TestClient(create_app(services=services)) as client:
            assert client.get("/documents/v2/files", headers=A).status_code == 200
            fw.cut()
            r = client.get("/documents/v2/files", headers=A)
            assert r.status_code == 503 and r.json()["code"] == "SERVICE_UNAVAILABLE", r.text
            assert r.headers["retry-after"] == "5"
            fw.restore()
            assert client.get("/documents/v2/files", headers=A).status_code == 200
    finally:
        services.close()
        fw.cut()
