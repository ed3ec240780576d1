"""The process table: processes the daemon started, keyed by OS PID, with their output and exit.

Every process is the leader of its own session (``start_new_session``), so its PID is also its
process group: a kill (DELETE) and a run's timeout reach the whole tree it spawned. A signal sent
through ``/signal`` goes to the process itself, as ``kill(1)`` would.

Output is kept per process as lines with a timestamp (ms since epoch) and a stream name, in a ring
of the last ``OUTPUT_LINES_KEPT`` (10,000) lines holding at most ``OUTPUT_CHARS_KEPT`` (16 Mi)
characters; a line longer than 64 KiB is cut into pieces. Finished processes stay listed (the
oldest are forgotten beyond ``FINISHED_KEPT``, 1,000).

Each process has one thread: it reads both pipes and learns of the exit through a pidfd (polled
every 50 ms where pidfd_open is missing), and enforces a run's timeout. Starting one thread rather
than three cut ``echo hi`` through ``/processes/run`` from ~5 ms to ~2 ms here.
"""

from __future__ import annotations

import itertools
import os
import selectors
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from sandbox_runtime.contract import (
    EXITED,
    NAME_RULE,
    OUTPUT_CHARS_KEPT,
    OUTPUT_LINES_KEPT,
    RUNNING,
    SIGNALED,
    STREAMS,
    TIMED_OUT,
    CommandSpec,
    ErrorCode,
    ProcessInfo,
    RuntimeApiError,
    StartRequest,
    invalid,
    not_found,
    valid_name,
)
from sandbox_runtime.users import identity_of

if TYPE_CHECKING:
    from sandbox_runtime.supervisor import Managed

MAX_LINE = 64 * 1024
FINISHED_KEPT = 1000
OUTPUT_GRACE_S = 0.5
"""After a process exits, how long its output may still drain (a background child can hold the
pipe open) before followers and the run stream see the end."""


def _pidfd_open(pid: int) -> int | None:
    """A descriptor that turns readable when ``pid`` exits (Linux 5.3+), else None."""
    try:
        return os.pidfd_open(pid)  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return None


def now_ms() -> int:
    return int(time.time() * 1000)


class Line(NamedTuple):
    seq: int
    timestamp: int
    stream: str
    text: str


class Process:
    """One started process: its Popen, output ring, followers and exit status."""

    def __init__(self, handle: int, popen: subprocess.Popen, spec: CommandSpec, name: str | None,
                 pipes: dict[str, IO[bytes]], started_at: int, timeout: float | None = None) -> None:
        self.handle = handle
        self.popen = popen
        self.pid = popen.pid
        self.spec = spec
        self.name = name
        self.started_at = started_at
        self.ended_at: int | None = None
        self.timed_out = False
        self.managed: Managed | None = None  # its supervision, when it is a managed process's run
        self._kill_at = time.monotonic() + timeout if timeout else None
        self._stdin = popen.stdin
        self._stdin_lock = threading.Lock()
        self._lines: deque[Line] = deque()
        self._chars_kept = 0
        self._next_seq = 0
        self._done = False  # exited and output drained (or the grace passed)
        self._cond = threading.Condition()
        # One thread per process reads its pipes and notices its exit (through a pidfd).
        threading.Thread(target=self._pump, args=(pipes,), daemon=True, name=f"process-{self.pid}").start()

    # --- output and exit ---

    def _pump(self, pipes: dict[str, IO[bytes]]) -> None:
        sel = selectors.DefaultSelector()
        partial: dict[str, bytes] = {}  # per open pipe: the line begun but not ended yet
        for stream, pipe in pipes.items():
            sel.register(pipe.fileno(), selectors.EVENT_READ, stream)
            partial[stream] = b""
        pidfd = _pidfd_open(self.pid)
        if pidfd is not None:
            sel.register(pidfd, selectors.EVENT_READ, None)
        drain_until: float | None = None  # after the exit: how long output may still come
        try:
            while partial or self.ended_at is None:
                deadlines = [t for t in (self._kill_at, drain_until) if t is not None]
                if pidfd is None and self.ended_at is None:
                    deadlines.append(time.monotonic() + 0.05)  # no pidfd: poll for the exit
                wait = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
                exited = False
                for key, _ in sel.select(wait):
                    if key.data is None:
                        exited = True
                    else:
                        data = os.read(key.fd, 65536)
                        self._feed(key.data, partial, data)
                        if not data:
                            sel.unregister(key.fd)
                            del partial[key.data]
                if self._kill_at is not None and time.monotonic() >= self._kill_at:
                    self._kill_at = None
                    if self.running:
                        self.timed_out = True
                        self.kill_group(signal.SIGKILL)
                if self.ended_at is None and (exited or pidfd is None and self.popen.poll() is not None):
                    if pidfd is not None:
                        sel.unregister(pidfd)
                    self._reaped()
                    drain_until = time.monotonic() + OUTPUT_GRACE_S
                if drain_until is not None and (not partial or time.monotonic() >= drain_until):
                    drain_until = None
                    self._finish()  # a background child may still hold the pipes: they are read on
        finally:
            sel.close()
            if pidfd is not None:
                os.close(pidfd)
            for pipe in pipes.values():
                pipe.close()
            if self.ended_at is None:
                self._reaped()
            self._finish()

    def _feed(self, stream: str, partial: dict[str, bytes], data: bytes) -> None:
        """Split what a pipe gave into lines; at EOF (``data`` empty) the last partial line counts."""
        buf = partial[stream] + data
        pieces = buf.split(b"\n")
        rest = pieces.pop()  # what follows the last newline
        if not data and rest:  # EOF: an unterminated last line counts too
            pieces.append(rest)
            rest = b""
        while len(rest) > MAX_LINE:
            pieces.append(rest[:MAX_LINE])
            rest = rest[MAX_LINE:]
        partial[stream] = rest
        if not pieces:
            return
        ts = now_ms()
        with self._cond:
            for raw in pieces:
                for at in range(0, max(len(raw), 1), MAX_LINE):
                    text = raw[at:at + MAX_LINE]
                    text = text[:-1] if text.endswith(b"\r") else text
                    line = Line(self._next_seq, ts, stream, text.decode("utf-8", "replace"))
                    self._lines.append(line)
                    self._next_seq += 1
                    self._chars_kept += len(line.text)
            while len(self._lines) > OUTPUT_LINES_KEPT or self._chars_kept > OUTPUT_CHARS_KEPT:
                self._chars_kept -= len(self._lines.popleft().text)
            self._cond.notify_all()

    def lines(self, streams: Sequence[str] = STREAMS) -> list[Line]:
        with self._cond:
            return [ln for ln in self._lines if ln.stream in streams]

    def follow(self, streams: Sequence[str] = STREAMS, idle_s: float = 15.0) -> Iterator[list[Line]]:
        """Batches of lines: the kept ones, then live ones as they come, until the process is done.
        An empty batch after ``idle_s`` without output is the caller's cue for a keepalive."""
        seq = 0
        while True:
            with self._cond:
                first = self._next_seq - len(self._lines)
                seq = max(seq, first)
                if seq == self._next_seq:
                    if self._done:
                        return
                    if self._cond.wait(idle_s):
                        continue
                    batch: list[Line] = []
                else:
                    batch = list(itertools.islice(self._lines, seq - first, None))
                    seq = self._next_seq
            picked = [ln for ln in batch if ln.stream in streams]
            if picked or not batch:
                yield picked

    # --- lifecycle ---

    def _reaped(self) -> None:
        self.popen.wait()
        self.ended_at = now_ms()
        self.close_stdin()

    def _finish(self) -> None:
        with self._cond:
            self._done = True
            self._cond.notify_all()

    def wait_done(self, timeout: float | None = None) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._done, timeout)

    @property
    def running(self) -> bool:
        return self.popen.returncode is None

    def send_signal(self, sig: int) -> None:
        if not self.running:
            raise RuntimeApiError(400, ErrorCode.NOT_RUNNING, f"process {self.pid} is not running")
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            raise RuntimeApiError(400, ErrorCode.NOT_RUNNING, f"process {self.pid} is not running") from None

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole process group (the process and what it spawned)."""
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    # --- stdin ---

    @property
    def stdin_writable(self) -> bool:
        return self._stdin is not None and not self._stdin.closed and self.running

    def write_stdin(self, data: bytes) -> None:
        with self._stdin_lock:
            if not self.stdin_writable:
                raise RuntimeApiError(400, ErrorCode.STDIN_NOT_WRITABLE,
                                      f"stdin of process {self.pid} is not writable (not a pipe, closed, "
                                      "or the process ended)")
            try:
                self._stdin.write(data)
                self._stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                raise RuntimeApiError(400, ErrorCode.STDIN_NOT_WRITABLE,
                                      f"stdin of process {self.pid} was closed by the process") from None

    def close_stdin(self) -> None:
        with self._stdin_lock:
            if self._stdin is not None and not self._stdin.closed:
                try:
                    self._stdin.close()
                except OSError:
                    pass

    # --- status ---

    def exit_status(self) -> dict[str, Any]:
        """``status``, ``exit_code`` (``-signal`` for a signal), ``signal`` and ``reason``."""
        rc = self.popen.returncode
        if rc is None:
            return {"status": RUNNING, "exit_code": None, "signal": None, "reason": None}
        sig = -rc if rc < 0 else None
        status = SIGNALED if sig else EXITED
        return {"status": status, "exit_code": rc, "signal": sig,
                "reason": TIMED_OUT if self.timed_out else status}

    def info(self) -> ProcessInfo:
        st = self.exit_status()
        return ProcessInfo(pid=self.pid, status=st["status"], command=self.spec.command, args=self.spec.args,
                           started_at=self.started_at, handle=self.handle, stdin_writable=self.stdin_writable,
                           exit_code=st["exit_code"], signal=st["signal"], ended_at=self.ended_at,
                           name=self.name, managed=self.managed.to_json() if self.managed else None)


class ProcessTable:
    """The processes this daemon started, by PID, with managed names."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_pid: dict[int, Process] = {}
        self._by_name: dict[str, int] = {}
        self._handles = itertools.count(1)

    def spawn(self, req: StartRequest) -> Process:
        return self.start(req, stdin_mode=req.stdin_mode, stdout_mode=req.stdout_mode,
                          stderr_mode=req.stderr_mode, name=req.name)

    def start(self, spec: CommandSpec, *, stdin_mode: str = "closed", stdout_mode: str = "capture",
              stderr_mode: str = "capture", name: str | None = None,
              timeout: float | None = None) -> Process:
        if spec.working_dir is not None and not os.path.isdir(spec.working_dir):
            raise invalid(f"working_dir {spec.working_dir!r} is not an existing directory")
        identity = identity_of(spec.user)
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")  # Python programs' output arrives live
        env.update(identity.pop("env", {}))
        env.update(spec.env)
        pipe_or = {"capture": subprocess.PIPE, "discard": subprocess.DEVNULL}
        with self._lock:
            if name is not None:
                if not valid_name(name):
                    raise invalid(NAME_RULE)
                held = self._by_pid.get(self._by_name.get(name, -1))
                if held is not None and held.running:
                    raise RuntimeApiError(409, ErrorCode.NAME_TAKEN,
                                          f"a running process (pid {held.pid}) is already named {name!r}")
            started_at = now_ms()
            try:
                popen = subprocess.Popen(
                    [spec.command, *spec.args], cwd=spec.working_dir, env=env, start_new_session=True,
                    stdin=subprocess.PIPE if stdin_mode == "pipe" else subprocess.DEVNULL,
                    stdout=pipe_or[stdout_mode], stderr=pipe_or[stderr_mode], close_fds=True, **identity)
            except PermissionError as e:
                who = f" as user {spec.user}" if spec.user else ""
                raise invalid(f"cannot start {spec.command!r}{who}: {e.strerror} "
                              f"(the daemon runs as uid {os.geteuid()})") from None
            except FileNotFoundError:
                raise invalid(f"command not found: {spec.command!r}") from None
            except OSError as e:
                raise invalid(f"cannot start {spec.command!r}: {e.strerror or e}") from None
            pipes = {s: p for s, p in (("stdout", popen.stdout), ("stderr", popen.stderr)) if p is not None}
            proc = Process(next(self._handles), popen, spec, name, pipes, started_at, timeout)
            self._by_pid[proc.pid] = proc
            if name is not None:
                self._by_name[name] = proc.pid
            self._forget_oldest_finished()
        return proc

    def _forget_oldest_finished(self) -> None:
        finished = [p for p in self._by_pid.values() if not p.running]
        for p in finished[: max(0, len(finished) - FINISHED_KEPT)]:
            del self._by_pid[p.pid]
            if p.name is not None and self._by_name.get(p.name) == p.pid:
                del self._by_name[p.name]

    def get(self, ref: str) -> Process:
        """A process by PID (an all-digit reference) or by name; 404 when unknown."""
        with self._lock:
            pid = int(ref) if ref.isdigit() else self._by_name.get(ref)
            proc = self._by_pid.get(pid) if pid is not None else None
        if proc is None:
            raise not_found(f"no process {ref!r}")
        return proc

    def all(self) -> list[Process]:
        with self._lock:
            return sorted(self._by_pid.values(), key=lambda p: p.handle)

    def stop_all(self, grace_s: float = 2.0) -> None:
        """SIGTERM every running process group, then SIGKILL what is left after ``grace_s``."""
        for p in self.all():
            if p.managed is not None:
                p.managed.stop_supervising()
        running = [p for p in self.all() if p.running]
        for p in running:
            p.kill_group(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for p in running:
            try:
                p.popen.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            p.kill_group(signal.SIGKILL)
