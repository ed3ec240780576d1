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
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from pipelines.children import die_with_parent
from pipelines.models import ConversionStatus, DocumentInput, DocumentResult, ErrorItem

Convert = Callable[[DocumentInput], DocumentResult]

_ctx = mp.get_context("forkserver")
_ctx.set_forkserver_preload(["pipelines.document", "pipelines.split"])
# At most this many children at once in this process (``configure``).
_slots = threading.BoundedSemaphore(os.cpu_count() or 1)


class IsolatedFailure(Exception):
    """The child did not return a value: it overran, ran out of memory, crashed or raised."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def configure(max_children: int) -> None:
    """Run at most ``max_children`` children at once (0: one per CPU)."""
    global _slots
    _slots = threading.BoundedSemaphore(max_children or os.cpu_count() or 1)


def start() -> None:
    """Start the fork server now (call before the process starts threads)."""
    from multiprocessing import forkserver

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
        out = ("error", f"{type(exc).__name__}: {exc}")
    conn.send(out)
    conn.close()


def run_isolated(fn: Callable[..., Any], *args: Any, timeout_s: float, memory_mb: int) -> Any:
    """``fn(*args)`` in a limited child; raises ``IsolatedFailure`` if no value comes back."""
    with _slots:
        parent, child = _ctx.Pipe(duplex=False)
        proc = _ctx.Process(target=_child, args=(child, fn, args, memory_mb, timeout_s), daemon=True)
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
                code = proc.exitcode
                how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                hint = " (out of memory?)" if code == -9 else ""
                raise IsolatedFailure(f"the process converting the document died ({how}){hint}") from None
            if status != "ok":
                raise IsolatedFailure(value)
            return value
        finally:
            parent.close()
            if proc.is_alive():
                proc.kill()
            proc.join(5)


def _convert(target: Convert, inp: DocumentInput) -> DocumentResult:
    result = target(inp)
    # Send back what was learnt about the input (its type), not its bytes.
    result.input = result.input.model_copy(update={"data": b""})
    return result


def convert_isolated(inp: DocumentInput, *, timeout_s: float, memory_mb: int,
                     target: Convert | None = None) -> DocumentResult:
    """``target(inp)`` (default: ``pipelines.document.convert``) in a limited child process;
    a child that fails gives a ``failure`` result saying why."""
    if target is None:
        from pipelines.document import convert as target
    try:
        result: DocumentResult = run_isolated(_convert, target, inp, timeout_s=timeout_s, memory_mb=memory_mb)
    except IsolatedFailure as exc:
        return DocumentResult(input=inp, status=ConversionStatus.failure,
                              errors=[ErrorItem(stage="worker", message=exc.message)])
    inp.mime_type = result.input.mime_type or inp.mime_type
    result.input = inp
    return result
