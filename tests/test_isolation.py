"""Per-document time and memory limits: a bad document costs a child process, not the worker."""

from __future__ import annotations

import time

from pipelines.isolation import convert_isolated
from pipelines.models import ConversionStatus, DocumentInput
from tests import isolation_targets

DOC = DocumentInput(data=b"# ok\n\nfine", declared_mime_type="text/markdown")


def test_normal_document_converts_in_a_child() -> None:
    r = convert_isolated(DOC, timeout_s=60, memory_mb=1024)
    assert r.status == ConversionStatus.success
    assert r.pages[0].fragments[0].content["content"] == "ok"
    assert r.input is DOC


def test_time_limit() -> None:
    t0 = time.monotonic()
    r = convert_isolated(DOC, timeout_s=1.0, memory_mb=1024, target=isolation_targets.sleepy)
    assert time.monotonic() - t0 < 10
    assert r.status == ConversionStatus.failure
    assert "longer than 1 s" in r.error_message()


def test_memory_limit() -> None:
    r = convert_isolated(DOC, timeout_s=60, memory_mb=512, target=isolation_targets.hungry)
    assert r.status == ConversionStatus.failure
    assert "512 MiB" in r.error_message()


def test_native_crash() -> None:
    r = convert_isolated(DOC, timeout_s=60, memory_mb=1024, target=isolation_targets.crashing)
    assert r.status == ConversionStatus.failure
    assert "died (signal 9)" in r.error_message()
    # and the next document is fine
    assert convert_isolated(DOC, timeout_s=60, memory_mb=1024).status == ConversionStatus.success
