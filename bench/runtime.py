"""The in-sandbox runtime daemon (``python -m sandbox_runtime``) on 127.0.0.1, outside any container:
time to healthy, keep-alive ``/health`` latency, ``POST /processes/run`` of ``echo hi`` (first
output event and whole run) next to ``subprocess.run(["echo", "hi"])`` in this process (the bare
cost of a spawn), and the daemon's resident memory idle and after the runs.
"""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import free_port, ms, note, print_table, summary
from sandbox_runtime.client import RuntimeClient

REPO = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return kb / 1024


def run(health_n: int = 1000, run_n: int = 100) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        token_file = Path(tmp) / "token"
        token_file.write_text(TOKEN)
        t0 = time.perf_counter()
        daemon = subprocess.Popen([sys.executable, "-m", "sandbox_runtime", "--host", "127.0.0.1",
                                   "--port", str(port), "--token-file", str(token_file), "--quiet"],
                                  env={**os.environ, "PYTHONPATH": str(REPO)})
        try:
            client = RuntimeClient(f"http://127.0.0.1:{port}", token=TOKEN)
            client.wait_healthy(timeout=15, interval=0.005)
            ready_s = time.perf_counter() - t0
            time.sleep(0.5)
            rss_idle = _rss_mib(daemon.pid)

            conn = http.client.HTTPConnection("127.0.0.1", port)
            health = []
            for _ in range(health_n):
                t = time.perf_counter()
                conn.request("GET", "/api/v1/health", headers={"Authorization": f"Bearer {TOKEN}"})
                conn.getresponse().read()
                health.append(time.perf_counter() - t)
            conn.close()

            started, first, whole = [], [], []
            for _ in range(run_n):
                t = time.perf_counter()
                for name, _data in client.run("echo", ["hi"]):
                    if name == "started":
                        started.append(time.perf_counter() - t)
                    elif name == "output" and len(first) < len(started):
                        first.append(time.perf_counter() - t)
                whole.append(time.perf_counter() - t)
            bare = []
            for _ in range(run_n):
                t = time.perf_counter()
                subprocess.run(["echo", "hi"], capture_output=True, check=True)
                bare.append(time.perf_counter() - t)
            rss_after = _rss_mib(daemon.pid)
        finally:
            daemon.terminate()
            daemon.wait(10)

    rows = []
    for label, samples in [(f"GET /health, keep-alive (n={health_n})", health),
                           ("run echo hi: started event", started), ("run echo hi: first output event", first),
                           ("run echo hi: whole stream (exit, closed)", whole),
                           ("baseline: subprocess.run(echo hi) in-process", bare)]:
        s = summary([v * 1000 for v in samples])
        rows.append([label, s["n"], ms(s["p50"]), ms(s["p99"]), ms(s["max"])])
    print_table("runtime daemon (ms)", ["what", "n", "p50", "p99", "max"], rows)
    note(f"daemon healthy {ready_s * 1000:.0f} ms after spawn; RSS {rss_idle:.1f} MiB idle, "
         f"{rss_after:.1f} MiB after {run_n} runs (their records and output kept)")
