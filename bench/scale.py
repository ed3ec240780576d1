"""Pages per second through the whole service with 1, 2 and 4 worker processes, on the same
batch in one run: ``python -m bench scale [--docs N]``.

The corpus is ``bench batch``'s; each run is a fresh ``docklake serve`` with
``DOCKLAKE_WORKER__COUNT`` workers (each converting one document per CPU at once) and
``docklake submit --wait`` as the user. Next to them, the engine alone on the same documents.
The workers share this one machine's CPUs, so the figures show what more worker processes cost
or gain here, not what more machines would.

Then the two ways jobs reach workers side by side: ``catalog`` (workers claim from the catalog,
the default) and ``prefect`` (the feeder hands each job to Prefect as a task run and the workers
are Prefect task workers): the same batch, and a one-page job's time from submit to result.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from bench.batch import engine_alone, engine_at_once, through_the_service
from bench.batch_corpus import corpus
from bench.fairness import Service
from bench.harness import note, print_table, summary

ROOT = Path(__file__).resolve().parent.parent


def run(docs: int = 100, workers: tuple[int, ...] = (1, 2, 4)) -> None:
    cpus = os.cpu_count() or 1
    rows = []
    with tempfile.TemporaryDirectory(prefix="docklake-bench-scale-") as tmp:
        folder = Path(tmp) / "inbox"
        paths = corpus(docs, folder)
        _e_wall, _cpu, pages = engine_alone(paths)
        ideal = engine_at_once(paths, cpus)
        rows.append(["engine alone, one process per CPU (the ideal)", "-", f"{ideal:.1f}", f"{pages / ideal:.1f}", ""])
        for n in workers:
            note(f"[scale] docklake serve with {n} worker(s) …")
            wall, _cli, _summary, svc, _cpu = through_the_service(folder, DOCKLAKE_WORKER__COUNT=str(n))
            svc.__exit__()
            rows.append([f"through the service, {n} worker process{'es' * (n > 1)}", str(n), f"{wall:.1f}",
                         f"{pages / wall:.1f}", f"{(pages / wall) / (pages / ideal):.0%} of the ideal"])
    print_table(f"{docs} documents, {pages} pages, {cpus} CPUs", ["", "workers", "seconds", "pages/s", "note"], rows)


def one_page_latency(n: int = 20, **env: str) -> list[float]:
    """Submit → ``successful`` of one one-page text job at a time, ``n`` times, on a service run
    with ``env`` (``DOCKLAKE_WORKER__DELIVERY``, …)."""
    samples = []
    with Service(ROOT, **env) as svc, svc.client("a") as client:
        for i in range(n + 1):
            t0 = time.perf_counter()
            job = client.post("/documents/v2/parse", json={"raw_text": f"one page, number {i}",
                                                           "mime_type": "text/plain"}).json()["parse_id"]
            while client.get(f"/documents/v2/parse/{job}").json()["status"] not in ("successful", "failure"):
                time.sleep(0.005)
            if i:  # the first one warms the worker up
                samples.append(time.perf_counter() - t0)
    return samples


def prefect_db(url: str) -> str:
    """A cluster database's URL as the Prefect server takes it (asyncpg, not psycopg)."""
    return url.replace("+psycopg", "+asyncpg")


def deliveries(docs: int = 100, prefect_postgres: bool = False) -> None:
    """``prefect_postgres``: each run's Prefect server on a fresh database of a throwaway
    PostgreSQL cluster (``tests/support/postgres.py``), as the scale-out set-up runs it."""
    rows = []
    cluster = None
    if prefect_postgres:
        from tests.support.postgres import Cluster, admin_execute, find_pg_bin

        bindir = find_pg_bin()
        if bindir is None:
            raise SystemExit("--prefect-postgres needs Debian's postgresql (scripts/bootstrap.sh test installs it)")
        cluster = Cluster(bindir)
        cluster.start()
    try:
        with tempfile.TemporaryDirectory(prefix="docklake-bench-delivery-") as tmp:
            folder = Path(tmp) / "inbox"
            paths = corpus(docs, folder)
            _e_wall, _cpu, pages = engine_alone(paths)
            for delivery in ("catalog", "prefect"):
                env = {"DOCKLAKE_WORKER__DELIVERY": delivery}
                if cluster is not None:
                    for db in (f"batch_{delivery}", f"latency_{delivery}"):
                        admin_execute(cluster.url("postgres"), f"CREATE DATABASE {db}")
                    env["DOCKLAKE_PREFECT__DATABASE_URL"] = prefect_db(cluster.url(f"batch_{delivery}"))
                note(f"[scale] {delivery} delivery: the batch …")
                wall, _cli, _summary, svc, cpu = through_the_service(folder, **env)
                svc.__exit__()
                cpu.pop("client (docklake submit)", None)  # the service's CPU only
                note(f"[scale] {delivery} delivery: one-page jobs one at a time …")
                if cluster is not None:
                    env["DOCKLAKE_PREFECT__DATABASE_URL"] = prefect_db(cluster.url(f"latency_{delivery}"))
                lat = summary(one_page_latency(**env))
                per_doc = {role: f"{1000 * s / docs:.0f}" for role, s in cpu.items()}
                rows.append([delivery, f"{wall:.1f}", f"{pages / wall:.1f}", per_doc.get("Prefect server", "-"),
                             f"{1000 * sum(cpu.values()) / docs:.0f}", f"{lat['p50'] * 1000:.0f}",
                             f"{lat['p99'] * 1000:.0f}"])
    finally:
        if cluster is not None:
            cluster.stop()
    where = "Prefect on PostgreSQL" if cluster is not None else "Prefect on its SQLite file"
    print_table(f"{docs} documents, {pages} pages, one worker process, {where}", [
        "delivery", "batch seconds", "pages/s", "Prefect server CPU ms/doc", "service CPU ms/doc",
        "one-page job p50 ms", "p99 ms"], rows)
