"""``DOCKLAKE_WORKER__DELIVERY=prefect``: the work reaches the workers through Prefect.

The feeder (``docklake deliver``) hands every job to Prefect as a task run; two ``docklake
worker`` processes are Prefect task workers; the catalog is PostgreSQL. A worker killed with
``kill -9`` mid-batch, the Prefect API away, the catalog dropped: every job ends ``successful``
exactly once, and only the killed worker's jobs spend a second attempt. Each job is a task run in
Prefect named and tagged as a person looks for it, with the dead worker's run marked ``Crashed``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from api.app import create_app
from api.services import Services
from pipelines.core.settings import Settings
from tests.flows.test_outages import statuses
from tests.support.helpers import API_KEYS, A, B
from tests.support.postgres import admin_execute, restart_postgres

ROOT = Path(__file__).resolve().parents[2]
LEASE_S = 4


def submit(client: TestClient, n: int, tag: str, headers: dict[str, str], pages: int = 1,
           path: str = "/documents/v2/parse") -> list[str]:
    ids = []
    for i in range(n):
        body = "\f".join(f"{tag} document {i}, page {p}: " + "lorem ipsum dolor sit amet " * 200 for p in range(pages))
        r = client.post(path, json={"raw_text": body, "mime_type": "text/plain", "file_name": f"{tag}-{i}.txt"},
                        headers=headers)
        assert r.status_code == 200, r.text
        ids.append(r.json()["parse_id"])
    return ids


def task_runs_of(prefect_api: str, job_id: str) -> list[dict]:
    r = httpx.post(f"{prefect_api}/task_runs/filter", timeout=30,
                   json={"task_runs": {"tags": {"all_": [f"job:{job_id}"]}}, "limit": 20})
    r.raise_for_status()
    return r.json()


def settled_runs(prefect_api: str, job_id: str, timeout: float = 90) -> list[dict]:
    """The job's task runs once none is left scheduled, pending or running (the feeder brings the
    states of runs whose end Prefect missed in line with the catalog every few seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        runs = task_runs_of(prefect_api, job_id)
        if not any(r["state"]["type"] in ("SCHEDULED", "PENDING", "RUNNING") for r in runs) or \
                time.monotonic() > deadline:
            return runs
        time.sleep(1)


def start(name: str, command: str, env: dict[str, str], tmp_path: Path) -> subprocess.Popen[bytes]:
    log = open(tmp_path / f"{name}.log", "wb")
    return subprocess.Popen([sys.executable, "-m", "api.cli.main", command], cwd=ROOT,
                            env={**env, "DOCKLAKE_DATA_DIR": str(tmp_path / name)}, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)


def stop_all(procs: dict[str, subprocess.Popen[bytes]]) -> None:
    for p in procs.values():
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()


def wait_all(services: Services, ids: list[str], timeout: float) -> dict[str, tuple[str, int, str | None]]:
    """Until every job is finished; reads that fall into a catalog restart are tried again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            now = statuses(services, ids)
        except OperationalError:
            now = {}
        if len(now) == len(ids) and all(s in ("successful", "failure") for s, _, _ in now.values()):
            return now
        assert time.monotonic() < deadline, f"not all done: {sorted(set(s for s, _, _ in now.values()))}"
        time.sleep(0.5)


def held_by(services: Services, pid: int) -> list[str]:
    with services.engine.connect() as conn:
        return [r[0] for r in conn.execute(text(
            "SELECT id FROM jobs WHERE status = 'processing' AND lease_owner LIKE :me"), {"me": f"%-{pid}-%"}).all()]


@pytest.mark.timeout(900)
def test_200_documents_reach_two_task_workers_through_prefect_exactly_once_through_a_kill_and_outages(
        postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's test: PostgreSQL, a Prefect server of its own, two task workers, an
    S3-compatible store (moto's server), a dataset of 200 documents; a worker killed with
    ``kill -9`` mid-batch, PostgreSQL restarted, the Prefect server stopped for 60 s (its queue of
    deliveries lost with it): 0 lost, 0 run twice, 0 failed."""
    import boto3
    import s3fs
    from moto.server import ThreadedMotoServer

    from pipelines.flows.prefect_server import ManagedPrefectServer
    from tests.support.helpers import free_port

    s3_port = free_port()
    s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=s3_port, verbose=False)
    s3.start()
    aws = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{s3_port}", "AWS_ACCESS_KEY_ID": "docklake",
           "AWS_SECRET_ACCESS_KEY": "docklake", "AWS_DEFAULT_REGION": "us-east-1"}
    for k, v in aws.items():
        monkeypatch.setenv(k, v)
    s3fs.S3FileSystem.clear_instance_cache()
    boto3.client("s3").create_bucket(Bucket="docklake-delivery")
    storage = "s3://docklake-delivery/data"
    admin_execute(postgres_url.rsplit("/", 1)[0] + "/postgres", "CREATE DATABASE delivery")
    catalog = postgres_url.rsplit("/", 1)[0] + "/delivery"
    # the Prefect server of a multi-machine setup keeps its state in PostgreSQL too
    admin_execute(postgres_url.rsplit("/", 1)[0] + "/postgres", "CREATE DATABASE delivery_prefect")
    prefect_db = postgres_url.rsplit("/", 1)[0].replace("+psycopg", "+asyncpg") + "/delivery_prefect"
    prefect = ManagedPrefectServer(Settings(data_dir=tmp_path / "prefect", prefect={
        "port": free_port(), "database_url": prefect_db}))
    prefect.start(timeout_s=180)
    prefect_api = prefect.api_url
    services = Services.build(Settings(data_dir=tmp_path / "api", api_keys=API_KEYS, prefect={"api_url": prefect_api},
                                       storage={"url": storage, "catalog_url": catalog}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "DOCKLAKE_"))}
    env.update(aws, DOCKLAKE_API_KEYS=API_KEYS, DOCKLAKE_STORAGE__URL=storage, DOCKLAKE_STORAGE__CATALOG_URL=catalog,
               DOCKLAKE_PREFECT__API_URL=prefect_api, DOCKLAKE_WORKER__DELIVERY="prefect",
               DOCKLAKE_WORKER__LEASE_S=str(LEASE_S), DOCKLAKE_WORKER__REDELIVER_S="15",
               DOCKLAKE_WORKER__MAX_IN_FLIGHT="8", DOCKLAKE_WORKER__DELIVERY_WINDOW="32", DOCKLAKE_LOG_JSON="false")
    procs = {name: start(name, command, env, tmp_path)
             for name, command in (("feeder", "deliver"), ("one", "worker"), ("two", "worker"))}
    try:
        with TestClient(create_app(services=services)) as client:
            made = client.post("/documents/v2/datasets", json={"name": "field-reports"}, headers=A)
            assert made.status_code == 200, made.text
            into = f"/documents/v2/datasets/{made.json()['dataset_id']}/parse"
            first = submit(client, 40, "a", A, pages=20, path=into) + submit(client, 110, "a-short", A, path=into)
            second = submit(client, 25, "b", B)  # another organization, no dataset
            # a host lost mid-batch, children and all, while it holds jobs
            deadline = time.monotonic() + 120
            while not held_by(services, procs["one"].pid) or len(
                    [s for s, _, _ in statuses(services, first).values() if s == "successful"]) < 2:
                assert time.monotonic() < deadline, "the workers did not start"
                time.sleep(0.05)
            os.killpg(procs["one"].pid, signal.SIGKILL)
            procs["one"].wait(10)
            held = held_by(services, procs["one"].pid)
            assert held, "the killed worker held no job"
            procs["one"] = start("one-again", "worker", env, tmp_path)

            # PostgreSQL restarted with jobs in flight
            time.sleep(1)
            restart_postgres(postgres_url)
            done = wait_all(services, first + second, 300)
            assert {s for s, _, _ in done.values()} == {"successful"}, done
            assert all(done[i][1] == 2 for i in held), {i: done[i] for i in held}

            # the Prefect server stopped for 60 s, jobs submitted just before and meanwhile
            later = submit(client, 15, "before-prefect-stops", B, pages=20)
            time.sleep(1)
            prefect.stop()
            later += submit(client, 10, "prefect-away", A)
            time.sleep(60)
            prefect.start(timeout_s=180)
            after = wait_all(services, later, 300)
            done.update(after)
            assert {s for s, _, _ in after.values()} == {"successful"}, after
            for name, p in procs.items():
                assert p.poll() is None, f"{name} exited:\n{(tmp_path / f'{name}.log').read_text()[-3000:]}"
        spent = {i: a for i, (_, a, _) in done.items() if a != (2 if i in held else 1)}
        assert spent == {}, f"attempts spent by outages: {spent}"
        assert len(done) == 200
        assert b"job_finished" in (tmp_path / "two.log").read_bytes()  # both live workers took part
        assert b"job_finished" in (tmp_path / "one-again.log").read_bytes()
        with services.engine.connect() as conn:
            owners = {r[0] for r in conn.execute(text("SELECT DISTINCT lease_owner FROM jobs")).all()}
        assert owners == {None}
        keys = {o["Key"] for page in boto3.client("s3").get_paginator("list_objects_v2").paginate(
            Bucket="docklake-delivery") for o in page.get("Contents", [])}
        assert all(any(i in k and k.endswith("document.parquet") for k in keys) for i in done), "results missing"

        # Prefect shows each job in one task run that ran it (its chunk), named after its documents
        # and tagged as a person looks for it (runs from before the restart included); the killed
        # worker's run as Crashed
        org_of = {i: "org-b" if i in second or i in later[:15] else "org-a" for i in done}
        logged: dict[str, str] = {}  # a line a job's chunk should log → the chunk's run id
        for job_id in done:
            runs = settled_runs(prefect_api, job_id)
            done_runs = [r for r in runs if r["state"]["type"] == "COMPLETED" and "docklake:batch" not in r["tags"]
                         and not (r["state"]["message"] or "").startswith("skipped")]  # found it taken elsewhere
            ran = [r for r in done_runs if r["name"].startswith("parse ")] or [
                # Prefect away while it ran: the run keeps the task's default name (the name comes
                # with the state events it missed), and the feeder records its end from the catalog
                r for r in done_runs if (r["state"]["message"] or "").startswith("its end was not recorded")]
            if not ran and done[job_id][1] == 1:
                # it finished in a chunk whose worker was killed before the chunk's other jobs
                # ended: the chunk is Crashed, saying it finished some
                ran = [r for r in runs if r["state"]["type"] == "CRASHED" and r["name"].startswith("parse ")
                       and "after finishing" in (r["state"]["message"] or "")]
            assert len(ran) == 1, (job_id, [(r["name"], r["state"]["type"], r["state"]["message"]) for r in runs])
            assert re.fullmatch(r"parse (\S+\.txt|\d+ documents \(.+\))", ran[0]["name"]) \
                or "not recorded" in ran[0]["state"]["message"], ran[0]["name"]
            assert {"kind:parse", f"org:{org_of[job_id]}", f"job:{job_id}"} <= set(ran[0]["tags"])
            if job_id in first[:40] and ran[0]["state"]["type"] == "COMPLETED" and ran[0]["name"].startswith("parse "):
                assert "dataset:field-reports" in ran[0]["tags"]
                logged[f"parse a-{first.index(job_id)}.txt: successful, 20 of 20 pages"] = ran[0]["id"]
        # the chunks' Logs tabs say what each job found (lines sent while PostgreSQL, which holds
        # Prefect's state too, restarted are lost, so some, not all; shipped in batches: wait a little)
        deadline = time.monotonic() + 30
        while True:
            logs = httpx.post(f"{prefect_api}/logs/filter", timeout=30, json={
                "logs": {"task_run_id": {"any_": list(set(logged.values()))}}}).json()
            if any(x["message"].startswith(line) and x["task_run_id"] == run for line, run in logged.items()
                   for x in logs):
                break
            assert time.monotonic() < deadline, (logged, logs)
            time.sleep(1)
        for job_id in held:
            assert "CRASHED" in {r["state"]["type"] for r in settled_runs(prefect_api, job_id)}, job_id
    finally:
        stop_all(procs)
        prefect.stop()
        services.close()
        s3.stop()
        s3fs.S3FileSystem.clear_instance_cache()


def test_a_prefect_tag_concurrency_limit_caps_an_organization_across_workers(prefect_api: str,
                                                                            tmp_path: Path) -> None:
    """``prefect concurrency-limit create org:<org> 1``: never more than one of the
    organization's jobs runs at once, across two task workers; the others wait, none fails."""
    org = f"limited-{os.getpid()}"
    keys = f"dl_limited_{os.getpid()}_key=" + f"{org}/p"
    headers = {"Authorization": f"Bearer dl_limited_{os.getpid()}_key"}
    catalog = f"sqlite:///{tmp_path / 'catalog.db'}"
    storage = f"file://{tmp_path / 'storage'}"
    services = Services.build(Settings(data_dir=tmp_path / "api", api_keys=keys, prefect={"api_url": prefect_api},
                                       storage={"url": storage, "catalog_url": catalog}))
    for _ in range(10):  # as Prefect's own client does, a 503 (its database busy) is tried again
        limit = httpx.post(f"{prefect_api}/concurrency_limits/", json={"tag": f"org:{org}", "concurrency_limit": 1},
                           timeout=30)
        if limit.status_code != 503:
            break
        time.sleep(2)
    assert limit.status_code in (200, 201), limit.text
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "DOCKLAKE_"))}
    env.update(DOCKLAKE_API_KEYS=keys, DOCKLAKE_STORAGE__URL=storage, DOCKLAKE_STORAGE__CATALOG_URL=catalog,
               DOCKLAKE_PREFECT__API_URL=prefect_api, DOCKLAKE_WORKER__DELIVERY="prefect",
               DOCKLAKE_WORKER__MAX_IN_FLIGHT="4", DOCKLAKE_WORKER__DELIVERY_WINDOW="8", DOCKLAKE_LOG_JSON="false")
    procs = {name: start(name, command, env, tmp_path)
             for name, command in (("feeder", "deliver"), ("one", "worker"), ("two", "worker"))}
    try:
        with TestClient(create_app(services=services)) as client:
            ids = submit(client, 4, "limited", headers, pages=20)
            now = wait_all(services, ids, 240)
        assert {s for s, _, _ in now.values()} == {"successful"}, now
        runs = [r for i in ids for r in settled_runs(prefect_api, i) if r["name"].startswith("parse ")]
        assert len(runs) == 4 and all(r["state"]["type"] == "COMPLETED" for r in runs), runs
        # the jobs' task runs ran one after another: no two overlap
        spans = sorted((r["start_time"], r["end_time"]) for r in runs)
        assert all(end <= next_start for (_, end), (next_start, _) in zip(spans, spans[1:], strict=False)), spans
    finally:
        httpx.delete(f"{prefect_api}/concurrency_limits/tag/org:{org}", timeout=30)
        stop_all(procs)
        services.close()
