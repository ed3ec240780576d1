"""Module-level conversion targets for the isolation tests (children import them by name)."""

import os
import time

from pipelines.core.models import DocumentInput, DocumentResult
from pipelines.engine.document import convert


def sleepy(inp: DocumentInput) -> DocumentResult:
    time.sleep(30)
    return convert(inp)


def hungry(inp: DocumentInput) -> DocumentResult:
    hog = bytearray(2 * 1024**3)
    return convert(inp) if hog else convert(inp)


def crashing(inp: DocumentInput) -> DocumentResult:
    os.kill(os.getpid(), 9)
    return convert(inp)


_hoard: list[bytes] = []


def hoarding(megabytes: int) -> int:
    """Keeps ``megabytes`` of memory for the rest of the process's life; its pid."""
    _hoard.append(b"x" * (megabytes * 1024 * 1024))
    return os.getpid()


def raising() -> None:
    raise ValueError("a parser gave up")
