"""Run document work in a child process with a time and memory limit.

A hostile or broken document (a decompression bomb, a parser stuck in a loop, a native crash)
then costs one child process, never the worker. Children come from a fork server (a fresh
interpreter with the stage modules preloaded), so each costs a fork, not an import. A child
dies with the fork server, and the fork server with the worker, so nothing outlives a killed
worker; an alarm ends a child that overruns even if nobody is left to kill it.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import resource
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from multiprocessing import spawn as mp_spawn
from multiprocessing.connection import Connection
from typing import Any

from pipelines.children import die_with_parent
from pipelines.errors import describe
from pipelines.models import ConversionStatus, DocumentInput, DocumentResult, ErrorItem

Convert = Callable[[DocumentInput], DocumentResult]

# What the fork server imports once, so no child imports it again: the stages, this module (a
# child runs ``_child`` from it) and, last, ``stages.preload`` (the libraries the readers import
# lazily; it also freezes what the fork server holds, so no child's garbage collection walks it).
PRELOAD = ["pipelines.document", "pipelines.split", "pipelines.isolation"]
LAST = "pipelines.stages.preload"
CHILD_NAME = "docklake-isolated"

_ctx = mp.get_context("forkserver")
_ctx.set_forkserver_preload([*PRELOAD, LAST])


def _without_main(get_preparation_data: Callable[[str], dict[str, Any]]) -> Callable[[str], dict[str, Any]]:
    """``multiprocessing.spawn.get_preparation_data`` that, for our children only, leaves out the
    parent's ``__main__``: a forkserver child otherwise runs the parent's main module again
    before it starts (``python -m api.cli worker``: api.cli and everything it imports, typer, rich,
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


def configure(max_children: int) -> None:
    """Run ``max_children`` children at once (0: one per CPU; see ``FairSlots``)."""
    global _slots
    _slots = FairSlots(max_children or os.cpu_count() or 1)


def start(preload: list[str] | None = None) -> None:
    """Start the fork server now (call before the process starts threads), with ``preload``
    imported in it besides the stages (what a ``sink`` needs, so no child imports it again)."""
    from multiprocessing import forkserver

    if preload:
        _ctx.set_forkserver_preload([*PRELOAD, *preload, LAST])
    forkserver.ensure_running()


def _child(conn: Connection, fn: Callable[..., Any], args: tuple, memory_mb: int, timeout_s: float) -> None:
    die_with_parent(signal.SIGKILL)
    signal.alarm(int(timeout_s) + 5)
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        out: tuple[str, Any] = ("ok", fn(*args))
    except MemoryError:
        out = ("error", f"the document needs more than {memory_mb} MiB of memory (DOCKLAKE_LIMITS__JOB_MEMORY_MB)")
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, never raised there
        out = ("error", describe(exc))
    conn.send(out)
    conn.close()


def run_isolated(fn: Callable[..., Any], *args: Any, timeout_s: float, memory_mb: int, tenant: str = "",
                 fair: bool = True) -> Any:
    """``fn(*args)`` in a limited child, in ``tenant``'s turn (``fair=False``: at once, for work
    that waits rather than computes, such as a download); raises ``IsolatedFailure`` if no
    value comes back."""
    with _slots.slot(tenant) if fair else nullcontext():
        parent, child = _ctx.Pipe(duplex=False)
        proc = _ctx.Process(target=_child, args=(child, fn, args, memory_mb, timeout_s), daemon=True,
                            name=CHILD_NAME)
        try:
            proc.start()
        except OSError as exc:  # the fork server is gone or the system is out of processes
            parent.close()
            child.close()
            raise IsolatedFailure(f"could not start a process for the document: {exc}") from exc
        child.close()
        try:
            if not parent.poll(timeout_s):
                raise IsolatedFailure(f"the document took longer than {timeout_s:g} s to process "
                                      "(DOCKLAKE_LIMITS__JOB_TIMEOUT_S)")
            try:
                status, value = parent.recv()
            except EOFError:
                proc.join(5)
                raise IsolatedFailure(_death(proc.exitcode, memory_mb)) from None
            if status != "ok":
                raise IsolatedFailure(value)
            return value
        finally:
            parent.close()
            if proc.is_alive():
                proc.kill()
            proc.join(5)


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
    """``target(inp)`` (default: ``pipelines.document.convert``) in a limited child process,
    which also reads the input's bytes when it has only their ``source``; a child that fails
    gives a ``failure`` result saying why. With a ``sink`` (picklable), the child hands it the
    result and returns only its summary (``stored`` set, pages without fragments)."""
    if target is None:
        from pipelines.document import convert as target
    try:
        result: DocumentResult = run_isolated(_convert, target, inp, sink, timeout_s=timeout_s,
                                              memory_mb=memory_mb, tenant=tenant)
    except IsolatedFailure as exc:
        return DocumentResult(input=inp, status=ConversionStatus.failure,
                              errors=[ErrorItem(stage="worker", message=exc.message)])
    inp.mime_type = result.input.mime_type or inp.mime_type
    result.input = inp
    return result
