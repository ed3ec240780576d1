"""Fair sharing: a small job's latency while another tenant's 400-page scan runs.

``python -m bench fairness [--tree PATH]`` starts ``docklake serve`` (API, one worker, a managed
Prefect server) on a fresh data dir, submits a 400-page scanned PDF as tenant a, waits until it
is being converted, then submits one-line text jobs as tenant b one after another and times
each from submit to ``successful``. ``--tree`` runs the service from another checkout of
docklake (for example the commit before the fair dispatcher), so both are measured the same way.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.harness import ROOT, free_port, note, percentile, print_table

TOKENS = {"a": "bench-tenant-a", "b": "bench-tenant-b"}
SMALL_JOBS = 10


def scan_pdf(pages: int) -> bytes:
    """A scanned-looking PDF: one noisy, slightly skewed page of text, ``pages`` times."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    from tests.support.docgen import render_png, scanify, text_pdf

    img = scanify(render_png(text_pdf(seed=41, pages=1).data, dpi=150), skew_deg=1.5)
    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    reader = ImageReader(img)
    w, h = img.size[0] * 72 / 150, img.size[1] * 72 / 150
    for _ in range(pages):
        c.setPageSize((w, h))
        c.drawImage(reader, 0, 0, w, h)
        c.showPage()
    c.save()
    return buf.getvalue()


class Service:
    """``docklake serve`` from ``tree`` in a child process (its own session, stopped as a group)."""

    def __init__(self, tree: Path, **env: str) -> None:
        self.tree, self.extra_env = tree, env
        self.tmp = tempfile.TemporaryDirectory(prefix="docklake-bench-fair-")
        self.port, self.prefect_port = free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Service:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCKLAKE_", "PREFECT_"))}
        keys = f"{TOKENS['a']}=org-a/p,{TOKENS['b']}=org-b/p"
        env.update(DOCKLAKE_DATA_DIR=self.tmp.name, DOCKLAKE_API_KEYS=keys, DOCKLAKE_LOG_LEVEL="WARNING",
                   PYTHONPATH=str(self.tree),
                   DOCKLAKE_API__PORT=str(self.port), DOCKLAKE_PREFECT__PORT=str(self.prefect_port))
        env.update(self.extra_env)
        self.log = open(Path(self.tmp.name) / "serve.log", "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "api.cli.main", "serve"], cwd=self.tree, env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.base + "/readyz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"docklake serve exited; see {self.tmp.name}/serve.log")
            time.sleep(0.5)
        raise RuntimeError("docklake serve did not become ready in 180 s")

    def client(self, tenant: str) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=60, headers={"Authorization": f"Bearer {TOKENS[tenant]}"})

    def __exit__(self, *exc: object) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()
        self.tmp.cleanup()


def wait_status(c: httpx.Client, pid: str, want: tuple[str, ...], timeout: float, poll: float = 0.05) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = c.get(f"/documents/v2/parse/{pid}").json()["status"]
        if status in want:
            return status
        time.sleep(poll)
    return "timeout"


def measure(tree: Path, pdf: bytes, label: str, timeout: float) -> dict[str, object]:
    note(f"[fairness] {label}: starting docklake serve from {tree} …")
    with Service(tree) as svc, svc.client("a") as a, svc.client("b") as b:
        fid = a.put("/documents/v2/files", files={"file": ("scan-400.pdf", pdf)}).json()["file_id"]
        big = a.post("/documents/v2/parse", json={"file_id": fid}).json()["parse_id"]
        wait_status(a, big, ("processing",), 120)
        time.sleep(3)  # the scan's page ranges are being converted now
        latencies: list[float] = []
        for _ in range(SMALL_JOBS):
            t0 = time.monotonic()
            pid = b.post("/documents/v2/parse", json={"raw_text": "hello", "mime_type": "text/plain"}).json()["parse_id"]
            status = wait_status(b, pid, ("successful", "failure"), timeout)
            latencies.append(time.monotonic() - t0 if status == "successful" else float("inf"))
            if status != "successful":
                break  # still waiting behind the scan: the rest would too
            time.sleep(0.5)
        scan = a.get(f"/documents/v2/parse/{big}").json()["status"]
    done = [x for x in latencies if x != float("inf")]
    return {"label": label, "n": len(latencies), "done": len(done), "first": latencies[0],
            "p50": percentile(done, 50) if done else float("inf"), "max": max(latencies),
            "scan": scan}


def run(tree: str = "", pages: int = 400, timeout: float = 120.0) -> list[dict[str, object]]:
    note(f"[fairness] making a {pages}-page scanned PDF …")
    pdf = scan_pdf(pages)
    rows = [measure(ROOT, pdf, "this tree", timeout)]
    if tree:
        rows.append(measure(Path(tree).resolve(), pdf, f"{tree}", timeout))

    def s(v: object) -> str:
        return "still waiting" if v == float("inf") else f"{v:.2f}"

    print_table(f"Tenant b's one-line jobs while tenant a's {pages}-page scan runs (seconds, submit → successful)",
          ["service", "jobs done", "first job s", "p50 s", "max s", "scan status after them"],
          [[r["label"], f"{r['done']}/{r['n']}", s(r["first"]), s(r["p50"]), s(r["max"]), r["scan"]]
           for r in rows])
    worst = rows[0]["max"]
    print(f"goal: small-job latency ≤ 5 s beside a big scan → {'MET' if worst <= 5 else 'NOT MET'} "  # type: ignore[operator]
         f"(worst {s(worst)} s)")
    return rows
