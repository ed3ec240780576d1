"""Sandboxes on the real Docker engine, through the real HTTP server: every row of the spec's
state table, copy naming, restart, snapshots, the idle timeout, reconciliation after a restart of
the service, the per-sandbox proxy (three ways of addressing, auth, exposed ports) and hardening.

The engine is installed and started by ``scripts/bootstrap.sh`` (``make test``), which also
builds the base image."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import docker
import httpx
import pytest
import uvicorn

from api.app import create_app
from api.services import Services
from pipelines.core.records import Principal
from pipelines.core.sandbox_backend import Launch
from pipelines.core.sandbox_records import Resources
from pipelines.core.settings import Settings
from pipelines.docker.containers import DockerBackend
from pipelines.docker.names import LABEL_OWNER, LABEL_SANDBOX
from sandbox_runtime.client import RuntimeClient
from sandbox_runtime.contract import RuntimeApiError
from tests.support.helpers import API_KEYS, KEY_A, A, B, free_port, remove_sandboxes_of

pytestmark = pytest.mark.docker


@dataclass
class Live:
    url: str
    services: Services
    http: httpx.Client  # as organization a

    def create(self, **body: object) -> dict:
        r = self.http.post("/sandboxes", json=body)
        assert r.status_code == 200, r.text
        return r.json()

    def get(self, ref: str) -> dict:
        r = self.http.get(f"/sandboxes/{ref}")
        assert r.status_code == 200, r.text
        return r.json()

    def wait_status(self, ref: str, status: str, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            sb = self.get(ref)
            if sb["status"] == status:
                return sb
            assert time.monotonic() < deadline, f"{ref} is {sb['status']}, not {status}: {sb}"
            time.sleep(0.1)

    def runtime(self, sb: dict, **kw: object) -> RuntimeClient:
        return RuntimeClient(sb["sandbox_url"], headers=dict(A), **kw)

    def run(self, sb: dict, script: str) -> tuple[int, str]:
        out, code = [], None
        for event, data in self.runtime(sb).run("sh", ["-c", script]):
            if event == "output":
                out.append(data["line"])
            elif event == "exit":
                code = data["exit_code"]
        return code, "\n".join(out)


def engine() -> docker.DockerClient:
    return docker.from_env()


def settings_for(data_dir: Path, **sandbox: object) -> Settings:
    """Memory snapshots are off here: these tests hold on a host without CRIU (copies carry the
    filesystem only); tests/sandbox/test_memory_snapshots.py has them on."""
    return Settings(data_dir=data_dir, api_keys=API_KEYS, api={"port": free_port()},
                    sandbox={"reaper_s": 0.3, "start_timeout_s": 60, "pool_size": 0, "memory_snapshots": False,
                             **sandbox})


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    settings = settings_for(tmp_path_factory.mktemp("sandboxes"))
    yield from serve(settings, Services.build(settings))


def serve(settings: Settings, services: Services) -> Iterator[Live]:
    """The API of ``services`` served over HTTP until the generator is closed; then every
    sandbox of it is gone."""
    server = uvicorn.Server(uvicorn.Config(create_app(services=services), host="127.0.0.1",
                                           port=settings.api.port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    url = f"http://127.0.0.1:{settings.api.port}"
    with httpx.Client(base_url=url, headers=A, timeout=120) as http:
        yield Live(url, services, http)
        for sb in http.get("/sandboxes").json()["sandboxes"]:
            http.delete(f"/sandboxes/{sb['sandbox_id']}")
    server.should_exit = True
    thread.join(10)
    services.close()
    remove_sandboxes_of(services.sandboxes.containers.owner)


def container_of(sandbox_id: str) -> docker.models.containers.Container | None:
    """The sandbox's container, or None; one removed between the listing and its inspection (the
    engine's listing inspects each container it finds) is gone, not an error."""
    for c in engine().containers.list(all=True, sparse=True, filters={"label": f"{LABEL_SANDBOX}={sandbox_id}"}):
        try:
            return engine().containers.get(c.id)
        except docker.errors.NotFound:
            continue
    return None


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


def test_runtime_through_the_proxy_three_ways_with_auth(live: Live) -> None:
    sb = live.create()
    sid = sb["sandbox_id"]
    # the path handed out in sandbox_url; output arrives live, not at exit
    t0, first, exited = time.monotonic(), None, None
    for event, data in live.runtime(sb).run("sh", ["-c", "echo one; sleep 1; echo two"]):
        if event == "output" and first is None:
            first = time.monotonic() - t0
        if event == "exit":
            exited = time.monotonic() - t0
            assert data["exit_code"] == 0
    assert first is not None and exited is not None and exited - first > 0.7
    # Host <id>.local (the SDK with a loopback URL) and X-Tensorlake-Sandbox-Id (any other URL)
    assert httpx.get(f"{live.url}/api/v1/health", headers={**A, "Host": f"{sid}.local"}).json() == {"healthy": True}
    assert httpx.get(f"{live.url}/api/v1/info", headers={**A, "X-Tensorlake-Sandbox-Id": sid}).json()["version"]
    # auth: the API key of the sandbox's project, nobody else's
    r = httpx.get(f"{sb['sandbox_url']}/api/v1/health")
    assert r.status_code == 401 and r.json()["code"] == "INVALID_TOKEN"
    r = httpx.get(f"{sb['sandbox_url']}/api/v1/health", headers=B)
    assert r.status_code == 404 and r.json()["code"] == "SANDBOX_NOT_FOUND"
    r = httpx.get(f"{live.url}/api/v1/health", headers={**A, "X-Tensorlake-Sandbox-Id": "sbunknown"})
    assert r.status_code == 404 and r.json() == {"error": "sandbox 'sbunknown' not found", "code": "SANDBOX_NOT_FOUND"}

    # inside: root without capabilities, no way out, files round trip
    code, out = live.run(sb, "grep CapEff /proc/self/status; id -u; hostname; echo $HOME")
    assert code == 0 and out.split("\n") == ["CapEff:\t0000000000000000", "0", sid, "/workspace"]
    code, out = live.run(sb, "echo x > /etc/x")  # the root is read-only; /tmp and /workspace are not
    assert code != 0 and "Read-only file system" in out
    assert live.run(sb, "echo x > /tmp/x && echo y > /workspace/y && cat /tmp/x /workspace/y") == (0, "x\ny")
    code, out = live.run(sb, "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 80), timeout=2)\"")
    assert code != 0 and ("unreachable" in out or "timed out" in out), out
    rt = live.runtime(sb)
    rt.write_file("/workspace/data.bin", bytes(range(256)) * 64)
    assert rt.read_file("/workspace/data.bin") == bytes(range(256)) * 64

    # a user's service on an exposed port, reached as <port>-<id>.local
    rt.start("python3", ["-m", "http.server", "8000", "--directory", "/workspace"])
    host = {"Host": f"8000-{sid}.local"}
    r = httpx.get(f"{live.url}/data.bin", headers={**A, **host})
    assert r.status_code == 403 and r.json()["code"] == "PORT_NOT_EXPOSED"
    patched = live.http.patch(f"/sandboxes/{sid}", json={"exposed_ports": [8000]})
    assert patched.status_code == 200 and patched.json()["exposed_ports"] == [8000]
    deadline = time.monotonic() + 20
    while (r := httpx.get(f"{live.url}/data.bin", headers={**A, **host})).status_code != 200:
        assert time.monotonic() < deadline, r.text
        time.sleep(0.2)
    assert r.content == bytes(range(256)) * 64

    # unauthenticated ingress, once allowed
    live.http.patch(f"/sandboxes/{sid}", json={"allow_unauthenticated_access": True})
    assert httpx.get(f"{sb['sandbox_url']}/api/v1/health").status_code == 200

    live.http.delete(f"/sandboxes/{sid}")
    r = httpx.get(f"{sb['sandbox_url']}/api/v1/health", headers=A)
    assert r.status_code == 409 and r.json()["code"] == "SANDBOX_NOT_RUNNING"
    assert live.http.patch(f"/sandboxes/{sid}", json={"exposed_ports": [1]}).status_code == 409


def test_a_client_gone_in_the_middle_of_a_body_leaves_no_error_and_no_half_file(live: Live) -> None:
    """A client that sends part of a file and hangs up: the proxy stops without an error (a
    line at info level says so), the sandbox gets no truncated file, and it serves on.

    The log events are taken with structlog's own capture (the server logs from its own thread:
    reading pytest's captured output while that thread writes to it can drop a line)."""
    import socket
    from urllib.parse import urlsplit

    from structlog.testing import capture_logs

    sb = live.create()
    u = urlsplit(sb["sandbox_url"])
    head = (f"PUT {u.path}/api/v1/files?path=/workspace/half.bin HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\n"
            f"Authorization: {A['Authorization']}\r\nContent-Length: 10000000\r\n\r\n").encode()
    with capture_logs() as events:
        with socket.create_connection((u.hostname, u.port)) as s:
            s.sendall(head + b"x" * 100_000)
            time.sleep(0.5)
        wait_for("the proxy noticed the client had gone",
                 lambda: any(e["event"] == "proxy_client_gone" for e in list(events)))
        assert httpx.get(f"{sb['sandbox_url']}/api/v1/health", headers=A).json() == {"healthy": True}
        assert live.run(sb, "ls -A /workspace") == (0, "")
    gone = next(e for e in events if e["event"] == "proxy_client_gone")
    assert gone["log_level"] == "info" and gone["sandbox_id"] == sb["sandbox_id"]
    assert not [e for e in events if e["log_level"] in ("error", "critical", "exception")], events
    live.http.delete(f"/sandboxes/{sb['sandbox_id']}")


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


# a user's WebSocket service in a sandbox: echoes each message reversed (on the runtime's own
# small WebSocket module, which every sandbox has at /opt/docklake)
WS_ECHO = """
import sys; sys.path.insert(0, "/opt/docklake")
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from sandbox_runtime import websocket as w
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        ws = w.accept(self)
        try:
            while True:
                ws.send_binary(ws.recv()[1][::-1])
        except w.Closed:
            pass
ThreadingHTTPServer(("0.0.0.0", 8080), H).serve_forever()
"""


def test_websockets_pass_the_proxy_with_its_auth_to_a_users_service(live: Live) -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    sb = live.create(exposed_ports=[8080])
    sid = sb["sandbox_id"]
    live.runtime(sb).start("python3", ["-c", WS_ECHO])
    url = live.url.replace("http://", "ws://") + "/echo"

    def talk(**headers: str) -> bytes:
        with connect(url, additional_headers={"X-Tensorlake-Sandbox-Id": f"8080-{sid}", **headers},
                     open_timeout=10) as ws:
            ws.send(b"olleh")
            return ws.recv(timeout=10)

    deadline = time.monotonic() + 20
    while True:  # the service's start-up
        try:
            assert talk(**A) == b"hello"
            break
        except InvalidStatus as exc:
            assert exc.response.status_code == 502 and time.monotonic() < deadline, exc
            time.sleep(0.2)

    def status(**headers: str) -> int:
        with pytest.raises(InvalidStatus) as refused:
            talk(**headers)
        return refused.value.response.status_code

    assert status() == 401  # no key
    assert status(**B) == 404  # another tenant's sandbox does not exist for it
    with pytest.raises(InvalidStatus) as closed_port:
        connect(url, additional_headers={"X-Tensorlake-Sandbox-Id": f"8081-{sid}", **A}, open_timeout=10)
    assert closed_port.value.response.status_code == 403 and b"not exposed" in closed_port.value.response.body
    live.http.patch(f"/sandboxes/{sid}", json={"allow_unauthenticated_access": True})
    assert talk() == b"hello"  # unauthenticated ingress, when the sandbox allows it
    live.http.delete(f"/sandboxes/{sid}")


def test_followed_logs_arrive_as_they_are_written_and_end_with_the_sandbox(live: Live) -> None:
    import json

    def sse_events(lines):  # (event, data) as each event arrives
        name, data = "message", []
        for line in lines:
            if not line:
                if data:
                    yield name, json.loads("\n".join(data))
                name, data = "message", []
            elif line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())

    sb = live.create()
    live.run(sb, "echo before")
    live.runtime(sb).start("sh", ["-c", "for i in 1 2 3 4; do echo tick $i; sleep 0.4; done; echo oops >&2"])
    seen: list[tuple[str, dict]] = []
    with httpx.stream("GET", f"{live.url}/sandboxes/{sb['sandbox_id']}/logs?follow=true&tail=1", headers=A,
                      timeout=60) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        for event, data in sse_events(r.iter_lines()):
            seen.append((event, data))
            if data.get("body") == "oops":
                live.http.delete(f"/sandboxes/{sb['sandbox_id']}")
            if event == "end":
                break
    bodies = [d["body"] for e, d in seen if e == "log"]
    assert bodies[-5:] == ["tick 1", "tick 2", "tick 3", "tick 4", "oops"] and "before" not in bodies[1:]
    assert [d["level"] for e, d in seen if e == "log"][-1] == 5 and seen[-1] == ("end", {"status": "terminated"})
    times = [d["timestamp"] for e, d in seen if e == "log"]
    assert times == sorted(times)


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


def wait_for(what: str, check: object, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"not within {timeout:.0f}s: {what}"
        time.sleep(0.1)


def test_file_systems_mount_at_creation_and_while_running(live: Live) -> None:
    r = live.http.post("/file-systems", json={"name": "shared"})
    assert r.status_code == 200 and r.json()["file_system_id"] == "shared"
    assert live.http.post("/file-systems", json={"name": "shared"}).status_code == 409
    assert live.http.post("/file-systems", json={"name": "Bad_Name"}).status_code == 400
    assert live.http.get("/file-systems/shared", headers=B).status_code == 404  # another tenant's
    assert "shared" in [f["name"] for f in live.http.get("/file-systems").json()["file_systems"]]

    # mounted at creation, kept across suspend and resume
    a = live.create(name="fs-user", file_systems=[{"file_system_id": "shared", "mount_path": "/mnt/shared"}])
    assert a["file_systems"] == [{"file_system_id": "shared", "mount_path": "/mnt/shared", "read_only": False,
                                  "snapshot_id": None, "status": "mounted", "error": None}]
    live.runtime(a).write_file("/mnt/shared/a.txt", b"on the file system")
    assert live.http.post("/sandboxes/fs-user/suspend?wait_ms=30000").json()["status"] == "suspended"
    assert live.http.post("/sandboxes/fs-user/resume?wait_ms=30000").json()["status"] == "running"
    a = live.get("fs-user")
    assert live.runtime(a).read_file("/mnt/shared/a.txt") == b"on the file system"
    unknown = live.http.post("/sandboxes", json={"file_systems": [{"file_system_id": "nope", "mount_path": "/x"}]})
    assert unknown.status_code == 400 and "does not exist" in unknown.text

    # attached to a running sandbox: 200 once recorded, mounted right after
    b = live.create()
    sid = b["sandbox_id"]
    r = live.http.post(f"/sandboxes/{sid}/file_systems", json={"file_system_id": "shared", "mount_path": "/mnt/data"})
    assert r.status_code == 200 and [m["mount_path"] for m in r.json()["file_systems"]] == ["/mnt/data"]
    rt = live.runtime(b)

    def readable() -> bool:
        try:
            return rt.read_file("/mnt/data/a.txt") == b"on the file system"
        except RuntimeApiError:
            return False

    wait_for("the attached file system shows in the sandbox", readable)
    assert live.get(sid)["file_systems"][0]["status"] == "mounted"
    # a permanent snapshot, pinned read-only
    snap = live.http.post("/file-systems/shared/snapshots").json()
    assert snap["status"] == "completed" and snap["size_bytes"] == len(b"on the file system")
    rt.write_file("/mnt/data/later.txt", b"after the snapshot")
    pin = {"file_system_id": "shared", "mount_path": "/mnt/pinned", "read_only": True, "snapshot_id": snap["snapshot_id"]}
    assert live.http.post(f"/sandboxes/{sid}/file_systems", json=pin).status_code == 200
    wait_for("the pinned snapshot shows", lambda: live.run(b, "ls /mnt/pinned")[1] == "a.txt")
    code, out = live.run(b, "echo x > /mnt/pinned/b.txt")
    assert code != 0 and "Read-only" in out

    # rule 3 and 4
    bad = [({**pin, "read_only": False, "mount_path": "/mnt/p2"}, 400), ({**pin, "mount_path": "relative"}, 400),
           ({"file_system_id": "shared", "mount_path": "/srv/data"}, 400),  # not under /mnt on a read-only root
           ({"file_system_id": "shared", "mount_path": "/mnt/data"}, 409)]
    for body, status in bad:
        r = live.http.post(f"/sandboxes/{sid}/file_systems", json=body)
        assert (r.status_code, r.headers["content-type"].split(";")[0]) == (status, "text/plain"), (body, r.text)
    r = live.http.request("DELETE", f"/sandboxes/{sid}/file_systems", json={"mount_path": "/nothing"})
    assert r.status_code == 404
    r = live.http.request("DELETE", f"/sandboxes/{sid}/file_systems", json={"mount_path": "/mnt/data"})
    assert r.status_code == 200 and [m["mount_path"] for m in r.json()["file_systems"]] == ["/mnt/pinned"]
    wait_for("the detached file system is gone", lambda: not readable())
    assert live.http.delete("/file-systems/shared").status_code == 409  # still mounted

    # a file system that does not exist is refused before anything changes: the sandbox runs on
    c = live.create()
    r = live.http.post(f"/sandboxes/{c['sandbox_id']}/file_systems",
                       json={"file_system_id": "ghost", "mount_path": "/mnt/ghost"})
    assert r.status_code == 400 and "does not exist" in r.text
    kept = live.http.get(f"/sandboxes/{c['sandbox_id']}").json()
    assert kept["status"] == "running" and kept["file_systems"] == []
    assert live.run(c, "echo alive")[1].strip() == "alive"

    for sb in (a, b, c):
        live.http.delete(f"/sandboxes/{sb['sandbox_id']}")
    assert live.http.delete("/file-systems/shared").status_code == 204
    assert live.http.get("/file-systems/shared").status_code == 404


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


def test_idle_sandboxes_time_out(live: Live) -> None:
    unnamed = live.create(timeout_secs=1)
    live.create(name="sleepy", timeout_secs=1)
    gone = live.wait_status(unnamed["sandbox_id"], "terminated", timeout=30)
    assert gone["termination_reason"] == "idle_timeout"
    live.wait_status("sleepy", "suspended", timeout=30)  # a named sandbox is suspended instead
    live.http.delete("/sandboxes/sleepy")


def test_a_restarted_service_reconciles_with_the_engine(tmp_path: Path) -> None:
    settings = settings_for(tmp_path / "docklake")
    first = Services.build(settings)
    from pipelines.usecases.sandboxes import CreateRequest

    me = Principal("org-a", "proj-a")
    kept = first.sandboxes.create(me, "default", CreateRequest())
    lost = first.sandboxes.create(me, "default", CreateRequest(name="lost"))
    first.close()
    engine().containers.get(lost.container_id).remove(force=True)
    # a container of this installation the catalog knows nothing of (a crash between the two)
    containers = DockerBackend("", tmp_path / "docklake" / "sandboxes", first.sandboxes.containers.owner)
    orphan = containers.launch(Launch("sborphan", "default", 1, settings.sandbox.image, None, Resources(),
                                      False, "t" * 48, "orphan", 64), 60)

    second = Services.build(settings)  # reconciles at start
    try:
        assert second.sandboxes.reload(kept).status.value == "running"
        assert RuntimeClient(f"http://{second.sandboxes.reload(kept).address}", token=kept.token).health()
        after = second.sandboxes.reload(lost)
        assert after.status.value == "terminated" and after.termination_reason == "lost"
        with pytest.raises(docker.errors.NotFound):
            engine().containers.get(orphan.container_id)
    finally:
        second.close()
        remove_sandboxes_of(containers.owner)


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


def test_lifecycle_steps_are_prefect_task_runs(tmp_path: Path, prefect_api: str) -> None:
    import asyncio

    from fastapi.testclient import TestClient
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import TaskRunFilter, TaskRunFilterName

    from pipelines.flows.sandboxes import prefect_runner

    services = Services.build(settings_for(tmp_path / "docklake"), prefect_runner())
    try:
        with TestClient(create_app(services=services)) as c:
            sb = c.post("/sandboxes", json={"name": "tracked"}, headers=A).json()
            r = c.post("/sandboxes/tracked/suspend?wait_ms=30000", headers=A)
            assert (r.status_code, r.json()["status"]) == (200, "suspended")
            c.delete("/sandboxes/tracked", headers=A)

        async def runs() -> list:
            async with get_client() as client:
                return await client.read_task_runs(task_run_filter=TaskRunFilter(
                    name=TaskRunFilterName(any_=[f"suspend-{sb['sandbox_id']}"])))

        deadline = time.monotonic() + 30
        while not ((found := asyncio.run(runs())) and found[0].state and found[0].state.is_completed()):
            assert time.monotonic() < deadline, f"no completed task run for the suspend: {found}"
            time.sleep(0.5)
        assert found[0].task_key and "sandbox" in found[0].tags
    finally:
        services.close()
        remove_sandboxes_of(services.sandboxes.containers.owner)


def test_unnamed_default_sandboxes_come_from_a_warm_pool(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    services = Services.build(settings_for(tmp_path / "docklake", pool_size=1))
    owner = services.sandboxes.containers.owner

    def pooled() -> list:
        return [c for c in engine().containers.list(filters={"label": f"{LABEL_OWNER}={owner}"})
                if c.labels[LABEL_SANDBOX].startswith("pool")]

    def wait_pooled(but_not: str | None = None) -> str:
        deadline = time.monotonic() + 60
        while not ((ids := [c.id for c in pooled() if c.id != but_not]) and services.sandboxes.pool.count()):
            assert time.monotonic() < deadline, "the pool was not filled"
            time.sleep(0.1)
        return ids[0]

    try:
        with TestClient(create_app(services=services)) as c:
            assert pooled() == []  # nothing is started before anyone asks for a sandbox
            first = c.post("/sandboxes", json={}, headers=A).json()
            warm = wait_pooled()
            second = c.post("/sandboxes", json={}, headers=A).json()
            assert services.sandboxes.reload(services.sandboxes.find(
                Principal("org-a", "proj-a"), "default", second["sandbox_id"])).container_id == warm
            sb2 = services.sandboxes.find(Principal("org-a", "proj-a"), "default", second["sandbox_id"])
            assert RuntimeClient(f"http://{sb2.address}", token=sb2.token).health() == {"healthy": True}
            assert wait_pooled(but_not=warm) != warm  # and it is filled again
            named = c.post("/sandboxes", json={"name": "own-box"}, headers=A).json()
            assert container_of(named["sandbox_id"]) is not None  # a named sandbox boots its own
            for sb in (first, second, named):
                c.delete(f"/sandboxes/{sb['sandbox_id']}", headers=A)
    finally:
        services.close()
        remove_sandboxes_of(owner)
