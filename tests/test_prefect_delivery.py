"""``DOCKLAKE_WORKER__DELIVERY=prefect``: the work reaches the workers through Prefect.

The feeder (``docklake deliver``) hands every job to Prefect as a task run; two ``docklake
worker`` processes are Prefect task workers; the catalog is PostgreSQL. A worker killed with
``kill -9`` mid-batch, the Prefect API away, the catalog dropped: every job ends ``successful``
exactly once, and only the killed worker's jobs spend a second attempt. Each job is a task run in
Prefect named and tagged as a person looks for it, with the dead worker's run marked ``Crashed``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from fastapi.testclient import TestClient
from sqlalchemy import text

from api.app import create_app
from api.services import Services
from pipelines.settings import Settings
from tests.forwarder import Forwarder
from tests.helpers import API_KEYS, A, B
from tests.postgres import admin_execute
from tests.test_outages import statuses, wait_done

ROOT = Path(__file__).resolve().parent.parent
LEASE_S = 4


def submit(client: TestClient, n: int, tag: str, headers: dict[str, str]) -> list[str]:
    ids = []
    for i in range(n):
        # a few pages each, so that a worker holds jobs when it is killed
        body = "\f".join(f"{tag} document {i}, page {p}: " + "lorem ipsum dolor sit amet " * 200 for p in range(20))
        r = client.post("/documents/v2/parse", json={"raw_text": body, "mime_type": "text/plain",
                                                     "file_name": f"{tag}-{i}.txt"}, headers=headers)
        assert r.status_code == 200, r.text
        ids.append(r.json()["parse_id"])
    return ids


def task_runs_of(prefect_api: str, job_id: str) -> list[dict]:
    r = httpx.post(f"{prefect_api}/task_runs/filter", timeout=30,
                   json={"task_runs": {"tags": {"all_": [f"job:{job_id}"]}}, "limit": 20})
    r.raise_for_status()
    return r.json()


def start(name: str, command: str, env: dict[str, str], tmp_path: Path) -> subprocess.Popen[bytes]:
    log = open(tmp_path / f"{name}.log", "wb")
    return subprocess.Popen([sys.executable, "-m", "api.cli", command], cwd=ROOT,
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


def test_prefect_delivers_each_job_once_to_task_workers_through_a_kill_and_outages(
        postgres_url: str, prefect_api: str, tmp_path: Path) -> None:
    admin_execute(postgres_url.rsplit("/", 1)[0] + "/postgres", "CREATE DATABASE delivery")
    catalog = postgres_url.rsplit("/", 1)[0] + "/delivery"
    pg = urlsplit(catalog.replace("postgresql+psycopg", "http"))
    prefect = urlsplit(prefect_api)
    pg_fw = Forwarder(pg.hostname, pg.port).start()
    prefect_fw = Forwarder(prefect.hostname, prefect.port).start()
    storage = f"file://{tmp_path / 'storage'}"
    services = Services.build(Settings(data_dir=tmp_path / "api", api_keys=API_KEYS, prefect={"api_url": prefect_api},
                                       storage={"url": storage, "catalog_url": catalog}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "DOCKLAKE_"))}
    env.update(DOCKLAKE_API_KEYS=API_KEYS, DOCKLAKE_STORAGE__URL=storage,
               DOCKLAKE_STORAGE__CATALOG_URL=catalog.replace(f":{pg.port}/", f":{pg_fw.port}/"),
               DOCKLAKE_PREFECT__API_URL=f"http://127.0.0.1:{prefect_fw.port}/api",
               DOCKLAKE_WORKER__DELIVERY="prefect", DOCKLAKE_WORKER__LEASE_S=str(LEASE_S),
               DOCKLAKE_WORKER__REDELIVER_S="20", DOCKLAKE_WORKER__MAX_IN_FLIGHT="3",
               DOCKLAKE_WORKER__DELIVERY_WINDOW="8", DOCKLAKE_LOG_JSON="false")
    procs = {name: start(name, command, env, tmp_path)
             for name, command in (("feeder", "deliver"), ("one", "worker"), ("two", "worker"))}
    try:
        with TestClient(create_app(services=services)) as client:
            first = submit(client, 24, "a", A) + submit(client, 12, "b", B)
            deadline = time.monotonic() + 120
            while True:  # kill worker one while it holds jobs, once some are done
                with services.engine.connect() as conn:
                    held = [r[0] for r in conn.execute(text(
                        "SELECT id FROM jobs WHERE status = 'processing' AND lease_owner LIKE :me"),
                        {"me": f"%-{procs['one'].pid}-%"}).all()]
                if held and sum(s == "successful" for s, _, _ in statuses(services, first).values()) >= 2:
                    break
                assert time.monotonic() < deadline, "the workers did not start"
                time.sleep(0.05)
            os.killpg(procs["one"].pid, signal.SIGKILL)  # a host lost mid-batch, children and all
            procs["one"].wait(10)
            with services.engine.connect() as conn:  # what it held when it died
                held = [r[0] for r in conn.execute(text(
                    "SELECT id FROM jobs WHERE status = 'processing' AND lease_owner LIKE :me"),
                    {"me": f"%-{procs['one'].pid}-%"}).all()]
            assert held, "the killed worker held no job"
            done = wait_done(services, first, 240)
            assert {s for s, _, _ in done.values()} == {"successful"}, done
            assert all(done[i][1] == 2 for i in held), {i: done[i] for i in held}
            assert all(a == 1 for i, (_, a, _) in done.items() if i not in held), done
            assert b"job_finished" in (tmp_path / "one.log").read_bytes()  # both took part
            assert b"job_finished" in (tmp_path / "two.log").read_bytes()
            procs["one"] = start("one-again", "worker", env, tmp_path)

            # the Prefect API away for longer than three leases, jobs submitted meanwhile
            prefect_fw.cut()
            during = submit(client, 6, "prefect-away", A)
            time.sleep(4 * LEASE_S)
            prefect_fw.restore()
            # the catalog dropped with jobs in flight
            more = submit(client, 6, "catalog-away", B)
            time.sleep(1)
            pg_fw.cut()
            time.sleep(6)
            pg_fw.restore()
            later = wait_done(services, during + more, 240)
            assert {i: s for i, s in later.items() if s[0] != "successful"} == {}
            spent = {i: a for i, (_, a, _) in later.items() if a != 1}
            assert spent == {}, f"outages spent attempts: {spent}\n{(tmp_path / 'two.log').read_text()[-4000:]}"
            for name, p in procs.items():
                assert p.poll() is None, f"{name} exited:\n{(tmp_path / f'{name}.log').read_text()[-3000:]}"

        org_of = {i: "org-b" if i in more or i in first[24:] else "org-a" for i in first + during + more}
        # Prefect shows each job as one finished task run named after it, tagged with its
        # organization; a job the killed worker held also shows the run it died in as Crashed
        for job_id in first + during + more:
            runs = task_runs_of(prefect_api, job_id)
            ran = [r for r in runs if r["state"]["type"] == "COMPLETED"
                   and not (r["state"]["message"] or "").startswith("skipped")]
            assert len(ran) == 1, (job_id, [(r["state"]["type"], r["state"]["message"]) for r in runs])
            assert ran[0]["name"].startswith("parse ") and ran[0]["name"].endswith(".txt")
            assert {"kind:parse", f"org:{org_of[job_id]}", f"job:{job_id}"} <= set(ran[0]["tags"])
            if job_id == first[0]:  # its Logs tab says what the job found
                logs = httpx.post(f"{prefect_api}/logs/filter", timeout=30, json={
                    "logs": {"task_run_id": {"any_": [ran[0]["id"]]}}}).json()
                assert any(line["message"].startswith("parse a-0.txt: successful, 20 of 20 pages") for line in logs), logs
        for job_id in held:
            states = {r["state"]["type"] for r in task_runs_of(prefect_api, job_id)}
            assert "CRASHED" in states, (job_id, states)
        with services.engine.connect() as conn:
            owners = {r[0] for r in conn.execute(text("SELECT DISTINCT lease_owner FROM jobs")).all()}
        assert owners == {None}
    finally:
        stop_all(procs)
        services.close()
        pg_fw.cut()
        prefect_fw.cut()


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
    limit = httpx.post(f"{prefect_api}/concurrency_limits/", json={"tag": f"org:{org}", "concurrency_limit": 1},
                       timeout=30)
    assert limit.status_code in (200, 201), limit.text
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "DOCKLAKE_"))}
    env.update(DOCKLAKE_API_KEYS=keys, DOCKLAKE_STORAGE__URL=storage, DOCKLAKE_STORAGE__CATALOG_URL=catalog,
               DOCKLAKE_PREFECT__API_URL=prefect_api, DOCKLAKE_WORKER__DELIVERY="prefect",
               DOCKLAKE_WORKER__MAX_IN_FLIGHT="4", DOCKLAKE_LOG_JSON="false")
    procs = {name: start(name, command, env, tmp_path)
             for name, command in (("feeder", "deliver"), ("one", "worker"), ("two", "worker"))}
    try:
        with TestClient(create_app(services=services)) as client:
            ids = submit(client, 4, "limited", headers)
            most = 0
            deadline = time.monotonic() + 240
            while True:
                now = statuses(services, ids)
                most = max(most, sum(s == "processing" for s, _, _ in now.values()))
                if all(s in ("successful", "failure") for s, _, _ in now.values()):
                    break
                assert time.monotonic() < deadline, now
                time.sleep(0.02)
        assert {s for s, _, _ in now.values()} == {"successful"}, now
        assert most == 1
        waited = [r for i in ids for r in task_runs_of(prefect_api, i)]
        assert all(r["state"]["type"] == "COMPLETED" for r in waited), [r["state"] for r in waited]
    finally:
        httpx.delete(f"{prefect_api}/concurrency_limits/tag/org:{org}", timeout=30)
        stop_all(procs)
        services.close()
