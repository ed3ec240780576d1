"""A batch through the whole service against the engine alone, on the same documents.

``python -m bench batch [--docs N]`` generates N documents (PDFs of 1 to 12 pages, two-column and
table pages, DOCX, PPTX, XLSX, Markdown, text, CSV), then:

1. converts each in this process with ``pipelines.engine.document.convert`` (the engine alone, one at a
   time): the sum of their conversion times and the engine's pages/s;
2. starts ``docklake serve`` (API, one worker, managed Prefect server) and runs
   ``docklake submit DIR --dataset bench --wait`` as a user would: wall time from the first
   upload to the last job finished, and the service's pages/s;
3. compacts the dataset's per-job results into its Parquet tables (the Dagster asset's work).

``--corpus`` picks other documents, where the engine's work per document is larger:
``manuals``, documents nobody here wrote: the PDF manuals of at most 20 pages in Debian's
``texlive-latex-recommended-doc`` (fetched with ``apt-get download``, cached; about 100 manuals,
750 pages); ``scans``, ``--docs`` scanned PDFs of 1 to 3 pages (generated text pages rendered at
150 dpi, skewed and noised), which go through OCR.

``--by-reference`` takes the documents in without uploads: the service is started with
``DOCKLAKE_INGEST__ROOTS`` allowing the corpus folder, and step 2 runs ``docklake submit DIR
--dataset bench --by-reference --wait`` instead (the floor, taking them in on an API-only node,
runs it without ``--wait``): the server lists the folder and makes the jobs itself, and the worker
reads each document where it lies.

Orchestration overhead is the service's wall time beyond what the engine needs for the same
documents on the CPUs the worker uses (its conversions run one per CPU at once).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.batch_corpus import corpus, real_manuals, scans
from bench.fairness import TOKENS, Service
from bench.harness import ROOT, cpu_spent, note, print_table, tree_cpu, wait_idle

CORPORA = ("generated", "manuals", "scans")


def engine_alone(paths: list[Path]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, pages) converting each document in this process."""
    from pipelines.core.models import DocumentInput
    from pipelines.engine.document import convert

    pages = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for p in paths:
        result = convert(DocumentInput(data=p.read_bytes(), file_name=p.name))
        pages += len(result.pages)
    return time.perf_counter() - wall0, time.process_time() - cpu0, pages


def _pages_of(path: Path) -> int:
    from pipelines.core.models import DocumentInput
    from pipelines.engine.document import convert

    return len(convert(DocumentInput(data=path.read_bytes(), file_name=path.name)).pages)


def engine_at_once(paths: list[Path], processes: int) -> float:
    """Wall seconds converting the documents in ``processes`` processes at once (forked from this
    one, the engine already loaded), each taking the next document as it finishes one: the
    best the CPUs do with the engine alone, which dividing by their number overstates (two
    processes on two virtual CPUs do not run twice as fast as one)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    t0 = time.perf_counter()
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_pages_of, paths))
    return time.perf_counter() - t0


def settled(svc: Service, timeout: float = 120.0) -> None:
    """Until the service is up and idle, as a running service is when a batch comes: ``/readyz``
    answers before the workers have started, so one small job goes through first, then this
    waits for every process of the service to go quiet (under 5 % of a CPU for a second)."""
    deadline = time.monotonic() + timeout
    with svc.client("b") as c:
        job = c.post("/documents/v2/parse", json={"raw_text": "warming up", "mime_type": "text/plain"}).json()
        while c.get(f"/documents/v2/parse/{job['parse_id']}").json()["status"] not in ("successful", "failure"):
            if time.monotonic() > deadline:
                raise RuntimeError("the service did not run a first job in time")
            time.sleep(0.1)
    wait_idle(svc.proc.pid, max(1.0, deadline - time.monotonic()), "batch")


def last_finished(svc: Service) -> float:
    """When (``time.time()``) the catalog says the batch's last job finished."""
    from sqlalchemy import func, select

    from assets.catalog.db import jobs, open_catalog
    from pipelines.core.settings import Settings

    engine = open_catalog(Settings(data_dir=Path(svc.tmp.name)).storage)
    try:
        with engine.connect() as conn:
            us = conn.execute(select(func.max(jobs.c.finished_us)).where(jobs.c.organization_id == "org-a")).scalar()
    finally:
        engine.dispose()
    return us / 1e6


def timeline(svc: Service) -> dict[str, float]:
    """Where the batch's wall time went, from the catalog's times of its jobs (seconds from the
    first job's creation): the last one created (the uploads), the lag from a job's creation to
    its start (median and longest), and the last one finished."""
    from statistics import median

    from sqlalchemy import select

    from assets.catalog.db import jobs, open_catalog
    from pipelines.core.settings import Settings

    engine = open_catalog(Settings(data_dir=Path(svc.tmp.name)).storage)
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(jobs.c.created_us, jobs.c.started_us, jobs.c.finished_us)
                                .where(jobs.c.organization_id == "org-a")).all()
    finally:
        engine.dispose()
    t0 = min(r.created_us for r in rows)
    lags = [(r.started_us - r.created_us) / 1e6 for r in rows if r.started_us]
    return {"last created": (max(r.created_us for r in rows) - t0) / 1e6,
            "first started": (min(r.started_us for r in rows if r.started_us) - t0) / 1e6,
            "start lag p50": median(lags), "start lag max": max(lags),
            "last finished": (max(r.finished_us for r in rows if r.finished_us) - t0) / 1e6}


def submit(svc: Service, folder: Path, *flags: str) -> tuple[subprocess.CompletedProcess[str], float, dict[str, float], float]:
    """``docklake submit folder --dataset bench`` against ``svc`` as a user runs it: what it
    printed, its wall seconds, the CPU seconds the service's processes spent meanwhile by role,
    and the client's own (the user's side, on the same CPUs: uploads, progress bars, polling)."""
    import resource

    env = {**{k: v for k, v in os.environ.items() if not k.startswith("DOCKLAKE_")},
           "TENSORLAKE_API_URL": svc.base, "TENSORLAKE_API_KEY": TOKENS["a"], "PYTHONPATH": str(ROOT)}
    cpu0, client0 = tree_cpu(svc.proc.pid), resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "api.cli.main", "submit", str(folder), "--dataset", "bench", *flags,
                           "--concurrency", "4"], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    cpu = cpu_spent(cpu0, tree_cpu(svc.proc.pid))
    client1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, wall, cpu, (client1.ru_utime - client0.ru_utime) + (client1.ru_stime - client0.ru_stime)


def by_reference_env(folder: Path) -> dict[str, str]:
    """The service's settings that let it take ``folder``'s documents by reference."""
    return {"DOCKLAKE_INGEST__ROOTS": json.dumps([str(folder.resolve())])}


def through_the_service(folder: Path, by_reference: bool = False,
                        **env: str) -> tuple[float, float, str, Service, dict[str, float]]:
    """(seconds from the first upload (or the ingestion's start, ``by_reference``) to the last
    job finished, as the catalog recorded it; seconds until ``docklake submit --wait`` returned,
    which polls once a second; the summary it printed; the running service; CPU seconds the
    service's processes spent meanwhile by role), from a settled service (see ``settled``)."""
    if by_reference:
        env = {**by_reference_env(folder), **env}
    svc = Service(ROOT, **env).__enter__()
    try:
        settled(svc)
    except BaseException:
        svc.__exit__()
        raise
    started = time.time()
    done, cli_wall, cpu, client = submit(svc, folder, *(["--by-reference"] if by_reference else []), "--wait")
    cpu["client (docklake submit)"] = client
    if done.returncode not in (0, 1):
        svc.__exit__()
        raise RuntimeError(f"docklake submit failed:\n{done.stdout}\n{done.stderr}")
    return last_finished(svc) - started, cli_wall, done.stdout, svc, cpu


def uploads_alone(folder: Path, by_reference: bool = False) -> tuple[float, float]:
    """(seconds, CPU seconds of the API and the client) for ``docklake submit`` (``by_reference``:
    with ``--by-reference``) without ``--wait`` against an API-only node (no worker): what taking
    the documents in costs before any of them is converted, the floor under the service's time."""
    env = by_reference_env(folder) if by_reference else {}
    with Service(ROOT, DOCKLAKE_WORKER__COUNT="0", **env) as svc:
        time.sleep(2.0)  # the API's start-up work settles
        done, wall, cpu, client = submit(svc, folder, *(["--by-reference"] if by_reference else []))
    if done.returncode != 0:
        raise RuntimeError(f"docklake submit failed:\n{done.stdout}\n{done.stderr}")
    return wall, sum(cpu.values()) + client


EMPTY_TASKS = """
import asyncio, resource, sys
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

@task(name="empty", cache_policy=NO_CACHE)
async def empty(i):
    return i

@flow(name="bench-empty-task-runs")
async def many(n):
    tags = ["org:bench", "project:p", "kind:parse", "dataset:bench"]
    return await asyncio.gather(*(empty.with_options(task_run_name=f"parse doc-{i}.pdf", tags=tags)(i)
                                  for i in range(n)))

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

asyncio.run(many(2))  # imports and the flow's first run out of the way
before = cpu()
asyncio.run(many(int(sys.argv[1])))
print(cpu() - before)
"""


def empty_task_runs(svc: Service, n: int) -> tuple[float, float]:
    """(client CPU ms, Prefect server CPU ms) per task run of a flow of ``n`` task runs that do
    nothing, named and tagged as docklake's: what one task run per document costs at least,
    on the service's own Prefect server."""
    before = tree_cpu(svc.proc.pid)
    done = subprocess.run([sys.executable, "-c", EMPTY_TASKS, str(n)], cwd=ROOT, capture_output=True, text=True,
                          env={**{k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")},
                               "PREFECT_API_URL": f"http://127.0.0.1:{svc.prefect_port}/api",
                               "PREFECT_HOME": str(Path(svc.tmp.name) / "prefect-bench-client")})
    if done.returncode != 0:
        raise RuntimeError(f"the empty task runs failed:\n{done.stderr[-2000:]}")
    time.sleep(3)  # the server records task runs in batches, at least once a second
    server = cpu_spent(before, tree_cpu(svc.proc.pid)).get("Prefect server", 0.0)
    return float(done.stdout.split()[-1]) / n * 1000, server / n * 1000


def compaction(svc: Service) -> tuple[float, dict[str, int]]:
    from assets import tables
    from assets.catalog.db import open_catalog
    from assets.storage import Storage
    from pipelines.core.settings import Settings

    s = Settings(data_dir=Path(svc.tmp.name))
    engine = open_catalog(s.storage)
    storage = Storage(s.storage.url)
    keys, _ = tables.dataset_keys_finished_since(engine, 0)
    t0 = time.perf_counter()
    counts: dict[str, int] = {}
    for key, _name in keys:
        if key.organization_id != "org-a":  # the warm-up job's
            continue
        done = tables.compact(engine, storage, key)
        for table, n in (("documents", done.documents), ("chunks", done.chunks)):
            counts[table] = counts.get(table, 0) + n
    return time.perf_counter() - t0, counts


def prefect_counts(svc: Service) -> dict[str, int]:
    """How many flow runs, task runs and artifacts the batch left in the Prefect server (the
    batch's organization's, not the warm-up job's)."""
    import httpx

    api = f"http://127.0.0.1:{svc.prefect_port}/api"
    time.sleep(2)  # the server records task runs in batches, at least once a second
    tagged = {"tags": {"all_": ["org:org-a"]}}
    runs = httpx.post(f"{api}/flow_runs/filter", json={"flow_runs": tagged}, timeout=30).json()
    return {"flow_runs": len(runs),
            "task_runs": httpx.post(f"{api}/task_runs/count", json={"task_runs": tagged}, timeout=30).json(),
            "artifacts": httpx.post(f"{api}/artifacts/count", json={"flow_runs": {"id": {"any_": [
                r["id"] for r in runs]}}}, timeout=30).json()}


def run(docs: int = 200, which: str = "generated", by_reference: bool = False, **env: str) -> None:
    """``which``: one of ``CORPORA`` (``docs`` documents, except for the manuals);
    ``by_reference``: the service takes them by reference (``docklake submit --by-reference``)
    instead of uploads; ``env``: settings for the service (``DOCKLAKE_WORKER__BATCH_SIZE="32"``, …)."""
    cpus = os.cpu_count() or 1
    mode = "by reference (docklake submit --by-reference)" if by_reference else "uploads (docklake submit)"
    taking = "the ingestion's start" if by_reference else "the first upload"
    start = "ingestion start" if by_reference else "first upload"
    flag = " --by-reference" if by_reference else ""
    with tempfile.TemporaryDirectory(prefix="docklake-bench-batch-") as tmp:
        folder = Path(tmp) / "inbox"
        note(f"[batch] the documents ({which}) …")
        paths = {"manuals": lambda: real_manuals(folder), "scans": lambda: scans(docs, folder),
                 "generated": lambda: corpus(docs, folder)}[which]()
        docs = len(paths)
        note("[batch] converting them in this process (the engine alone) …")
        e_wall, e_cpu, pages = engine_alone(paths)
        note(f"[batch] converting them in {cpus} processes at once (the engine alone) …")
        ideal = engine_at_once(paths, cpus)
        note(f"[batch] {'ingesting them by reference into' if by_reference else 'uploading them to'} "
             "an API-only node (no worker) …")
        up_wall, up_cpu = uploads_alone(folder, by_reference)
        note(f"[batch] starting docklake serve and running docklake submit{flag} --wait …")
        s_wall, cli_wall, summary, svc, cpu = through_the_service(folder, by_reference, **env)
        try:
            c_s, counts = compaction(svc)
            runs = prefect_counts(svc)
            when = timeline(svc)
            task_client, task_server = empty_task_runs(svc, docs)
        finally:
            svc.__exit__()
    print(summary)
    print(f"mode: {mode}")
    what = {"manuals": "real manuals", "scans": "scanned documents"}.get(which, "documents")
    print_table(f"{docs} {what}, {pages} pages, one dataset, {cpus} CPUs, {mode}",
                ["", "seconds", "pages/s", "note"],
                [["engine alone, one at a time", f"{e_wall:.1f}", f"{pages / e_wall:.1f}",
                  f"CPU {e_cpu:.1f} s in this process"],
                 ["engine alone, one process per CPU (the ideal)", f"{ideal:.1f}", f"{pages / ideal:.1f}",
                  f"{cpus} at once; {e_wall / ideal:.1f}× one"],
                 [f"through the service ({start} → last job done)", f"{s_wall:.1f}", f"{pages / s_wall:.1f}",
                  f"{pages / s_wall / (pages / ideal):.0%} of the ideal"],
                 [f"only taking them in{' by reference' if by_reference else ''} (an API-only node, no worker)",
                  f"{up_wall:.1f}", "",
                  f"CPU {up_cpu / docs * 1000:.0f} ms per document (API and client)"],
                 [f"docklake submit{flag} --wait (polls once a second)", f"{cli_wall:.1f}", f"{pages / cli_wall:.1f}",
                  ""],
                 ["orchestration overhead", f"{s_wall - ideal:.1f}", "",
                  f"{(s_wall - ideal) / s_wall:.0%} of the service's wall time"],
                 ["dataset compaction (Dagster asset)", f"{c_s:.2f}", "",
                  ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))]])
    print("timeline (s from the first job created): " + ", ".join(f"{k} {v:.2f}" for k, v in when.items()))
    floor = up_cpu / docs * 1000 + task_client + task_server
    engine_ms = e_cpu / docs * 1000
    print(f"a task run that does nothing, named and tagged as a job's: {task_client:.1f} ms of its client's CPU "
          f"and {task_server:.1f} ms of the Prefect server's; with taking a document in "
          f"({up_cpu / docs * 1000:.1f} ms), at least {floor:.0f} ms of CPU per document beside the engine's "
          f"{engine_ms:.0f} ms: the service can reach at most {engine_ms / (engine_ms + floor):.0%} of the ideal "
          "on these documents")
    print("in the Prefect server: " + ", ".join(f"{n} {what.replace('_', ' ')}" for what, n in runs.items()))
    client = cpu.pop("client (docklake submit)")
    print_table(f"CPU the service's processes spent from {taking} to the last job done",
                ["process", "CPU seconds", "ms per document"],
                [[role, f"{sec:.1f}", f"{sec / docs * 1000:.0f}"] for role, sec in cpu.items()]
                + [["all of the service", f"{sum(cpu.values()):.1f}", f"{sum(cpu.values()) / docs * 1000:.0f}"],
                   ["the client (docklake submit), same CPUs", f"{client:.1f}", f"{client / docs * 1000:.0f}"]])
