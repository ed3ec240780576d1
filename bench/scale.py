"""Pages per second through the whole service with 1, 2 and 4 worker processes, on the same
batch in one run: ``python -m bench scale [--docs N]``.

The corpus is ``bench batch``'s; each run is a fresh ``docklake serve`` with
``DOCKLAKE_WORKER__COUNT`` workers (each converting one document per CPU at once) and
``docklake submit --wait`` as the user. Next to them, the engine alone on the same documents.
The workers share this one machine's CPUs, so the figures show what more worker processes cost
or gain here, not what more machines would.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bench.batch import corpus, engine_alone, through_the_service
from bench.harness import note, print_table


def run(docs: int = 100, workers: tuple[int, ...] = (1, 2, 4)) -> None:
    cpus = os.cpu_count() or 1
    rows = []
    with tempfile.TemporaryDirectory(prefix="docklake-bench-scale-") as tmp:
        folder = Path(tmp) / "inbox"
        paths = corpus(docs, folder)
        e_wall, _cpu, pages = engine_alone(paths)
        ideal = e_wall / cpus
        rows.append(["engine alone, ideal over the CPUs", "-", f"{ideal:.1f}", f"{pages / ideal:.1f}", ""])
        for n in workers:
            note(f"[scale] docklake serve with {n} worker(s) …")
            wall, _summary, svc = through_the_service(folder, DOCKLAKE_WORKER__COUNT=str(n))
            svc.__exit__()
            rows.append([f"through the service, {n} worker process{'es' * (n > 1)}", str(n), f"{wall:.1f}",
                         f"{pages / wall:.1f}", f"{(pages / wall) / (pages / ideal):.0%} of the ideal"])
    print_table(f"{docs} documents, {pages} pages, {cpus} CPUs", ["", "workers", "seconds", "pages/s", "note"], rows)
