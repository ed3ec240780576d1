"""Sandboxes on the real Docker engine, through the real HTTP server: creating, inspecting, listing
and terminating one, requests refused with the reason, a live resize, the idle timeout, hardening,
and the Tensorlake SDK driving it all. The proxy, what a sandbox keeps (suspend, snapshots, copies,
restart), file systems and the service around the sandboxes are in the test_sandboxes_*.py beside it.

The engine is installed and started by ``scripts/bootstrap.sh`` (``make test``), which also
builds the base image."""

from __future__ import annotations

import os
import time

import pytest

from sandbox_runtime.client import RuntimeClient
from sandbox_runtime.contract import RuntimeApiError
from tests.support.helpers import KEY_A, A, B
from tests.support.live_sandboxes import Live, container_of, engine

pytestmark = pytest.mark.docker


def test_create_inspect_list_and_terminate(live: Live) -> None:
    sb = live.create()
    assert sb["status"] == "running" and sb["sandbox_id"].startswith("sb") and sb["name"] is None
    assert sb["resources"] == {"cpus": 1.0, "memory_mb": 1024, "disk_mb": 10240, "ephemeral_disk_mb": 10240}
    assert sb["network_policy"]["allow_internet_access"] is False
    assert sb["sandbox_url"] == f"{live.url}/sandboxes/{sb['sandbox_id']}/proxy"
    assert live.get(sb["sandbox_id"]) == sb
    listed = live.http.get("/sandboxes").json()["sandboxes"]
    assert sb["sandbox_id"] in [s["sandbox_id"] for s in listed]
    assert sb["sandbox_id"] in [s["sandbox_id"] for s in live.http.get("/sandboxes?status=running").json()["sandboxes"]]
    assert sb["sandbox_id"] not in [s["sandbox_id"] for s in live.http.get("/sandboxes?status=suspended").json()["sandboxes"]]
    bad = live.http.get("/sandboxes?limit=0")
    assert bad.status_code == 422 and bad.headers["content-type"].startswith("text/plain")

    # another organization sees nothing of it
    other = live.http.get(f"/sandboxes/{sb['sandbox_id']}", headers=B)
    assert other.status_code == 404 and other.headers["content-type"].startswith("text/plain")
    assert sb["sandbox_id"] not in [s["sandbox_id"] for s in live.http.get("/sandboxes", headers=B).json()["sandboxes"]]
    assert live.http.delete(f"/sandboxes/{sb['sandbox_id']}", headers=B).status_code == 404

    # hardened: no capabilities, no new privileges, limits, no route out
    c = container_of(sb["sandbox_id"])
    host = c.attrs["HostConfig"]
    assert host["CapDrop"] == ["ALL"] and "no-new-privileges" in host["SecurityOpt"]
    assert host["Memory"] == 1024 * 2**20 and host["MemorySwap"] == 1024 * 2**20
    assert host["PidsLimit"] == 512 and host["NanoCpus"] == 10**9 and host["Init"] is True
    assert host["ReadonlyRootfs"] is True and "/tmp" in host["Tmpfs"]
    [net] = c.attrs["NetworkSettings"]["Networks"]
    assert engine().networks.get(net).attrs["Internal"] is True

    r = live.http.delete(f"/sandboxes/{sb['sandbox_id']}")
    assert r.status_code == 200 and r.json()["status"] == "terminated"
    assert live.http.delete(f"/sandboxes/{sb['sandbox_id']}").status_code == 200  # idempotent
    assert live.get(sb["sandbox_id"])["status"] == "terminated"
    assert sb["sandbox_id"] not in [s["sandbox_id"] for s in live.http.get("/sandboxes").json()["sandboxes"]]
    archived = live.http.get("/archived-sandboxes").json()["sandboxes"]
    [mine] = [s for s in archived if s["sandbox_id"] == sb["sandbox_id"]]
    assert mine["archived_at"] > 0 and mine["termination_reason"] == "terminated"
    deadline = time.monotonic() + 30
    while container_of(sb["sandbox_id"]) is not None:
        assert time.monotonic() < deadline, "the terminated sandbox's container is still there"
        time.sleep(0.2)
    missing = live.http.get("/sandboxes/sbdoesnotexist")
    assert missing.status_code == 404 and "not found" in missing.text


def test_bad_requests_are_clear_and_change_nothing(live: Live) -> None:
    before = len(live.http.get("/sandboxes").json()["sandboxes"])
    cases = [
        ({"name": "Not_A_Label"}, 400, "not valid"),
        ({"name": "x" * 64}, 400, "longer than 63"),
        ({"image": "docklake/no-such-image:1"}, 400, "not on this host"),
        # no image reference at all: refused before the engine is asked (it answered 400, read as a 500)
        ({"image": "W\U0008e050"}, 400, "not a valid image reference"),
        ({"image": "Ubuntu:22.04"}, 400, "not a valid image reference"),
        ({"snapshot_id": "snapnothing"}, 404, "not found"),
        ({"exposed_ports": [9501]}, 422, "runtime daemon"),
        ({"resources": {"cpus": -1}}, 422, "cpus"),
        ({"entrypoint": ["sh\x00"]}, 422, "NUL"),
        ({"resources": {"gpus": [{"count": 1, "model": "H100"}]}}, 400, "GPU"),
    ]
    for body, status, words in cases:
        r = live.http.post("/sandboxes", json=body)
        assert (r.status_code, r.headers["content-type"].split(";")[0]) == (status, "text/plain"), (body, r.text)
        assert words in r.text, (body, r.text)
    assert len(live.http.get("/sandboxes").json()["sandboxes"]) == before


def test_a_live_resize_changes_the_container_in_place_and_refuses_what_cannot_be(live: Live) -> None:
    sb = live.create(name="stretch")
    before = container_of(sb["sandbox_id"])
    r = live.http.patch("/sandboxes/stretch", json={"resources": {"cpus": 2, "memory_mb": 1536}})
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["resource_resize"]["generation"] == 1 and got["resource_resize"]["status"] == "succeeded"
    assert (got["resources"]["cpus"], got["resources"]["memory_mb"]) == (2.0, 1536)
    after = container_of(sb["sandbox_id"])
    assert after.id == before.id  # in place, the processes kept
    host = after.attrs["HostConfig"]
    assert (host["NanoCpus"], host["Memory"], host["MemorySwap"]) == (2 * 10**9, 1536 << 20, 1536 << 20)

    # memory the processes hold is not taken from them; more than the host has is not promised
    live.runtime(sb).start("python3", ["-c", "import time; b = bytearray(300 << 20); time.sleep(600)"])
    time.sleep(1.5)
    r = live.http.patch("/sandboxes/stretch", json={"resources": {"memory_mb": 128}})
    assert r.status_code == 400 and "hold" in r.text, r.text
    r = live.http.patch("/sandboxes/stretch", json={"resources": {"cpus": 4096}})
    assert r.status_code == 422 and "cpus" in r.text
    r = live.http.patch("/sandboxes/stretch", json={"resources": {"cpus": os.cpu_count() + 1}})
    assert r.status_code == 400 and "this host has" in r.text, r.text
    r = live.http.patch("/sandboxes/stretch", json={"resources": {"cpus": 1}, "name": "other"})
    assert r.status_code == 400 and "request of their own" in r.text
    assert live.get("stretch")["resource_resize"]["generation"] == 1
    assert container_of(sb["sandbox_id"]).attrs["HostConfig"]["Memory"] == 1536 << 20

    # the sandbox keeps its new size through a suspend and a resume (a new container)
    assert live.http.post("/sandboxes/stretch/suspend").status_code == 202
    live.wait_status("stretch", "suspended")
    assert live.http.post("/sandboxes/stretch/resume").status_code == 202
    live.wait_status("stretch", "running")
    host = container_of(sb["sandbox_id"]).attrs["HostConfig"]
    assert (host["NanoCpus"], host["Memory"]) == (2 * 10**9, 1536 << 20)
    live.http.delete("/sandboxes/stretch")


def test_idle_sandboxes_time_out(live: Live) -> None:
    unnamed = live.create(timeout_secs=1)
    live.create(name="sleepy", timeout_secs=1)
    gone = live.wait_status(unnamed["sandbox_id"], "terminated", timeout=30)
    assert gone["termination_reason"] == "idle_timeout"
    live.wait_status("sleepy", "suspended", timeout=30)  # a named sandbox is suspended instead
    live.http.delete("/sandboxes/sleepy")


def test_the_tensorlake_sdk_drives_sandboxes(live: Live) -> None:
    from tensorlake.sandbox import Sandbox

    # a loopback API URL: the SDK takes the /v1/namespaces/default paths and Host <id>.local
    sandbox = Sandbox.create(name="sdk-box", api_url=live.url, api_key=KEY_A)
    try:
        result = sandbox.run("sh", ["-c", "echo out; echo err >&2; exit 3"])
        assert (result.exit_code, result.stdout, result.stderr) == (3, "out", "err")
        sandbox.write_file("/workspace/sdk.txt", b"from the sdk")
        assert sandbox.read_file("/workspace/sdk.txt").value == b"from the sdk"
        assert "sdk.txt" in [e.name for e in sandbox.list_directory("/workspace").value.entries]
        listed = Sandbox.list(api_url=live.url, api_key=KEY_A)
        assert sandbox.sandbox_id in [s.sandbox_id for s in listed]
        # start, list, signal, kill; a stdin round trip
        from tensorlake.sandbox.models import StdinMode

        sleeper = sandbox.start_process("sleep", ["300"]).value
        assert sleeper.pid in [p.pid for p in sandbox.list_processes()]
        assert sandbox.send_signal(sleeper.pid, 15).value.success
        deadline = time.monotonic() + 10
        while (state := sandbox.get_process(sleeper.pid).value).status.value == "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert state.status.value == "signaled"
        cat = sandbox.start_process("cat", stdin_mode=StdinMode.PIPE).value
        sandbox.write_stdin(cat.pid, b"through stdin\n")
        sandbox.close_stdin(cat.pid)
        deadline = time.monotonic() + 10
        while sandbox.get_process(cat.pid).value.status.value == "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert sandbox.get_stdout(cat.pid).value.lines == ["through stdin"]
        other = sandbox.start_process("sleep", ["300"]).value
        sandbox.kill_process(other.pid)
        deadline = time.monotonic() + 10
        while (state := sandbox.get_process(other.pid).value).status.value == "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert (state.status.value, state.signal) == ("signaled", 9)

        sandbox.suspend()
        assert live.get(sandbox.sandbox_id)["status"] == "suspended"
        sandbox.resume()
        assert sandbox.read_file("/workspace/sdk.txt").value == b"from the sdk"
        assert sandbox.run("hostname").stdout == "sdk-box"
    finally:
        sandbox.terminate()
    assert live.get(sandbox.sandbox_id)["status"] == "terminated"
    with pytest.raises(RuntimeApiError):
        RuntimeClient(f"{live.url}/sandboxes/{sandbox.sandbox_id}/proxy", headers=dict(A)).health()
