"""Interactive sandbox traffic through the API's proxy, next to the ways around it, in one run:

- PTY keystroke to echo: one character sent to ``sh`` on a PTY session (the SDK's WebSocket
  frames) until the terminal's echo of it comes back: through the proxy, to the daemon
  directly, and with ``docker exec`` with a TTY (the engine's attach socket);
- TCP tunnel throughput: a file served by ``python3 -m http.server`` in the sandbox, read whole
  through the SDK's tunnel WebSocket via the proxy, through the daemon's tunnel directly, and
  with a plain TCP connection to the container (the socket baseline).

Goals (issue "Sandboxes for the newest SDK"): echo p50 ≤ 10 ms through the proxy; tunnel
≥ 100 MB/s.
"""

from __future__ import annotations

import socket
import tempfile
import time
from pathlib import Path

import docker
from websockets.sync.client import connect

from bench.harness import ApiServer, note, print_table
from bench.sandbox import Bare, _row
from sandbox_runtime.client import RuntimeClient
from sandbox_runtime.contract import PORT

SIZE = 64 << 20
SERVE = ["python3", "-m", "http.server", "8000", "--directory", "/workspace", "--bind", "0.0.0.0"]


def _echo_ms(ws_url: str, headers: dict[str, str], client: RuntimeClient, n: int) -> list[float]:
    session = client.create_pty("sh")
    samples = []
    with connect(f"{ws_url}/api/v1/pty/{session['session_id']}/ws", max_size=None,
                 additional_headers={**headers, "X-PTY-Token": session["token"]}) as ws:
        ws.send(b"\x02")
        time.sleep(0.3)
        while True:  # the prompt and what came before
            try:
                ws.recv(timeout=0.2)
            except TimeoutError:
                break
        for i in range(n):
            ch = b"abcdefghijklmnopqrstuvwxyz"[i % 26:i % 26 + 1]
            t = time.perf_counter()
            ws.send(b"\x00" + ch)
            while ch not in ws.recv(timeout=5)[1:]:
                pass
            samples.append(time.perf_counter() - t)
        ws.send(b"\x00\x15exit\n")
    return samples


def _docker_exec_echo_ms(container_id: str, n: int) -> list[float]:
    api = docker.APIClient()
    ex = api.exec_create(container_id, ["sh"], stdin=True, tty=True)
    sock = api.exec_start(ex["Id"], socket=True, tty=True)._sock
    sock.settimeout(5)
    time.sleep(0.3)
    sock.recv(65536)  # the prompt
    samples = []
    for i in range(n):
        ch = b"abcdefghijklmnopqrstuvwxyz"[i % 26:i % 26 + 1]
        t = time.perf_counter()
        sock.sendall(ch)
        while ch not in sock.recv(65536):
            pass
        samples.append(time.perf_counter() - t)
    sock.sendall(b"\x15exit\n")
    sock.close()
    return samples


def _tunnel_mb_s(ws_url: str, headers: dict[str, str]) -> float:
    t = time.perf_counter()
    got = 0
    with connect(f"{ws_url}/api/v1/tunnels/tcp?port=8000", max_size=None, additional_headers=headers) as ws:
        ws.send(b"GET /big.bin HTTP/1.0\r\n\r\n")
        try:
            while True:
                got += len(ws.recv(timeout=30))
        except Exception:  # noqa: BLE001 - the server closes the stream when the file is sent
            pass
    assert got > SIZE, got
    return got / (time.perf_counter() - t) / 1e6


def _socket_mb_s(ip: str) -> float:
    t = time.perf_counter()
    got = 0
    with socket.create_connection((ip, 8000), timeout=30) as s:
        s.sendall(b"GET /big.bin HTTP/1.0\r\n\r\n")
        while chunk := s.recv(1 << 20):
            got += len(chunk)
    assert got > SIZE, got
    return got / (time.perf_counter() - t) / 1e6


def run(n: int = 200, rounds: int = 5) -> None:
    with tempfile.TemporaryDirectory(prefix="docklake-bench-sbio-") as tmp, \
            ApiServer(extra_env={"DOCKLAKE_SANDBOX__POOL_SIZE": "0"}) as api, api.client() as http:
        bare = Bare(Path(tmp))
        try:
            sb = http.post("/sandboxes", json={}).json()
            info = http.get(f"/sandboxes/{sb['sandbox_id']}").json()
            proxy = RuntimeClient(info["sandbox_url"], headers=dict(http.headers))
            c, address = bare.run()
            direct = RuntimeClient(f"http://{address}", token=bare.token)
            via_proxy = info["sandbox_url"].replace("http://", "ws://")
            via_daemon = f"ws://{address}"
            auth_proxy = {"Authorization": http.headers["Authorization"]}
            auth_daemon = {"Authorization": f"Bearer {bare.token}"}

            rows = [_row("PTY echo: through the proxy", _echo_ms(via_proxy, auth_proxy, proxy, n)),
                    _row("PTY echo: daemon directly", _echo_ms(via_daemon, auth_daemon, direct, n)),
                    _row("baseline: docker exec -it sh", _docker_exec_echo_ms(c.id, n))]
            print_table("keystroke to echo (ms)", ["what", "n", "p50", "p99", "max"], rows)

            for client in (proxy, direct):
                for _ in client.run("sh", ["-c", f"head -c {SIZE} /dev/urandom > /workspace/big.bin"]):
                    pass
                client.start(SERVE[0], SERVE[1:])
            time.sleep(1.5)
            ip = address.rsplit(":", 1)[0]
            through = [_tunnel_mb_s(via_proxy, auth_proxy) for _ in range(rounds)]
            daemon_only = [_tunnel_mb_s(via_daemon, auth_daemon) for _ in range(rounds)]
            plain = [_socket_mb_s(ip) for _ in range(rounds)]
            rows = [[label, len(v), f"{sorted(v)[len(v) // 2]:.0f}", f"{min(v):.0f}"] for label, v in [
                ("tunnel: through the proxy", through), ("tunnel: daemon directly", daemon_only),
                ("baseline: TCP to the container", plain)]]
            print_table(f"tunnel throughput, {SIZE >> 20} MiB over HTTP (MB/s)", ["what", "n", "p50", "min"], rows)
            note(f"daemon port {PORT}; one client at a time; urandom data")
        finally:
            bare.cleanup()
