"""What a sandbox keeps on the real Docker engine: its files through suspend and resume, again and
again; a filesystem snapshot restored into new sandboxes; copies and their names; a restart after
termination; a writable root. Every step that keeps a sandbox is here, so one that loses a file
fails in one place."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx
import pytest

from api.app import create_app
from api.services import Services
from pipelines.core.records import Principal
from sandbox_runtime.client import RuntimeClient
from tests.support.helpers import A, B, remove_sandboxes_of
from tests.support.live_sandboxes import Live, container_of, settings_for

pytestmark = pytest.mark.docker


def test_named_sandbox_suspends_and_resumes_with_its_files_again_and_again(live: Live) -> None:
    sb = live.create(name="keeper")
    dup = live.http.post("/sandboxes", json={"name": "keeper"})
    assert dup.status_code == 409 and "keeper" in dup.text
    assert live.get("keeper")["sandbox_id"] == sb["sandbox_id"]
    payload = os.urandom(1 << 20)
    live.runtime(sb).write_file("/workspace/state.bin", payload)

    r = live.http.post("/sandboxes/keeper/suspend")
    assert r.status_code == 202
    live.wait_status("keeper", "suspended")
    assert live.http.post("/sandboxes/keeper/suspend").status_code == 200  # already suspended
    assert sb["sandbox_id"] in [s["sandbox_id"] for s in live.http.get("/sandboxes?status=suspended").json()["sandboxes"]]
    assert container_of(sb["sandbox_id"]) is None  # suspended frees the container
    r = live.http.post("/sandboxes/keeper/resume")  # without wait_ms: accepted, on its way
    assert r.status_code == 202
    live.wait_status("keeper", "running")
    live.http.post("/sandboxes/keeper/suspend?wait_ms=30000")
    for _ in range(3):
        r = live.http.post("/sandboxes/keeper/resume?wait_ms=30000")
        assert (r.status_code, r.json()["status"]) == (200, "running")
        assert live.http.post("/sandboxes/keeper/resume").status_code == 200  # already running
        fresh = live.get("keeper")
        assert live.runtime(fresh).read_file("/workspace/state.bin") == payload
        r = live.http.post("/sandboxes/keeper/suspend?wait_ms=30000")
        assert (r.status_code, r.json()["status"]) == (200, "suspended")

    # traffic through the proxy resumes a suspended sandbox (auto_resume, the SDK's default)
    assert httpx.get(f"{sb['sandbox_url']}/api/v1/health", headers=A, timeout=60).json() == {"healthy": True}
    assert live.get("keeper")["status"] == "running"

    # an unnamed sandbox cannot be suspended; a terminated one cannot be resumed
    eph = live.create()
    r = live.http.post(f"/sandboxes/{eph['sandbox_id']}/suspend")
    assert r.status_code == 400 and "named" in r.text
    live.http.delete(f"/sandboxes/{eph['sandbox_id']}")
    assert live.http.post(f"/sandboxes/{eph['sandbox_id']}/resume").status_code == 400
    live.http.delete("/sandboxes/keeper")


def test_snapshots_restore_into_new_sandboxes(live: Live) -> None:
    sb = live.create(resources={"cpus": 0.5, "memory_mb": 256})
    live.runtime(sb).write_file("/workspace/note.txt", b"before the snapshot")
    r = live.http.post(f"/sandboxes/{sb['sandbox_id']}/snapshot")
    assert r.status_code == 202 and r.json()["status"] == "in_progress"
    snap_id = r.json()["snapshot_id"]
    deadline = time.monotonic() + 60
    while (snap := live.http.get(f"/snapshots/{snap_id}").json())["status"] != "completed":
        assert snap["status"] == "in_progress" and time.monotonic() < deadline, snap
        time.sleep(0.1)
    assert snap["sandbox_id"] == sb["sandbox_id"] and snap["snapshot_type"] == "filesystem" and snap["size_bytes"] > 0
    assert snap_id in [s["snapshot_id"] for s in live.http.get("/snapshots").json()["snapshots"]]
    assert snap_id in [s["snapshot_id"] for s in live.http.get(f"/sandboxes/{sb['sandbox_id']}/snapshots").json()["snapshots"]]
    assert live.http.get(f"/snapshots/{snap_id}", headers=B).status_code == 404

    # where memory snapshots are unavailable (forced here through the setting), the request is
    # refused with the reason, never served as a filesystem snapshot
    mem = live.http.post(f"/sandboxes/{sb['sandbox_id']}/snapshot", json={"snapshot_type": "memory"})
    assert mem.status_code == 400 and mem.headers["content-type"].startswith("text/plain")
    assert "memory snapshots are not available" in mem.text and "DOCKLAKE_SANDBOX__MEMORY_SNAPSHOTS" in mem.text
    assert not [s for s in live.http.get(f"/sandboxes/{sb['sandbox_id']}/snapshots").json()["snapshots"]
                if s["snapshot_type"] == "memory"]
    # the capability says so up front
    assert live.http.get("/readyz").json()["sandboxes"] == {
        "engine": True, "image": True, "memory_snapshots": False, "file_systems": True, "warm": 0}

    restored = live.create(snapshot_id=snap_id)
    assert restored["resources"]["memory_mb"] == 256 and restored["resources"]["cpus"] == 0.5  # inherited
    assert live.runtime(restored).read_file("/workspace/note.txt") == b"before the snapshot"

    live.http.delete(f"/sandboxes/{sb['sandbox_id']}")
    assert live.http.post(f"/sandboxes/{sb['sandbox_id']}/snapshot").status_code == 400
    assert live.http.delete(f"/snapshots/{snap_id}").status_code == 200
    deadline = time.monotonic() + 30
    while live.http.get(f"/snapshots/{snap_id}").status_code != 404:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    live.http.delete(f"/sandboxes/{restored['sandbox_id']}")


def test_copies_are_named_by_the_rules_and_inherit_everything(live: Live) -> None:
    src = live.create(name="origin", exposed_ports=[8080], resources={"memory_mb": 512},
                      entrypoint=["sleep", "infinity"])
    live.runtime(src).write_file("/workspace/shared.txt", b"copied")
    r = live.http.post("/sandboxes/origin/copy?times=2")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["source_sandbox_id"] == src["sandbox_id"]
    assert [c["name"] for c in body["sandboxes"]] == ["origin-copy-1", "origin-copy-2"]
    for c in body["sandboxes"]:
        assert c["status"] == "running" and c["sandbox_url"]
        info = live.get(c["sandbox_id"])
        assert (info["image"], info["resources"], info["entrypoint"], info["network_policy"], info["exposed_ports"]) \
            == (src["image"], src["resources"], src["entrypoint"], src["network_policy"], src["exposed_ports"])
        assert live.runtime(info).read_file("/workspace/shared.txt") == b"copied"

    [solo] = live.http.post("/sandboxes/origin/copy?name=solo").json()["sandboxes"]
    assert solo["name"] == "solo"
    live_count = len(live.http.get("/sandboxes").json()["sandboxes"])
    taken = live.http.post("/sandboxes/origin/copy?times=2&name=origin-copy")  # origin-copy-1 is held
    assert taken.status_code == 409 and "origin-copy-1" in taken.text
    too_long = live.http.post(f"/sandboxes/origin/copy?times=2&name={'n' * 62}")
    assert too_long.status_code == 400 and "63" in too_long.text
    assert live.http.post("/sandboxes/origin/copy?times=0").status_code == 422
    assert len(live.http.get("/sandboxes").json()["sandboxes"]) == live_count  # nothing made

    eph = live.create()
    [unnamed] = live.http.post(f"/sandboxes/{eph['sandbox_id']}/copy").json()["sandboxes"]
    assert unnamed["name"] is None and unnamed["status"] == "running"
    live.http.delete(f"/sandboxes/{eph['sandbox_id']}")
    assert live.http.post(f"/sandboxes/{eph['sandbox_id']}/copy").status_code == 400
    for c in [*body["sandboxes"], solo, unnamed]:
        live.http.delete(f"/sandboxes/{c['sandbox_id']}")
    live.http.delete("/sandboxes/origin")


PLACES = ("/workspace/kept.txt", "/tmp/kept.txt", "/dev/shm/kept.txt")


def _write_everywhere(live: Live, sb: dict) -> None:
    code, out = live.run(sb, "; ".join(f"echo {p} > {p}" for p in PLACES)
                         + "; mkdir -p /tmp/deep/er && echo deep > /tmp/deep/er/f"
                         + " && ln -s /etc/hostname /tmp/deep/link && chmod 600 /dev/shm/kept.txt")
    assert code == 0, out


def _all_there(live: Live, sb: dict, step: str) -> None:
    code, out = live.run(sb, "cat " + " ".join(PLACES) + " /tmp/deep/er/f; readlink /tmp/deep/link; "
                         "stat -c '%u %a' /tmp/kept.txt /dev/shm/kept.txt")
    assert code == 0 and out.split("\n") == [*PLACES, "deep", "/etc/hostname", "0 644", "0 600"], (step, out)


def test_every_writable_place_survives_every_step_that_keeps_a_sandbox(live: Live) -> None:
    """/workspace, /tmp and /dev/shm (files, folders, links, modes) through a suspend and
    resume, a filesystem snapshot restored into a new sandbox, a copy, and a termination and
    restart; /mnt, where attached file systems go, takes nothing from a user."""
    sb = live.create(name="keeper-all")
    _write_everywhere(live, sb)
    assert live.run(sb, "touch /mnt/x")[0] != 0

    assert live.http.post("/sandboxes/keeper-all/suspend").status_code == 202
    live.wait_status("keeper-all", "suspended")
    assert live.http.post("/sandboxes/keeper-all/resume").status_code == 202
    _all_there(live, live.wait_status("keeper-all", "running"), "suspend and resume")

    snap_id = live.http.post("/sandboxes/keeper-all/snapshot").json()["snapshot_id"]
    deadline = time.monotonic() + 60
    while live.http.get(f"/snapshots/{snap_id}").json()["status"] != "completed":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    restored = live.create(snapshot_id=snap_id)
    _all_there(live, restored, "a snapshot restored")

    [copy] = live.http.post("/sandboxes/keeper-all/copy").json()["sandboxes"]
    _all_there(live, live.get(copy["sandbox_id"]), "a copy")

    live.http.delete("/sandboxes/keeper-all")
    live.wait_status(sb["sandbox_id"], "terminated")
    assert live.http.post("/sandboxes/keeper-all/restart").status_code == 202
    _all_there(live, live.wait_status(sb["sandbox_id"], "running"), "terminate and restart")
    for ref in (sb["sandbox_id"], restored["sandbox_id"], copy["sandbox_id"]):
        live.http.delete(f"/sandboxes/{ref}")


def test_restart_brings_back_the_same_sandbox_with_its_files(live: Live) -> None:
    sb = live.create(name="phoenix")
    live.runtime(sb).write_file("/workspace/ash.txt", b"rises")
    assert live.http.post("/sandboxes/phoenix/restart").status_code == 400  # running
    live.http.delete("/sandboxes/phoenix")
    r = live.http.post("/sandboxes/phoenix/restart")
    assert r.status_code == 202
    back = live.wait_status(sb["sandbox_id"], "running")
    assert (back["sandbox_id"], back["name"]) == (sb["sandbox_id"], "phoenix")
    assert live.runtime(back).read_file("/workspace/ash.txt") == b"rises"

    # once terminated and its name claimed by a new sandbox, it cannot come back
    live.http.delete("/sandboxes/phoenix")
    live.wait_status(sb["sandbox_id"], "terminated")
    usurper = live.create(name="phoenix")
    r = live.http.post(f"/sandboxes/{sb['sandbox_id']}/restart")
    assert r.status_code == 409 and "claimed" in r.text
    live.http.delete(f"/sandboxes/{usurper['sandbox_id']}")


def test_a_writable_root_is_kept_whole_by_suspend_and_resume(tmp_path: Path) -> None:
    """With DOCKLAKE_SANDBOX__READ_ONLY_ROOT=false (an image that must write outside /workspace),
    the whole root filesystem is the sandbox's and a snapshot commits it; /dev/shm (a tmpfs) is
    kept beside it."""
    from fastapi.testclient import TestClient

    services = Services.build(settings_for(tmp_path / "docklake", read_only_root=False))
    me = Principal("org-a", "proj-a")
    try:
        with TestClient(create_app(services=services)) as c:
            sb = c.post("/sandboxes", json={"name": "writable"}, headers=A).json()
            found = services.sandboxes.find(me, "default", sb["sandbox_id"])
            places = ("/opt/tool.txt", "/tmp/t.txt", "/dev/shm/s.txt", "/workspace/w.txt")
            for place in places:
                RuntimeClient(f"http://{found.address}", token=found.token).write_file(place, place.encode())
            assert c.post("/sandboxes/writable/suspend?wait_ms=30000", headers=A).json()["status"] == "suspended"
            assert c.post("/sandboxes/writable/resume?wait_ms=30000", headers=A).json()["status"] == "running"
            found = services.sandboxes.find(me, "default", "writable")
            for place in places:
                assert RuntimeClient(f"http://{found.address}", token=found.token).read_file(place) == place.encode()
            c.delete("/sandboxes/writable", headers=A)
    finally:
        services.close()
        remove_sandboxes_of(services.sandboxes.containers.owner)
