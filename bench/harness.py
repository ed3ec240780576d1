"""Shared helpers for the benchmarks: timing, percentiles, tables, and a real API server."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
API_TOKEN = "bench-token"
ORG, PROJECT = "bench-org", "bench-project"


# ---------------------------------------------------------------- timing


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Run ``fn`` once; return (milliseconds, result)."""
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1000, out


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of ``samples``."""
    if not samples:
        return float("nan")
    s = sorted(samples)
    k = max(0, min(len(s) - 1, int(round(q / 100 * len(s) + 0.5)) - 1))
    return s[k]


def summary(samples: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(samples),
        "p50": statistics.median(samples) if samples else float("nan"),
        "p99": percentile(samples, 99),
        "max": max(samples) if samples else float("nan"),
        "mean": statistics.fmean(samples) if samples else float("nan"),
    }


def ms(v: float) -> str:
    if v != v:  # NaN
        return "–"
    return f"{v:.2f}" if v < 10 else f"{v:.1f}" if v < 100 else f"{v:.0f}"


# ---------------------------------------------------------------- output


def print_table(title: str, headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    rows = [[str(c) for c in r] for r in rows]
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # plain fallback
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        print(f"\n{title}")
        print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
        print("  ".join("-" * w for w in widths))
        for r in rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
        return
    table = Table(title=title, title_justify="left")
    for i, h in enumerate(headers):
        table.add_column(h, justify="left" if i == 0 else "right")
    for r in rows:
        table.add_row(*r)
    Console(width=160).print(table)


def note(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- CPU of a process tree


_ROLES = (("prefect", "Prefect server"), ("multiprocessing.forkserver", "conversion processes"),
          ("api.cli.main worker", "worker"), ("api.cli.main deliver", "feeder"), ("api.cli.main serve", "API (docklake serve)"))


def tree_cpu(root: int) -> dict[str, float]:
    """CPU seconds (user + system, with their reaped children) of process ``root`` and every live
    process under it, by role (the Prefect server, the worker, its conversion processes, the
    API): what a service spent, less noisy than its wall time on a shared machine. Linux only."""
    tick = os.sysconf("SC_CLK_TCK")
    procs: dict[int, tuple[int, str, float]] = {}  # pid → (parent, command line, CPU seconds)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        procs[int(entry.name)] = (int(fields[1]), cmd, sum(int(f) for f in fields[11:15]) / tick)
    under = {root}
    grew = True
    while grew:
        more = {pid for pid, (parent, _, _) in procs.items() if parent in under} - under
        under |= more
        grew = bool(more)
    found: dict[str, float] = {}
    for pid in under & procs.keys():
        _, cmd, cpu = procs[pid]
        role = next((name for key, name in _ROLES if key in cmd), "other")
        found[role] = found.get(role, 0.0) + cpu
    return found


def cpu_spent(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {k: after.get(k, 0.0) - before.get(k, 0.0) for k in sorted(set(before) | set(after))}


def wait_idle(pid: int, timeout: float, who: str) -> None:
    """Until every process under ``pid`` has spent under 5 % of a CPU for a second (a service's
    start-up work done), or ``timeout`` seconds; then the measurement starts either way."""
    deadline = time.monotonic() + timeout
    before = tree_cpu(pid)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        after = tree_cpu(pid)
        if sum(cpu_spent(before, after).values()) < 0.05:
            return
        before = after
    note(f"[{who}] the service did not go quiet; measuring anyway")


# ---------------------------------------------------------------- the real API


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SERVER_CODE = """
import uvicorn
from api.app import create_app
from pipelines.core.logs import configure_logging
from pipelines.core.settings import Settings
s = Settings()
configure_logging(s.log_level, s.log_json)
uvicorn.run(create_app(s), host=s.api.host, port=s.api.port, log_config=None, access_log=False,
            ws_per_message_deflate=False)
"""


class ApiServer:
    """The docklake API under uvicorn in a child process, as ``docklake serve`` runs it (minus the
    workers and the Prefect server): a fresh data dir, one API key, logs to a file."""

    def __init__(self, data_dir: Path | None = None, catalog_url: str = "",
                 extra_env: dict[str, str] | None = None) -> None:
        self.extra_env = extra_env or {}
        self._tmp = None if data_dir else tempfile.TemporaryDirectory(prefix="docklake-bench-")
        self.data_dir = Path(data_dir or self._tmp.name)  # type: ignore[union-attr]
        self.catalog_url = catalog_url
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DOCKLAKE_")}
        env.update(
            DOCKLAKE_DATA_DIR=str(self.data_dir),
            DOCKLAKE_API__HOST="127.0.0.1",
            DOCKLAKE_API__PORT=str(self.port),
            DOCKLAKE_API_KEYS=f"{API_TOKEN}={ORG}/{PROJECT}",
            DOCKLAKE_PREFECT__API_URL="http://127.0.0.1:9/api",  # never contacted: no worker runs
            PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
        )
        if self.catalog_url:
            env["DOCKLAKE_STORAGE__CATALOG_URL"] = self.catalog_url
        env.update(self.extra_env)
        return env

    def __enter__(self) -> ApiServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log = open(self.data_dir / "api.log", "wb")
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER_CODE], cwd=ROOT, env=self.env(),
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the API exited ({self.proc.returncode}); see {self.data_dir}/api.log")
            try:
                if httpx.get(self.base_url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.__exit__()
        raise RuntimeError("the API did not start within 60 s")

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=60,
                            headers={"Authorization": f"Bearer {API_TOKEN}"})

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if getattr(self, "log", None):
            self.log.close()
        if self._tmp is not None:
            self._tmp.cleanup()
