"""Run document work in a child process with a time and memory limit.

A hostile or broken document (a decompression bomb, a parser stuck in a loop, a native crash)
then costs one child process, never the worker. Children come from a fork server (a fresh
interpreter with the stage modules preloaded), so each costs a fork, not an import. A child
dies with the fork server, and the fork server with the worker, so nothing outlives a killed
worker; an alarm ends a child that overruns even if nobody is left to kill it.

A child that succeeded is kept for the next call of the same tenant (organization), up to
``reuse`` calls: a fresh fork per small document cost three times the conversion (29 ms of CPU
against 8 ms; cold caches and copy-on-write faults). A child is never shared between tenants
(nor used again for a call without one), and is replaced after any failure, overrun or crash,
and once it has grown by ``RETIRE_GROWTH_MB``, so one document's damage or garbage never meets
another tenant's document nor eats the next one's memory limit; a child kept a minute without a
call ends.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import resource
import signal
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from multiprocessing import spawn as mp_spawn
from multiprocessing.connection import Connection
from typing import Any

from pipelines.core.children import die_with_parent
from pipelines.core.errors import describe
from pipelines.core.models import ConversionStatus, DocumentInput, DocumentResult, ErrorItem

Convert = Callable[[DocumentInput], DocumentResult]

# What the fork server imports once, so no child imports it again: the stages, this module (a
# child runs ``_child`` from it) and, last, ``stages.preload`` (the libraries the readers import
# lazily; it also freezes what the fork server holds, so no child's garbage collection walks it).
PRELOAD = ["pipelines.engine.document", "pipelines.engine.split", "pipelines.engine.isolation"]
LAST = "pipelines.stages.preload"
CHILD_NAME = "docklake-isolated"

_ctx = mp.get_context("forkserver")
_ctx.set_forkserver_preload([*PRELOAD, LAST])


def _without_main(get_preparation_data: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    """``multiprocessing.spawn.get_preparation_data`` that, for our children only, leaves out the
    parent's ``__main__``: a forkserver child otherwise runs the parent's main module again
    before it starts (``python -m api.cli.main worker``: api.cli.main and everything it imports, typer, rich,
    the client, about 50 ms per document). Our children need nothing from ``__main__``: what they
    run (``_child`` and its arguments) is pickled by reference to importable modules."""

    def prepared(name: str) -> dict[str, Any]:
        data = get_preparation_data(name)
        if name == CHILD_NAME:
            data.pop("init_main_from_name", None)
            data.pop("init_main_from_path", None)
        return data

    prepared.docklake_without_main = True  # type: ignore[attr-defined]
    return prepared


if not getattr(mp_spawn.get_preparation_data, "docklake_without_main", False):
    mp_spawn.get_preparation_data = _without_main(mp_spawn.get_preparation_data)


class FairSlots:
    """Child-process slots shared fairly between tenants.

    ``capacity`` children run at once, handed out round-robin between the tenants waiting: a
    tenant whose many page ranges queue up gets one slot in turn, not all of them. A tenant with
    nothing running may also start one child at once beyond ``capacity`` (never beyond twice it):
    its small job then shares the CPUs with the big one for a moment instead of waiting for one
    of the big one's children to end.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self.running: dict[str, int] = {}
        self.total = 0
        self._turns: deque[str] = deque()  # tenants waiting, in the order they get a slot
        self._waiting: dict[str, int] = {}
        self._cond = threading.Condition()

    def _may_start(self, tenant: str) -> bool:
        if self.total >= 2 * self.capacity:
            return False
        if not self.running.get(tenant):
            return True
        return self.total < self.capacity and self._turns[0] == tenant

    def acquire(self, tenant: str) -> None:
        with self._cond:
            if tenant not in self._waiting:
                self._turns.append(tenant)
            self._waiting[tenant] = self._waiting.get(tenant, 0) + 1
            while not self._may_start(tenant):
                self._cond.wait()
            self._waiting[tenant] -= 1
            self._turns.remove(tenant)
            if self._waiting[tenant]:
                self._turns.append(tenant)  # its next child waits for everyone else's turn
            else:
                del self._waiting[tenant]
            self.running[tenant] = self.running.get(tenant, 0) + 1
            self.total += 1

    def release(self, tenant: str) -> None:
        with self._cond:
            self.running[tenant] -= 1
            if not self.running[tenant]:
                del self.running[tenant]
            self.total -= 1
            self._cond.notify_all()

    @contextmanager
    def slot(self, tenant: str) -> Iterator[None]:
        self.acquire(tenant)
        try:
            yield
        finally:
            self.release(tenant)


_slots = FairSlots(os.cpu_count() or 1)


class IsolatedFailure(Exception):
    """The child did not return a value: it overran, ran out of memory, crashed or raised."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


RETIRE_GROWTH_MB = 256  # a child whose resident memory grew this much since it started is replaced
IDLE_S = 60.0  # a child kept this long without a call is ended


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _serve(conn: Connection, memory_mb: int) -> None:
    """A child's life: calls from the parent, one at a time, until it closes the pipe. Each
    answer is ``(status, value, MiB the process grew by since it started)``."""
    die_with_parent(signal.SIGKILL)
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    born = _rss_mb()
    while True:
        try:
            fn, args, timeout_s = conn.recv()
        except (EOFError, OSError):
            return
        signal.alarm(int(timeout_s) + 5)
        try:
            out: tuple[str, Any] = ("ok", fn(*args))
        except MemoryError:
            out = ("error", f"the document needs more than {memory_mb} MiB of memory (DOCKLAKE_LIMITS__JOB_MEMORY_MB)")
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, never raised there
            out = ("error", describe(exc))
        signal.alarm(0)
        conn.send((*out, _rss_mb() - born))


class _Child:
    """One child process and the pipe to it."""

    def __init__(self, key: tuple[str, int]) -> None:
        self.key = key
        self.calls = 0
        self.idle_since = 0.0
        parent, child = _ctx.Pipe()
        self.conn = parent
        self.proc = _ctx.Process(target=_serve, args=(child, key[1]), daemon=True, name=CHILD_NAME)
        try:
            self.proc.start()
        except OSError as exc:  # the fork server is gone or the system is out of processes
            parent.close()
            child.close()
            raise IsolatedFailure(f"could not start a process for the document: {exc}") from exc
        child.close()

    def ready(self) -> bool:
        """Alive, with nothing unread on its pipe."""
        try:
            return self.proc.is_alive() and not self.conn.poll(0)
        except OSError:
            return False

    def send(self, fn: Callable[..., Any], args: tuple, timeout_s: float) -> None:
        self.conn.send((fn, args, timeout_s))
        self.calls += 1

    def answer(self, timeout_s: float) -> tuple[str, Any, float]:
        if not self.conn.poll(timeout_s):
            raise IsolatedFailure(f"the document took longer than {timeout_s:g} s to process "
                                  "(DOCKLAKE_LIMITS__JOB_TIMEOUT_S)")
        try:
            status, value, grown = self.conn.recv()
        except (EOFError, ConnectionResetError):
            self.proc.join(5)
            raise IsolatedFailure(_death(self.proc.exitcode, self.key[1])) from None
        return status, value, grown

    def close(self) -> None:
        self.conn.close()
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)


class _Kept:
    """The children kept for their tenant's next call, the least recently used first out; a
    sweeper thread ends those kept longer than ``IDLE_S`` (it stops when none is kept)."""

    def __init__(self, reuse: int, most: int) -> None:
        self.reuse, self.most = reuse, most
        self._idle: OrderedDict[int, _Child] = OrderedDict()
        self._lock = threading.Lock()
        self._sweeper: threading.Thread | None = None

    def _stale(self) -> list[_Child]:
        """Take the children kept too long out (under the lock)."""
        stale = [c for c in self._idle.values() if time.monotonic() - c.idle_since > IDLE_S]
        for c in stale:
            del self._idle[id(c)]
        return stale

    def _sweep(self) -> None:
        while True:
            time.sleep(IDLE_S / 4)
            with self._lock:
                stale = self._stale()
                if not self._idle:
                    self._sweeper = None
            for c in stale:
                c.close()
            if self._sweeper is None:
                return

    def take(self, key: tuple[str, int]) -> _Child | None:
        """The most recently kept child for ``key``, if it is still alive and quiet (one that
        died while kept, killed or out of memory, is ended instead)."""
        with self._lock:
            stale = self._stale()
            found = next((c for c in reversed(self._idle.values()) if c.key == key), None)
            if found is not None:
                del self._idle[id(found)]
        if found is not None and not found.ready():
            stale.append(found)
            found = None
        for c in stale:
            c.close()
        return found

    def keep(self, child: _Child, grown_mb: float) -> None:
        if child.calls >= self.reuse or grown_mb > RETIRE_GROWTH_MB or not child.key[0]:
            child.close()
            return
        child.idle_since = time.monotonic()
        with self._lock:
            self._idle[id(child)] = child
            evicted = [self._idle.popitem(last=False)[1] for _ in range(len(self._idle) - self.most)]
            if self._sweeper is None:
                self._sweeper = threading.Thread(target=self._sweep, name="docklake-kept-children", daemon=True)
                self._sweeper.start()
        for c in evicted:
            c.close()

    def clear(self) -> None:
        with self._lock:
            idle, self._idle = list(self._idle.values()), OrderedDict()
        for c in idle:
            c.close()


_kept = _Kept(reuse=50, most=2 * (os.cpu_count() or 1))


def configure(max_children: int, reuse: int = 50) -> None:
    """Run ``max_children`` children at once (0: one per CPU; see ``FairSlots``), each used for
    up to ``reuse`` calls of one tenant (1: a fresh child for every call)."""
    global _slots, _kept
    _slots = FairSlots(max_children or os.cpu_count() or 1)
    _kept.clear()
    _kept = _Kept(reuse=max(1, reuse), most=2 * _slots.capacity)


def start(preload: list[str] | None = None) -> None:
    """Start the fork server now (call before the process starts threads), with ``preload``
    imported in it besides the stages (what a ``sink`` needs, so no child imports it again)."""
    from multiprocessing import forkserver

    if preload:
        _ctx.set_forkserver_preload([*PRELOAD, *preload, LAST])
    forkserver.ensure_running()


def run_isolated(fn: Callable[..., Any], *args: Any, timeout_s: float, memory_mb: int, tenant: str = "",
                 fair: bool = True) -> Any:
    """``fn(*args)`` in a limited child, in ``tenant``'s turn (``fair=False``: at once, for work
    that waits rather than computes, such as a download); raises ``IsolatedFailure`` if no
    value comes back. The child is one ``tenant`` used before (see the module's notes), or new."""
    key = (tenant, memory_mb)
    with _slots.slot(tenant) if fair else nullcontext():
        child = _kept.take(key) if tenant else None
        if child is not None:
            try:
                child.send(fn, args, timeout_s)
            except OSError:
                child.close()
                child = None
        try:
            if child is None:
                child = _Child(key)
                try:
                    child.send(fn, args, timeout_s)
                except OSError as exc:
                    raise IsolatedFailure(f"the process for the document ended at once: {exc}") from exc
            status, value, grown = child.answer(timeout_s)
        except BaseException:
            if child is not None:
                child.close()
            raise
        if status != "ok":
            child.close()
            raise IsolatedFailure(value)
        _kept.keep(child, grown)
        return value


def _death(code: int | None, memory_mb: int) -> str:
    """Why a child that sent nothing back ended, as a user can act on it. Native readers
    (pdfium, zlib, image codecs) that cannot allocate under the memory limit abort (SIGABRT) or
    crash (SIGSEGV, SIGBUS) rather than raise."""
    if code is not None and code < 0:
        sig = -code
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        if sig in (signal.SIGABRT, signal.SIGKILL, signal.SIGSEGV, signal.SIGBUS):
            return (f"the process converting the document died (signal {sig}) by {name}: a damaged or hostile "
                    f"file (for example a compression bomb), or one that needs more than the memory limit "
                    f"of {memory_mb} MiB (DOCKLAKE_LIMITS__JOB_MEMORY_MB)")
        return f"the process converting the document died (signal {sig}) by {name}"
    return f"the process converting the document ended without a result (exit code {code})"


Sink = Callable[[DocumentResult], None]


def _convert(target: Convert, inp: DocumentInput, sink: Sink | None) -> DocumentResult:
    result = target(inp.loaded())
    # Send back what was learnt about the input (its type), not its bytes.
    result.input = result.input.without_data()
    if sink is not None:
        # The result goes where it belongs from here, and only its summary to the parent: a
        # large result costs this limited process, never the worker.
        result.store(sink)
    return result


def convert_isolated(inp: DocumentInput, *, timeout_s: float, memory_mb: int,
                     target: Convert | None = None, tenant: str = "", sink: Sink | None = None) -> DocumentResult:
    """``target(inp)`` (default: ``pipelines.engine.document.convert``) in a limited child process,
    which also reads the input's bytes when it has only their ``source``; a child that fails
    gives a ``failure`` result saying why. With a ``sink`` (picklable), the child hands it the
    result and returns only its summary (``stored`` set, pages without fragments)."""
    if target is None:
        from pipelines.engine.document import convert as target
    try:
        result: DocumentResult = run_isolated(_convert, target, inp, sink, timeout_s=timeout_s,
                                              memory_mb=memory_mb, tenant=tenant)
    except IsolatedFailure as exc:
        return DocumentResult(input=inp, status=ConversionStatus.failure,
                              errors=[ErrorItem(stage="worker", message=exc.message)])
    inp.mime_type = result.input.mime_type or inp.mime_type
    result.input = inp
    return result
