"""Managed processes: a process started with a ``name``, a ``restart`` policy or a
``health_check`` is supervised by the daemon, which starts it again as its policy says.

Policies are the SDK's: ``never``, ``on_failure`` (an exit code other than 0, or a signal) and
``always``, with at most ``max_restarts`` restarts (counted since the last restart asked through
the API) and a backoff that doubles from
``initial_backoff_ms`` up to ``max_backoff_ms`` (it starts over once a run lasted longer than the
longest backoff). A process given only a name is managed with ``never``: it stays addressable by
its name, and nothing restarts it unasked. A health check (TCP connect, or an HTTP GET answered
with a status under 400, on 127.0.0.1) starts after ``initial_delay_ms`` and runs every
``interval_ms``; ``failure_threshold`` failures in a row mark the process unhealthy and kill it,
and the policy decides what follows. A kill through the API (DELETE) stops the supervision; a
signal sent through the API ends the run like any other exit. ``restart`` through the API
starts it again at once, whatever the policy.

One thread per managed process waits for each run to end; one more runs its health check.
"""

from __future__ import annotations

import http.client
import itertools
import signal
import socket
import threading
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from sandbox_runtime.contract import ErrorCode, RuntimeApiError, StartRequest, invalid

if TYPE_CHECKING:
    from sandbox_runtime.processes import Process, ProcessTable

POLICIES = ("never", "on_failure", "always")
STARTING, RUNNING, BACKING_OFF, STOPPED = "starting", "running", "backing_off", "stopped"
_ids = itertools.count(1)


def _int(doc: dict[str, Any], key: str, default: int | None, low: int = 0) -> int | None:
    value = doc.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise invalid(f"'{key}' must be an integer of at least {low}")
    return value


@dataclass(frozen=True)
class RestartConfig:
    policy: str = "on_failure"
    max_restarts: int | None = None
    initial_backoff_ms: int = 500
    max_backoff_ms: int = 30_000

    @classmethod
    def parse(cls, doc: Any) -> RestartConfig:
        if not isinstance(doc, dict):
            raise invalid("'restart' must be an object {policy, max_restarts?, initial_backoff_ms?, max_backoff_ms?}")
        policy = doc.get("policy", "on_failure")
        if policy not in POLICIES:
            raise invalid(f"'restart.policy' must be one of {', '.join(POLICIES)}")
        return cls(policy, _int(doc, "max_restarts", None), _int(doc, "initial_backoff_ms", 500) or 0,
                   _int(doc, "max_backoff_ms", 30_000) or 0)


@dataclass(frozen=True)
class HealthConfig:
    type: str
    port: int
    path: str | None = None
    initial_delay_ms: int = 5_000
    interval_ms: int = 1_000
    timeout_ms: int = 500
    failure_threshold: int = 3

    @classmethod
    def parse(cls, doc: Any) -> HealthConfig:
        if not isinstance(doc, dict) or doc.get("type") not in ("http", "tcp"):
            raise invalid("'health_check' must be an object with 'type' http or tcp and a 'port'")
        port = _int(doc, "port", None, 1)
        if port is None or port > 65535:
            raise invalid("'health_check.port' must be a TCP port (1-65535)")
        path = doc.get("path")
        if path is not None and (not isinstance(path, str) or not path.startswith("/")):
            raise invalid("'health_check.path' must be a path starting with /")
        return cls(doc["type"], port, path, _int(doc, "initial_delay_ms", 5_000) or 0,
                   _int(doc, "interval_ms", 1_000, 1) or 1, _int(doc, "timeout_ms", 500, 1) or 1,
                   _int(doc, "failure_threshold", 3, 1) or 1)

    def probe(self) -> bool:
        try:
            if self.type == "tcp":
                with socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout_ms / 1000):
                    return True
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout_ms / 1000)
            try:
                conn.request("GET", self.path or "/")
                return conn.getresponse().status < 400
            finally:
                conn.close()
        except (OSError, http.client.HTTPException):
            return False


def start(table: ProcessTable, req: StartRequest) -> Process:
    """A process of ``POST /processes``: supervised when it has a name, a restart policy or a
    health check, else on its own."""
    if req.name is None and req.restart is None and req.health_check is None:
        return table.spawn(req)
    restart = RestartConfig.parse(req.restart) if req.restart is not None else RestartConfig("never")
    health = HealthConfig.parse(req.health_check) if req.health_check is not None else None
    return Managed(table, req, restart, health).current


class Managed:
    """One managed process across its runs (``current`` is the run now; its PID changes)."""

    def __init__(self, table: ProcessTable, req: StartRequest, restart: RestartConfig,
                 health: HealthConfig | None) -> None:
        self.table = table
        self.req = req
        self.id = req.name or f"managed-{next(_ids)}"
        self.restart = restart
        self.health = health
        self.status = STARTING
        self.restart_count = 0
        self._auto_restarts = 0  # since the last restart asked through the API (what max_restarts limits)
        self.health_status = "disabled" if health is None else "starting"
        self.failures = 0
        self.last_exit: dict[str, Any] | None = None
        self.last_error: str | None = None
        self.next_restart_at: int | None = None
        self._stopping = False
        self._manual = False  # a restart asked through the API is under way
        self._cond = threading.Condition()
        self._threads: list[threading.Thread] = []
        self.current = self._launch()
        self._watch()

    def _watch(self) -> None:
        """Start the supervisor and the health checker where they do not run (they end on a stop)."""
        wanted = {"managed": self._supervise, **({"health": self._check_health} if self.health else {})}
        alive = {t.name.split("-", 1)[0] for t in self._threads if t.is_alive()}
        for role, target in wanted.items():
            if role not in alive:
                t = threading.Thread(target=target, daemon=True, name=f"{role}-{self.id}")
                self._threads.append(t)
                t.start()
        self._threads = [t for t in self._threads if t.is_alive()]

    def _launch(self) -> Process:
        proc = self.table.spawn(self.req)
        proc.managed = self
        self.status = RUNNING
        self.next_restart_at = None
        return proc

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.req.name, "status": self.status, "restart_count": self.restart_count,
                "restart": asdict(self.restart), "health_check": asdict(self.health) if self.health else None,
                "health_status": self.health_status, "consecutive_health_failures": self.failures,
                "last_exit": self.last_exit, "last_error": self.last_error, "next_restart_at": self.next_restart_at}

    # --- runs ---

    def _supervise(self) -> None:
        backoff_ms = self.restart.initial_backoff_ms
        while True:
            run = self.current
            run.wait_done()
            with self._cond:
                st = run.exit_status()
                self.last_exit = {"exit_code": st["exit_code"], "signal": st["signal"], "oom_killed": False,
                                  "ended_at": run.ended_at}
                while self._manual:  # the API's restart launches the next run itself
                    self._cond.wait()
                if self.current is not run:
                    continue
                failed = st["exit_code"] != 0
                policy = self.restart.policy
                if self._stopping or policy == "never" or (policy == "on_failure" and not failed):
                    self.status = STOPPED
                    return
                limit = self.restart.max_restarts
                if limit is not None and self._auto_restarts >= limit:
                    self.status = STOPPED
                    self.last_error = f"stopped after {limit} restarts"
                    return
                lasted_ms = (run.ended_at or 0) - run.started_at
                if lasted_ms > self.restart.max_backoff_ms:
                    backoff_ms = self.restart.initial_backoff_ms
                self.status = BACKING_OFF
                self.next_restart_at = int(time.time() * 1000) + backoff_ms
                self._cond.wait(backoff_ms / 1000)
                if self._stopping:
                    self.status = STOPPED
                    return
                if self.current is not run:  # restarted through the API meanwhile
                    continue
                backoff_ms = min(max(backoff_ms * 2, 1), self.restart.max_backoff_ms)
                self.restart_count += 1
                self._auto_restarts += 1
                self.health_status = "disabled" if self.health is None else "starting"
                self.failures = 0
                try:
                    self.current = self._launch()
                except RuntimeApiError as exc:
                    self.status = STOPPED
                    self.last_error = f"could not start it again: {exc.message}"
                    return

    def _check_health(self) -> None:
        health = self.health
        assert health is not None
        time.sleep(health.initial_delay_ms / 1000)
        while self.status != STOPPED or self._manual:
            run = self.current
            ok = run.running and health.probe()
            with self._cond:
                if run is self.current and run.running:
                    self.failures = 0 if ok else self.failures + 1
                    if ok:
                        self.health_status = "healthy"
                    elif self.failures >= health.failure_threshold:
                        self.health_status = "unhealthy"
                        self.last_error = f"health check failed {self.failures} times in a row"
                        run.kill_group(signal.SIGKILL)
            time.sleep(health.interval_ms / 1000)

    # --- what the API asks ---

    def stop_supervising(self) -> None:
        """No more runs (the current one goes on until it ends or is killed)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()

    def stop(self) -> None:
        """No more runs; the current one is killed (with everything it started)."""
        self.stop_supervising()
        self.current.kill_group(signal.SIGKILL)

    def restart_now(self) -> Process:
        """Kill the current run and start the next one at once."""
        with self._cond:
            if self._manual:
                raise RuntimeApiError(409, ErrorCode.RESTARTING, f"process {self.id!r} is already restarting")
            self._manual = True
            self._stopping = False
        try:
            run = self.current
            run.kill_group(signal.SIGKILL)
            run.wait_done(10)
            with self._cond:
                self.restart_count += 1
                self._auto_restarts = 0
                self.last_error = None
                self.failures = 0
                self.health_status = "disabled" if self.health is None else "starting"
                self.current = self._launch()
        finally:
            with self._cond:
                self._manual = False
                self._cond.notify_all()
        self._watch()
        return self.current
