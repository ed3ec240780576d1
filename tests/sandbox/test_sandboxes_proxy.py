"""The per-sandbox proxy on the real Docker engine: three ways of addressing a sandbox, its auth,
exposed ports, WebSockets to a user's service, a client that hangs up in the middle of a body, and
followed logs. Apart from test_sandboxes.py because it is about what passes through the proxy,
not about the sandbox itself."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.support.helpers import A, B
from tests.support.live_sandboxes import Live, wait_for

pytestmark = pytest.mark.docker


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
