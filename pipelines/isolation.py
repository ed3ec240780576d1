"""Run a document conversion in a child process with a time and memory limit.

A hostile or broken document (a decompression bomb, a parser stuck in a loop, a native crash)
then costs one child process, never the worker. Children come from a fork server started before
the worker has threads, with the stage modules preloaded, so each costs a fork, not an import.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import resource
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection

from pipelines.models import ConversionStatus, DocumentInput, DocumentResult, ErrorItem

Convert = Callable[[DocumentInput], DocumentResult]

_ctx = mp.get_context("forkserver")
_ctx.set_forkserver_preload(["pipelines.document"])
# At most this many conversion children at once in this process (``configure``).
_slots = threading.BoundedSemaphore(os.cpu_count() or 1)


def configure(max_children: int) -> None:
    """Run at most ``max_children`` conversions at once (0: one per CPU)."""
    global _slots
    _slots = threading.BoundedSemaphore(max_children or os.cpu_count() or 1)


def start() -> None:
    """Start the fork server now (call before the process starts threads)."""
    from multiprocessing import forkserver

    forkserver.ensure_running()


def _child(conn: Connection, target: Convert, inp: DocumentInput, memory_mb: int) -> None:
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        result = target(inp)
    except MemoryError:
        result = _failed(inp, f"the document needs more than {memory_mb} MiB of memory "
                              "(DOCKLAKE_JOB_MEMORY_MB)")
    # Send back what was learnt about the input (its type), not its bytes.
    result.input = result.input.model_copy(update={"data": b""})
    conn.send(result)
    conn.close()


def _failed(inp: DocumentInput, message: str) -> DocumentResult:
    return DocumentResult(input=inp, status=ConversionStatus.failure,
                          errors=[ErrorItem(stage="worker", message=message)])


def convert_isolated(inp: DocumentInput, *, timeout_s: float, memory_mb: int,
                     target: Convert | None = None) -> DocumentResult:
    """``target(inp)`` (default: ``pipelines.document.convert``) in a limited child process."""
    if target is None:
        from pipelines.document import convert as target
    with _slots:
        return _run_child(inp, timeout_s, memory_mb, target)


def _run_child(inp: DocumentInput, timeout_s: float, memory_mb: int, target: Convert) -> DocumentResult:
    parent, child = _ctx.Pipe(duplex=False)
    proc = _ctx.Process(target=_child, args=(child, target, inp, memory_mb), daemon=True)
    proc.start()
    child.close()
    try:
        if parent.poll(timeout_s):
            try:
                result: DocumentResult = parent.recv()
            except EOFError:
                result = None  # type: ignore[assignment]
            if result is not None:
                inp.mime_type = result.input.mime_type or inp.mime_type
                result.input = inp
                return result
        else:
            proc.kill()
            proc.join(5)
            return _failed(inp, f"the document took longer than {timeout_s:g} s to process "
                                "(DOCKLAKE_JOB_TIMEOUT_S)")
        proc.join(5)
        code = proc.exitcode
        how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        hint = " (out of memory?)" if code == -9 else ""
        return _failed(inp, f"the process converting the document died ({how}){hint}")
    finally:
        parent.close()
        if proc.is_alive():
            proc.kill()
        proc.join(5)
