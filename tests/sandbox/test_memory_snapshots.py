"""Memory snapshots on the real Docker engine (CRIU checkpoints), through the real HTTP server: a
process's in-memory state goes on after a restore into a new sandbox, in a copy and after a
restart; the capability is reported.

``scripts/bootstrap.sh`` (``make test``) builds CRIU and starts the engine experimental. On an
engine it did not start and that is not experimental these tests skip with the reason; on an
experimental one a failing self-test fails them. tests/sandbox/test_sandboxes_persistence.py covers
the host without memory snapshots (400)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from api.services import Services
from sandbox_runtime.client import RuntimeClient
from sandbox_runtime.contract import RuntimeApiError
from tests.support.helpers import A
from tests.support.live_sandboxes import Live, serve, settings_for

pytestmark = pytest.mark.docker

# a key drawn at start and a counter, both only in memory, written to /tmp (a tmpfs: it goes with
# the checkpoint) every 20 ms: a cold boot would draw a new key and count from 1
COUNTER = ("import os, time\nk, i = os.urandom(8).hex(), 0\nwhile True:\n    i += 1\n"
           "    open('/tmp/count.t', 'w').write(f'{k} {i}')\n    os.replace('/tmp/count.t', '/tmp/count')\n"
           "    time.sleep(0.02)\n")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    # no snapshot at termination: a restart then comes back from the newest memory snapshot
    settings = settings_for(tmp_path_factory.mktemp("memory"), memory_snapshots=True, snapshot_on_terminate=False)
    services = Services.build(settings)
    reason = services.sandboxes.containers.memory_snapshots()
    if reason is not None:
        services.close()
        if "not experimental" in reason:  # an engine bootstrap did not start (or could not restart)
            pytest.skip(f"memory snapshots are unavailable here: {reason}")
        pytest.fail(f"memory snapshots fail on an experimental engine: {reason}")
    yield from serve(settings, services)


def count(live: Live, sb: dict) -> tuple[str, int]:
    """The counter's key and value, read twice apart: it must be counting."""
    client = RuntimeClient(sb["sandbox_url"], headers=dict(A))
    deadline = time.monotonic() + 10
    while True:  # a process started afresh may not have written it yet
        try:
            key, _, n = client.read_file("/tmp/count").decode().partition(" ")
            break
        except RuntimeApiError:
            assert time.monotonic() < deadline, f"{sb['sandbox_id']} has no counter"
            time.sleep(0.05)
    while True:
        time.sleep(0.1)
        later_key, _, later = client.read_file("/tmp/count").decode().partition(" ")
        assert later_key == key
        if int(later) > int(n):
            return key, int(n)
        assert time.monotonic() < deadline, f"the counter of {sb['sandbox_id']} stands still at {n}"


def snapshot(live: Live, ref: str) -> dict:
    r = live.http.post(f"/sandboxes/{ref}/snapshot", json={"snapshot_type": "memory"})
    assert r.status_code == 202, r.text
    deadline = time.monotonic() + 60
    while (snap := live.http.get(f"/snapshots/{r.json()['snapshot_id']}").json())["status"] != "completed":
        assert snap["status"] == "in_progress" and time.monotonic() < deadline, snap
        time.sleep(0.1)
    return snap


def test_processes_go_on_from_a_memory_snapshot_in_new_sandboxes_copies_and_restarts(live: Live) -> None:
    assert live.http.get("/readyz").json()["sandboxes"]["memory_snapshots"] is True

    sb = live.create(name="counter", entrypoint=["python3", "-c", COUNTER], resources={"cpus": 0.5, "memory_mb": 256})
    live.runtime(sb).write_file("/workspace/note.txt", b"kept with the memory")
    key, before = count(live, sb)
    snap = snapshot(live, "counter")
    assert snap["snapshot_type"] == "memory" and snap["size_bytes"] > 1_000_000  # the processes' memory

    # a new sandbox from the snapshot: the same process, its count going on (not from 1)
    restored = live.create(snapshot_id=snap["snapshot_id"])
    assert restored["status"] == "running"
    assert count(live, restored)[0] == key and count(live, restored)[1] >= before
    assert live.runtime(restored).read_file("/workspace/note.txt") == b"kept with the memory"
    # its daemon answers to the new sandbox's own token, and has the process it started
    assert [p.command for p in live.runtime(restored).processes() if p.status == "running"] == ["python3"]

    # a copy of the running source carries the processes too; the source keeps counting
    r = live.http.post("/sandboxes/counter/copy")
    assert r.status_code == 200, r.text
    [copy] = r.json()["sandboxes"]
    assert copy["name"] == "counter-copy" and copy["status"] == "running"
    copied_key, copied = count(live, copy)
    assert copied_key == key and copied >= before
    assert count(live, sb)[0] == key

    # terminated, then restarted: back from its newest snapshot (the copy's), the same process
    assert live.http.delete("/sandboxes/counter").status_code == 200
    live.wait_status(sb["sandbox_id"], "terminated")
    assert live.http.post("/sandboxes/counter/restart").status_code == 202
    back = live.wait_status(sb["sandbox_id"], "running")
    back_key, back_count = count(live, back)
    assert back_key == key and back_count >= before

    for ref in (restored["sandbox_id"], copy["sandbox_id"], sb["sandbox_id"]):
        live.http.delete(f"/sandboxes/{ref}")


def test_a_sandbox_with_file_systems_is_copied_without_memory(live: Live) -> None:
    """Its processes hold mounts its copies do not inherit: a memory snapshot is refused (400),
    and a copy carries the filesystem only, as on a host without memory snapshots."""
    assert live.http.post("/file-systems", json={"name": "data"}).status_code == 200
    sb = live.create(name="with-data", entrypoint=["python3", "-c", COUNTER],
                     file_systems=[{"file_system_id": "data", "mount_path": "/mnt/data"}])
    key, _ = count(live, sb)
    r = live.http.post("/sandboxes/with-data/snapshot", json={"snapshot_type": "memory"})
    assert r.status_code == 400 and "file systems mounted" in r.text
    r = live.http.post("/sandboxes/with-data/copy")
    assert r.status_code == 200, r.text
    [copy] = r.json()["sandboxes"]
    assert copy["status"] == "running"
    # booted afresh: its counter draws a key of its own (over the source's /tmp/count, which the
    # copy's filesystem keeps)
    client = RuntimeClient(copy["sandbox_url"], headers=dict(A))
    deadline = time.monotonic() + 10
    while client.read_file("/tmp/count").decode().partition(" ")[0] == key:
        assert time.monotonic() < deadline, "the copy runs no counter of its own"
        time.sleep(0.05)
    assert count(live, copy)[0] != key
    for ref in (copy["sandbox_id"], sb["sandbox_id"]):
        live.http.delete(f"/sandboxes/{ref}")
