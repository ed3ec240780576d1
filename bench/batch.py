"""A batch through the whole service against the engine alone, on the same documents.

``python -m bench batch [--docs N]`` generates N documents (PDFs of 1 to 12 pages, two-column and
table pages, DOCX, PPTX, XLSX, Markdown, text, CSV), then:

1. converts each in this process with ``pipelines.document.convert`` (the engine alone, one at a
   time): the sum of their conversion times and the engine's pages/s;
2. starts ``docklake serve`` (API, one worker, managed Prefect server) and runs
   ``docklake submit DIR --dataset bench --wait`` as a user would: wall time from the first
   upload to the last job finished, and the service's pages/s;
3. compacts the dataset's per-job results into its Parquet tables (the Dagster asset's work).

Orchestration overhead is the service's wall time beyond what the engine needs for the same
documents on the CPUs the worker uses (its conversions run one per CPU at once).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.fairness import TOKENS, Service
from bench.harness import ROOT, cpu_spent, note, print_table, tree_cpu


def corpus(n: int, folder: Path) -> list[Path]:
    from tests import docgen

    rng = random.Random(7)
    makers = [
        ("pdf", lambda i: docgen.text_pdf(seed=i, pages=rng.randint(1, 12)).data),
        ("pdf", lambda i: docgen.two_column_pdf(seed=i, pages=rng.randint(1, 4)).data),
        ("pdf", lambda i: docgen.tables_pdf(seed=i).data),
        ("pdf", lambda i: docgen.structured_pdf(seed=i).data),
        ("docx", lambda i: docgen.docx_doc(seed=i).data),
        ("pptx", lambda i: docgen.pptx_doc(seed=i).data),
        ("xlsx", lambda i: docgen.xlsx_doc(seed=i).data),
        ("md", lambda i: f"# Note {i}\n\n{docgen.paragraph(rng, 5)}\n\n## Details\n\n- {docgen.sentence(rng, 8)}\n".encode()),
        ("txt", lambda i: "\n\n".join(docgen.paragraph(rng, 4) for _ in range(3)).encode()),
        ("csv", lambda i: "\n".join(",".join(r) for r in docgen.table_rows(rng, 20, 5)).encode()),
    ]
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        ext, make = makers[i % len(makers)]
        p = folder / f"doc-{i:04d}.{ext}"
        p.write_bytes(make(i))
        paths.append(p)
    return paths


def engine_alone(paths: list[Path]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, pages) converting each document in this process."""
    from pipelines.document import convert
    from pipelines.models import DocumentInput

    pages = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for p in paths:
        result = convert(DocumentInput(data=p.read_bytes(), file_name=p.name))
        pages += len(result.pages)
    return time.perf_counter() - wall0, time.process_time() - cpu0, pages


def through_the_service(folder: Path, **env: str) -> tuple[float, str, Service, dict[str, float]]:
    """(wall seconds, the summary ``submit`` printed, the running service, CPU seconds the
    service's processes spent meanwhile by role)."""
    svc = Service(ROOT, **env).__enter__()
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("DOCKLAKE_")},
           "TENSORLAKE_API_URL": svc.base, "TENSORLAKE_API_KEY": TOKENS["a"], "PYTHONPATH": str(ROOT)}
    cpu0 = tree_cpu(svc.proc.pid)
    import resource

    client0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "api.cli", "submit", str(folder), "--dataset", "bench", "--wait",
                           "--concurrency", "4"], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    cpu = cpu_spent(cpu0, tree_cpu(svc.proc.pid))
    client1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    # the user's side, on the same CPUs: uploads, progress bars, polling
    cpu["client (docklake submit)"] = (client1.ru_utime - client0.ru_utime) + (client1.ru_stime - client0.ru_stime)
    if done.returncode not in (0, 1):
        svc.__exit__()
        raise RuntimeError(f"docklake submit failed:\n{done.stdout}\n{done.stderr}")
    return wall, done.stdout, svc, cpu


def compaction(svc: Service) -> tuple[float, dict[str, int]]:
    from assets import tables
    from assets.catalog import open_catalog
    from assets.storage import Storage
    from pipelines.settings import Settings

    s = Settings(data_dir=Path(svc.tmp.name))
    engine = open_catalog(s.storage)
    storage = Storage(s.storage.url)
    keys, _ = tables.dataset_keys_finished_since(engine, 0)
    t0 = time.perf_counter()
    counts: dict[str, int] = {}
    for key, _name in keys:
        done = tables.compact(engine, storage, key)
        for table, n in (("documents", done.documents), ("chunks", done.chunks)):
            counts[table] = counts.get(table, 0) + n
    return time.perf_counter() - t0, counts


def prefect_counts(svc: Service) -> dict[str, int]:
    """How many flow runs, task runs and artifacts the batch left in the Prefect server."""
    import httpx

    api = f"http://127.0.0.1:{svc.prefect_port}/api"
    time.sleep(2)  # the server records task runs in batches, at least once a second
    return {what: httpx.post(f"{api}/{what}/count", json={}, timeout=30).json()
            for what in ("flow_runs", "task_runs", "artifacts")}


def run(docs: int = 200, **env: str) -> None:
    """``env``: settings for the service (``DOCKLAKE_WORKER__BATCH_SIZE="32"``, …)."""
    cpus = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="docklake-bench-batch-") as tmp:
        folder = Path(tmp) / "inbox"
        note(f"[batch] generating {docs} documents …")
        paths = corpus(docs, folder)
        note("[batch] converting them in this process (the engine alone) …")
        e_wall, e_cpu, pages = engine_alone(paths)
        note("[batch] starting docklake serve and running docklake submit --wait …")
        s_wall, summary, svc, cpu = through_the_service(folder, **env)
        try:
            c_s, counts = compaction(svc)
            runs = prefect_counts(svc)
        finally:
            svc.__exit__()
    ideal = e_wall / cpus  # the engine's work spread over the CPUs the worker's children use
    print(summary)
    print_table(f"{docs} documents, {pages} pages, one dataset, {cpus} CPUs",
                ["", "seconds", "pages/s", "note"],
                [["engine alone, one at a time", f"{e_wall:.1f}", f"{pages / e_wall:.1f}",
                  f"CPU {e_cpu:.1f} s in this process"],
                 ["engine alone, ideal over the CPUs", f"{ideal:.1f}", f"{pages / ideal:.1f}", f"{cpus} at once"],
                 ["through the service (submit → last done)", f"{s_wall:.1f}", f"{pages / s_wall:.1f}",
                  f"{pages / s_wall / (pages / ideal):.0%} of the ideal"],
                 ["orchestration overhead", f"{s_wall - ideal:.1f}", "",
                  f"{(s_wall - ideal) / s_wall:.0%} of the service's wall time"],
                 ["dataset compaction (Dagster asset)", f"{c_s:.2f}", "",
                  ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))]])
    print("in the Prefect server: " + ", ".join(f"{n} {what.replace('_', ' ')}" for what, n in runs.items()))
    client = cpu.pop("client (docklake submit)")
    print_table("CPU the service's processes spent from the first upload to the last job done",
                ["process", "CPU seconds", "ms per document"],
                [[role, f"{sec:.1f}", f"{sec / docs * 1000:.0f}"] for role, sec in cpu.items()]
                + [["all of the service", f"{sum(cpu.values()):.1f}", f"{sum(cpu.values()) / docs * 1000:.0f}"],
                   ["the client (docklake submit), same CPUs", f"{client:.1f}", f"{client / docs * 1000:.0f}"]])
