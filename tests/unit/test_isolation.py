"""Per-document time and memory limits: a bad document costs a child process, not the worker."""

from __future__ import annotations

import time

from pipelines.core.models import ConversionStatus, DocumentInput
from pipelines.engine.isolation import convert_isolated
from tests.support import isolation_targets

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


def test_fair_slots_take_tenants_in_turn_and_let_a_newcomer_start_at_once() -> None:
    import threading

    from pipelines.engine.isolation import FairSlots

    slots = FairSlots(2)
    order: list[str] = []
    lock = threading.Lock()

    def worker(tenant: str, started: threading.Event, go: threading.Event) -> None:
        slots.acquire(tenant)
        with lock:
            order.append(tenant)
        started.set()
        go.wait(10)
        slots.release(tenant)

    def start(tenant: str) -> tuple[threading.Event, threading.Event]:
        started, go = threading.Event(), threading.Event()
        threading.Thread(target=worker, args=(tenant, started, go), daemon=True).start()
        return started, go

    big = [start("a") for _ in range(2)]  # tenant a fills both slots
    assert all(s.wait(5) for s, _ in big)
    queued_a = [start("a") for _ in range(3)]  # and queues three more
    time.sleep(0.2)
    assert not any(s.is_set() for s, _ in queued_a)
    b_started, b_go = start("b")  # tenant b has nothing running: it starts at once, beside them
    assert b_started.wait(5) and slots.total == 3
    c_started, c_go = start("c")
    assert c_started.wait(5) and slots.total == 4  # a burst never exceeds twice the capacity
    d_started, d_go = start("d")
    time.sleep(0.2)
    assert not d_started.is_set()
    # a freed slot goes to d, which waits with nothing running, before a's queued children
    b_go.set()
    assert d_started.wait(5)
    assert not any(s.is_set() for s, _ in queued_a)
    for _, go in big + [(c_started, c_go), (d_started, d_go)]:
        go.set()
    # alone now, a runs two at a time (the capacity), its third when one of those ends
    deadline = time.monotonic() + 5
    while sum(s.is_set() for s, _ in queued_a) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    running = [go for s, go in queued_a if s.is_set()]
    assert len(running) == 2
    running[0].set()
    assert all(s.wait(5) for s, _ in queued_a)
    for _, go in queued_a:
        go.set()
    assert order == ["a", "a", "b", "c", "d", "a", "a", "a"]
    deadline = time.monotonic() + 5
    while slots.total and time.monotonic() < deadline:
        time.sleep(0.05)
    assert slots.total == 0 and slots.running == {}


def test_the_child_writes_the_result_and_returns_only_its_summary(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from assets.results import ResultSink, read_result
    from assets.storage import Storage

    text = "\f".join(f"page {n} " + "word " * 100 for n in range(1, 51)).encode()
    inp = DocumentInput(data=text, declared_mime_type="text/plain")
    url = f"file://{tmp_path}/storage"
    r = convert_isolated(inp, timeout_s=60, memory_mb=1024, sink=ResultSink(url, "results/o/p/_/job/1", "job"))
    assert r.status == ConversionStatus.success and r.stored
    assert len(r.pages) == 50 and all(p.fragments == [] for p in r.pages) and r.chunks == []
    assert r.parsed_pages_count == 50 and r.total_pages == 50
    stored = read_result(Storage(url), "results/o/p/_/job/1", 50)
    assert [p.page_number for p in stored.pages] == list(range(1, 51))
    assert stored.pages[9].fragments[0].content["content"].startswith("page 10 word")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # reaped between open and read
        return False


def test_a_child_is_used_again_by_its_tenant_and_never_by_another() -> None:
    import os

    from pipelines.engine.isolation import run_isolated

    a1 = run_isolated(os.getpid, timeout_s=60, memory_mb=1024, tenant="org-reuse-a")
    a2 = run_isolated(os.getpid, timeout_s=60, memory_mb=1024, tenant="org-reuse-a")
    b = run_isolated(os.getpid, timeout_s=60, memory_mb=1024, tenant="org-reuse-b")
    anon1 = run_isolated(os.getpid, timeout_s=60, memory_mb=1024)
    anon2 = run_isolated(os.getpid, timeout_s=60, memory_mb=1024)
    assert a1 == a2 != os.getpid()
    assert b != a1
    # a call without a tenant (a download) always gets a fresh process, and keeps none
    assert len({anon1, anon2, a1, b}) == 4 and not _alive(anon1) and not _alive(anon2)
    # another memory limit is another child
    assert run_isolated(os.getpid, timeout_s=60, memory_mb=2048, tenant="org-reuse-a") != a1


def test_a_failure_overrun_or_crash_ends_the_child_and_the_next_call_gets_a_fresh_one() -> None:
    import os

    import pytest

    from pipelines.engine.isolation import IsolatedFailure, run_isolated

    def kept() -> int:
        return run_isolated(os.getpid, timeout_s=60, memory_mb=1024, tenant="org-reuse-f")

    first = kept()
    with pytest.raises(IsolatedFailure, match="a parser gave up"):
        run_isolated(isolation_targets.raising, timeout_s=60, memory_mb=1024, tenant="org-reuse-f")
    assert not _alive(first)
    second = kept()
    assert second != first
    r = convert_isolated(DOC, timeout_s=1.0, memory_mb=1024, target=isolation_targets.sleepy, tenant="org-reuse-f")
    assert "longer than 1 s" in r.error_message() and not _alive(second)
    third = kept()
    r = convert_isolated(DOC, timeout_s=60, memory_mb=1024, target=isolation_targets.crashing, tenant="org-reuse-f")
    assert "died (signal 9)" in r.error_message() and not _alive(third)
    assert convert_isolated(DOC, timeout_s=60, memory_mb=1024, tenant="org-reuse-f").status == ConversionStatus.success


def test_the_memory_limit_holds_in_a_child_used_again() -> None:
    import os

    from pipelines.engine.isolation import run_isolated

    pid = run_isolated(os.getpid, timeout_s=60, memory_mb=512, tenant="org-reuse-m")
    assert run_isolated(os.getpid, timeout_s=60, memory_mb=512, tenant="org-reuse-m") == pid
    r = convert_isolated(DOC, timeout_s=60, memory_mb=512, target=isolation_targets.hungry, tenant="org-reuse-m")
    assert r.status == ConversionStatus.failure and "512 MiB" in r.error_message()


def test_a_child_that_grew_or_served_its_share_is_replaced() -> None:
    import os
    import signal

    from pipelines.engine import isolation
    from pipelines.engine.isolation import run_isolated

    grown = run_isolated(isolation_targets.hoarding, 300, timeout_s=60, memory_mb=0, tenant="org-reuse-g")
    assert not _alive(grown)  # it kept 300 MiB: not kept itself
    assert run_isolated(os.getpid, timeout_s=60, memory_mb=0, tenant="org-reuse-g") != grown
    try:
        isolation.configure(0, reuse=2)
        pids = [run_isolated(os.getpid, timeout_s=60, memory_mb=0, tenant="org-reuse-n") for _ in range(5)]
        assert pids[0] == pids[1] != pids[2] == pids[3] != pids[4]
        # a kept child killed meanwhile: the next call starts another one
        os.kill(pids[4], signal.SIGKILL)
        while _alive(pids[4]):
            time.sleep(0.01)
        assert run_isolated(os.getpid, timeout_s=60, memory_mb=0, tenant="org-reuse-n") not in pids
    finally:
        isolation.configure(0)


def test_a_child_kept_without_a_call_for_a_while_is_ended(monkeypatch) -> None:
    import os

    from pipelines.engine import isolation
    from pipelines.engine.isolation import run_isolated

    monkeypatch.setattr(isolation, "IDLE_S", 0.4)
    try:
        isolation.configure(0)  # a fresh keeper, so its sweeper runs at the new pace
        pid = run_isolated(os.getpid, timeout_s=60, memory_mb=0, tenant="org-reuse-idle")
        assert _alive(pid)
        deadline = time.monotonic() + 10
        while _alive(pid):
            assert time.monotonic() < deadline, "the idle child was never ended"
            time.sleep(0.05)
    finally:
        monkeypatch.undo()
        isolation.configure(0)
