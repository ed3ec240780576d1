"""Bulk ingestion by reference: how fast the server turns a folder or a bucket prefix into jobs.

``python -m bench.ingest [--files N] [--where folder|s3|both]`` writes N small distinct text
files (default 10,000; ``Report i`` and a few sentences, a few hundred bytes each) into a temp
folder and, for ``s3``, uploads them to a bucket of a moto S3 server in this process (setup, not
timed). For each source it starts ``docklake serve`` as ``bench batch`` does, with
``DOCKLAKE_INGEST__ROOTS`` allowing the folder and ``s3://<bucket>/`` and no worker
(``DOCKLAKE_WORKER__COUNT=0``: no job is converted, only made), waits until the service is
quiet, creates a dataset and times ``POST /documents/v2/datasets/{id}/ingest`` until ``GET
…/ingest/{ingest_id}`` says ``completed`` (polled every 0.1 s): files listed, jobs created,
seconds, jobs per second. Then it ingests the same source again, where every file is skipped
(the dataset holds its checksum), and times that too. Beside them, the baseline: fsspec's
``find`` listing the same source in this process. Goal: ≥ 2,000 jobs created per second.

Each source gets a fresh service and catalog. The moto server answers from this process, on the
same CPUs as the service, and far slower than S3 lists a bucket: the s3 rows are a bound on the
service's own share, not S3's latency.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.fairness import Service
from bench.harness import ROOT, cpu_spent, free_port, note, print_table, tree_cpu, wait_idle

BUCKET = "docklake-bench"
PREFIX = "reports/"
GOAL = 2000.0
WORDS = ("pump valve pressure reading inspection north south station shift operator replaced checked "
         "flow meter sensor tank level alarm report weekly daily note crew site filter seal motor").split()


def files(n: int, folder: Path) -> list[Path]:
    """``n`` distinct text files of a few hundred bytes."""
    rng = random.Random(5)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        body = "\n".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 14))).capitalize() + "."
                         for _ in range(4))
        p = folder / f"report-{i:05d}.txt"
        p.write_text(f"Report {i}\n\n{body}\n")
        paths.append(p)
    return paths


def upload(paths: list[Path], endpoint: str, aws: dict[str, str]) -> None:
    import boto3

    s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=aws["AWS_ACCESS_KEY_ID"],
                      aws_secret_access_key=aws["AWS_SECRET_ACCESS_KEY"], region_name=aws["AWS_DEFAULT_REGION"])
    s3.create_bucket(Bucket=BUCKET)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda p: s3.put_object(Bucket=BUCKET, Key=PREFIX + p.name, Body=p.read_bytes()), paths))


def listing_alone(source: str, aws: dict[str, str]) -> float:
    """Seconds ``fsspec``'s ``find`` takes to list ``source`` in this process (what the service's
    listing costs at least; against moto, mostly moto's own time)."""
    if source.startswith("s3://"):
        import s3fs

        fs = s3fs.S3FileSystem(key=aws["AWS_ACCESS_KEY_ID"], secret=aws["AWS_SECRET_ACCESS_KEY"],
                               endpoint_url=aws["AWS_ENDPOINT_URL"], skip_instance_cache=True)
        root = source.removeprefix("s3://")
    else:
        from fsspec.implementations.local import LocalFileSystem

        fs, root = LocalFileSystem(), source
    t0 = time.perf_counter()
    fs.find(root, detail=True)
    return time.perf_counter() - t0


def quiet(svc: Service, timeout: float = 90.0) -> None:
    """Until the service's processes are idle (the API's and the Prefect server's start-up done)."""
    wait_idle(svc.proc.pid, timeout, "ingest")


def ingest(svc: Service, dataset_id: str, source: str, timeout: float = 900.0) -> tuple[dict, float, float, float]:
    """POST the ingestion and poll it until it ends: (its record, seconds until the POST was
    answered, seconds from the POST to the poll that saw it end, CPU seconds the service's
    processes spent meanwhile)."""
    cpu0 = tree_cpu(svc.proc.pid)
    with svc.client("a") as c:
        t0 = time.perf_counter()
        r = c.post(f"/documents/v2/datasets/{dataset_id}/ingest", json={"source": source, "pattern": "*.txt"})
        if r.status_code != 202:
            raise RuntimeError(f"POST …/ingest answered {r.status_code}: {r.text}")
        answered = time.perf_counter() - t0
        ing = r.json()
        deadline = time.monotonic() + timeout
        while ing["status"] == "running":
            if time.monotonic() > deadline:
                raise RuntimeError(f"the ingestion did not end in {timeout:.0f} s: {ing}")
            time.sleep(0.1)
            ing = c.get(f"/documents/v2/datasets/{dataset_id}/ingest/{ing['ingest_id']}").json()
        wall = time.perf_counter() - t0
    return ing, answered, wall, sum(cpu_spent(cpu0, tree_cpu(svc.proc.pid)).values())


def catalog_jobs(svc: Service, dataset_id: str) -> tuple[int, float]:
    """(jobs the catalog holds in the dataset, seconds from its first job's creation to its last)."""
    from sqlalchemy import func, select

    from assets.catalog.db import jobs, open_catalog
    from pipelines.core.settings import Settings

    engine = open_catalog(Settings(data_dir=Path(svc.tmp.name)).storage)
    try:
        with engine.connect() as conn:
            n, first, last = conn.execute(select(func.count(), func.min(jobs.c.created_us), func.max(jobs.c.created_us))
                                          .where(jobs.c.dataset_id == dataset_id)).one()
    finally:
        engine.dispose()
    return n, ((last - first) / 1e6 if n else 0.0)


def server_seconds(ing: dict) -> float:
    from datetime import datetime

    def t(s: str) -> float:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()

    return t(ing["updated_at"]) - t(ing["created_at"])


def measure(where: str, source: str, roots: list[str], env: dict[str, str]) -> tuple[list[list[str]], float]:
    """The table's rows for ``source`` (first run, run again) and the first run's jobs per second."""
    listing = listing_alone(source, env)
    note(f"[ingest] {where}: starting docklake serve (no worker) …")
    with Service(ROOT, DOCKLAKE_WORKER__COUNT="0", DOCKLAKE_INGEST__ROOTS=json.dumps(roots), **env) as svc:
        quiet(svc)
        with svc.client("a") as c:
            r = c.post("/documents/v2/datasets", json={"name": f"bench-ingest-{where}"})
            r.raise_for_status()
            ds = r.json()["dataset_id"]
        rows, first_rate = [], 0.0
        for run in ("first", "again"):
            note(f"[ingest] {where}: ingesting {source} ({run}) …")
            ing, answered, wall, cpu = ingest(svc, ds, source)
            if ing["status"] != "completed":
                raise RuntimeError(f"the ingestion of {source} ended {ing['status']}: {ing['error']}")
            held, span = catalog_jobs(svc, ds)
            server = server_seconds(ing)
            if run == "first":
                first_rate = ing["created"] / wall
                rate = f"{first_rate:,.0f} made"
                noted = f"{held:,} ({span:.2f} s)"
            else:
                rate = f"{ing['skipped'] / wall:,.0f} skipped"
                noted = f"{held:,}"
            rows.append([f"{where}, {run}", f"{listing:.2f}", f"{ing['listed']:,}", f"{ing['created']:,}",
                         f"{ing['skipped']:,}", f"{answered:.2f}", f"{wall:.2f}", f"{server:.2f}", rate, f"{cpu:.1f}",
                         noted])
            quiet(svc, 30.0)
    return rows, first_rate


def run(n: int = 10_000, where: str = "both") -> list[list[str]]:
    rates: list[float] = []
    with tempfile.TemporaryDirectory(prefix="docklake-bench-ingest-") as tmp:
        folder = Path(tmp).resolve() / "inbox"
        note(f"[ingest] writing {n:,} files …")
        paths = files(n, folder)
        size = sum(p.stat().st_size for p in paths)
        rows: list[list[str]] = []
        if where in ("folder", "both"):
            got, rate = measure("folder", str(folder), [str(folder)], {})
            rows, rates = rows + got, rates + [rate]
        if where in ("s3", "both"):
            import logging

            from moto.server import ThreadedMotoServer

            logging.getLogger("werkzeug").setLevel(logging.ERROR)  # a line per request otherwise
            port = free_port()
            s3 = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
            s3.start()
            try:
                aws = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "docklake",
                       "AWS_SECRET_ACCESS_KEY": "docklake", "AWS_DEFAULT_REGION": "us-east-1"}
                note(f"[ingest] uploading them to s3://{BUCKET}/{PREFIX} (moto, in this process) …")
                upload(paths, aws["AWS_ENDPOINT_URL"], aws)
                got, rate = measure("s3", f"s3://{BUCKET}/{PREFIX}", [str(folder), f"s3://{BUCKET}/"], aws)
                rows, rates = rows + got, rates + [rate]
            finally:
                s3.stop()
    print_table(f"Bulk ingestion by reference: {n:,} text files ({size / n:.0f} bytes on average), "
                "pattern *.txt, docklake serve with no worker, SQLite catalog",
                ["source, run", "listing alone s", "listed", "created", "skipped", "POST → 202 s", "POST → done s",
                 "record s", "per second", "CPU s", "catalog jobs (spread)"], rows)
    print("listing alone: fsspec find of the source in this process, before the service starts; POST → done: "
          "until the poll (every 0.1 s) that saw it completed,\nthe rate's time; record: the ingestion's "
          "updated_at − created_at (from after the POST's checks to the end); CPU: all of the service's processes; spread: from "
          "the first job's creation to the last's")
    if rates:
        worst = min(rates)
        print(f"goal: ≥ {GOAL:,.0f} jobs created per second → {'MET' if worst >= GOAL else 'NOT MET'} "
              f"(slowest {worst:,.0f} jobs/s)")
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.ingest", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=10_000, help="files to ingest (default 10,000)")
    ap.add_argument("--where", choices=["folder", "s3", "both"], default="both",
                    help="a local folder, a moto S3 bucket prefix, or both (default)")
    args = ap.parse_args(argv)
    run(args.files, args.where)


if __name__ == "__main__":
    main()
