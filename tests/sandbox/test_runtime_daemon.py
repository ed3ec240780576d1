"""The in-sandbox runtime daemon, run as a real subprocess (``python -m sandbox_runtime``) and
driven over HTTP the way the host service and the Tensorlake SDK drive it."""

from __future__ import annotations

import glob
import http.client
import json
import os
import pwd
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox_runtime.client import RuntimeClient
from sandbox_runtime.contract import TOKEN_ENV, ErrorCode, RuntimeApiError
from tests.support.helpers import free_port, sse_events

REPO = Path(__file__).resolve().parents[2]
TOKEN = "test-token-1"


class Daemon:
    def __init__(self, tmp: Path, python: str = sys.executable, entrypoint: tuple[str, ...] = (),
                 token_in_env: bool = False) -> None:
        self.port = free_port()
        self.root = tmp / "root"
        self.root.mkdir()
        argv = [python, "-m", "sandbox_runtime", "--host", "127.0.0.1", "--port", str(self.port),
                "--files-root", str(self.root), "--quiet"]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        if token_in_env:
            env[TOKEN_ENV] = TOKEN
        else:
            token_file = tmp / "token"
            token_file.write_text(TOKEN + "\n")
            argv += ["--token-file", str(token_file)]
        if entrypoint:
            argv += ["--", *entrypoint]
        self.proc = subprocess.Popen(argv, env=env, stderr=subprocess.PIPE, text=True)
        self.url = f"http://127.0.0.1:{self.port}"
        self.client = RuntimeClient(self.url, token=TOKEN)
        self.ready_s = self.client.wait_healthy(timeout=15)

    def raw(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
            token: str | None = TOKEN) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        hdrs = {"Authorization": f"Bearer {token}"} if token else {}
        conn.request(method, path, body=body, headers={**hdrs, **(headers or {})})
        return conn.getresponse()

    def stop(self) -> int:
        self.client.close()
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def _oldest_python() -> str:
    """Python 3.9, the floor for sandbox images, when installed (pyenv); else this interpreter."""
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.9*/bin/python3.9")))
    return found[-1] if found else sys.executable


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    d = Daemon(tmp_path_factory.mktemp("runtime"), python=_oldest_python(),
               entrypoint=("sh", "-c", "echo entrypoint up; sleep 120"))
    yield d
    d.stop()


@pytest.fixture
def rt(daemon: Daemon) -> RuntimeClient:
    return daemon.client


def wait_until(check, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.02)


def ended(rt: RuntimeClient, ref) -> object:
    return wait_until(lambda: (p := rt.process(ref)).status != "running" and p)


def gone(pid: int) -> bool:
    """The process no longer runs (it may linger as a zombie until init reaps it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):  # reaped between open and read
        return True


def api_error(call) -> RuntimeApiError:
    with pytest.raises(RuntimeApiError) as e:
        call()
    return e.value


# --- daemon ---

def test_health_info_and_the_entrypoint_as_a_process(daemon: Daemon, rt: RuntimeClient) -> None:
    assert rt.health() == {"healthy": True}
    info = rt.info()
    assert set(info) == {"version", "uptime_secs", "running_processes", "total_processes"}
    assert isinstance(info["uptime_secs"], int) and info["running_processes"] >= 1
    entry = next(p for p in rt.processes() if p.command == "sh" and "sleep 120" in p.args[-1])
    assert entry.status == "running"
    assert wait_until(lambda: rt.output(entry.pid) == ["entrypoint up"])


def test_keep_alive_health_is_fast(daemon: Daemon) -> None:
    """One connection, many requests: no 40 ms Nagle/delayed-ACK stall per response."""
    conn = http.client.HTTPConnection("127.0.0.1", daemon.port)
    times = []
    for _ in range(50):
        t = time.perf_counter()
        conn.request("GET", "/api/v1/health", headers={"Authorization": f"Bearer {TOKEN}"})
        resp = conn.getresponse()
        assert resp.read() == b'{"healthy":true}' and not resp.will_close
        times.append(time.perf_counter() - t)
    conn.close()
    assert statistics.median(times) < 0.02, times


# --- run ---

def test_run_streams_each_line_as_it_is_printed(rt: RuntimeClient) -> None:
    arrivals = []
    t0 = time.monotonic()
    for name, data in rt.run("sh", ["-c", "echo first; sleep 1; echo second"]):
        arrivals.append((name, data, time.monotonic() - t0))
    names = [a[0] for a in arrivals]
    assert names == ["started", "output", "output", "exit"]
    (_, started, _), (_, first, t_first), (_, second, _), (_, exit_, t_exit) = arrivals
    assert set(started) == {"handle", "pid", "started_at"}
    assert all(isinstance(started[k], int) for k in started)
    assert set(first) == {"line", "timestamp", "stream"}
    assert (first["line"], first["stream"], second["line"]) == ("first", "stdout", "second")
    assert abs(first["timestamp"] / 1000 - time.time()) < 60
    assert exit_ == {"exit_code": 0, "signal": None, "reason": "exited"}
    assert t_exit - t_first > 0.8, "the first line must arrive when printed, not at exit"
    assert t_first < 0.8


def test_run_is_an_event_stream_that_closes(daemon: Daemon) -> None:
    resp = daemon.raw("POST", "/api/v1/processes/run", json.dumps({"command": "echo", "args": ["hi"]}).encode(),
                      {"Content-Type": "application/json", "Accept": "text/event-stream"})
    assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
    events = sse_events(resp.read().decode())  # returns: the stream ended
    assert [e for e, _ in events] == ["started", "output", "exit"]
    assert json.loads(events[1][1])["line"] == "hi"


def test_run_stderr_exit_codes_and_signals(rt: RuntimeClient) -> None:
    events = list(rt.run("sh", ["-c", "echo out; echo err >&2; exit 7"]))
    outputs = {d["line"]: d["stream"] for n, d in events if n == "output"}
    assert outputs == {"out": "stdout", "err": "stderr"}
    assert events[-1] == ("exit", {"exit_code": 7, "signal": None, "reason": "exited"})
    events = list(rt.run("sh", ["-c", "kill -TERM $$"]))
    assert events[-1] == ("exit", {"exit_code": -15, "signal": 15, "reason": "signaled"})
    events = list(rt.run("sh", ["-c", "pwd; echo $GREETING"], env={"GREETING": "hello"}, working_dir="/tmp"))
    assert [d["line"] for n, d in events if n == "output"] == ["/tmp", "hello"]


def test_run_timeout_kills_the_whole_tree(rt: RuntimeClient) -> None:
    t0 = time.monotonic()
    events = list(rt.run("sh", ["-c", "sleep 30 & echo $!; wait"], timeout=0.5))
    assert time.monotonic() - t0 < 5
    grandchild = int(next(d["line"] for n, d in events if n == "output"))
    assert events[-1] == ("exit", {"exit_code": -9, "signal": 9, "reason": "timed_out"})
    assert wait_until(lambda: gone(grandchild), 2)


# --- processes ---

def test_start_list_get_signal_and_kill(rt: RuntimeClient) -> None:
    a = rt.start("sleep", ["30"], name="sleeper-a")
    assert a.status == "running" and a.name == "sleeper-a" and a.command == "sleep" and a.args == ["30"]
    b = rt.start("sleep", ["30"])
    listed = {p.pid for p in rt.processes()}
    assert {a.pid, b.pid} <= listed
    assert rt.process("sleeper-a").pid == a.pid and rt.process(b.pid).pid == b.pid

    assert api_error(lambda: rt.start("sleep", ["1"], name="sleeper-a")).status == 409
    assert rt.signal("sleeper-a", "TERM") is True
    done = ended(rt, "sleeper-a")
    assert (done.status, done.exit_code, done.signal) == ("signaled", -15, 15)
    e = api_error(lambda: rt.signal("sleeper-a", 15))
    assert (e.status, e.code) == (400, ErrorCode.NOT_RUNNING)

    assert rt.signal(b.pid, signal.SIGSTOP.value)  # a number, and the process keeps running
    e = api_error(lambda: rt.signal(b.pid, "SIGNOPE"))
    assert (e.status, e.code) == (400, ErrorCode.INVALID_SIGNAL)
    rt.kill(b.pid)
    done = ended(rt, b.pid)
    assert (done.status, done.signal, done.exit_code) == ("signaled", 9, -9)
    assert done.ended_at >= done.started_at


def test_process_errors(rt: RuntimeClient) -> None:
    for call in (lambda: rt.process(999999999), lambda: rt.process("nobody-by-that-name"),
                 lambda: rt.signal(999999999, 15), lambda: rt.kill("nobody-by-that-name")):
        e = api_error(call)
        assert (e.status, e.code) == (404, ErrorCode.NOT_FOUND)
    for kwargs in ({"name": "123"}, {"name": "a/b"}, {"name": ""}, {"stdin_mode": "tty"}, {"env": {"A": 1}},
                   {"user": "no-such-user-here"}, {"working_dir": "/no/such/dir"}):
        e = api_error(lambda kwargs=kwargs: rt.start("true", **kwargs))
        assert (e.status, e.code) == (400, ErrorCode.INVALID_REQUEST), kwargs
    e = api_error(lambda: rt.start("no-such-command-anywhere"))
    assert e.status == 400 and "command not found" in e.message
    for managed in ({"restart": {"policy": "sometimes"}}, {"restart": {"max_restarts": -1}}, {"restart": "always"},
                    {"health_check": {"type": "udp", "port": 1}}, {"health_check": {"type": "tcp", "port": 70000}},
                    {"health_check": {"type": "http", "port": 80, "path": "no-slash"}}):
        e = api_error(lambda managed=managed: rt.start("true", **managed))
        assert (e.status, e.code) == (400, ErrorCode.INVALID_REQUEST), managed
    for body in (b"{bad", b"[]", b"null", b'{"command": 5}', b'{"command": "x", "args": "notalist"}'):
        e = api_error(lambda body=body: rt.request("POST", "/processes", data=body, ok=(201,)))
        assert (e.status, e.code) == (400, ErrorCode.INVALID_REQUEST), body
    e = api_error(lambda: list(rt.run("true", timeout="soon")))
    assert (e.status, e.code) == (400, ErrorCode.INVALID_REQUEST)


def test_routes_and_methods(daemon: Daemon) -> None:
    for method, path, status in [("GET", "/nowhere", 404), ("GET", "/api/v1/nowhere", 404),
                                 ("DELETE", "/api/v1/health", 405), ("PUT", "/api/v1/processes", 405),
                                 ("POST", "/api/v1/pty", 400), ("GET", "/api/v1/pty/nosuchsession/ws", 404),
                                 ("GET", "/api/v1/tunnels/tcp?port=8000", 400)]:
        resp = daemon.raw(method, path)
        doc = json.loads(resp.read())
        assert resp.status == status and set(doc) == {"error", "code"}, (method, path, doc)


def test_stdin_round_trip(rt: RuntimeClient) -> None:
    cat = rt.start("cat", stdin_mode="pipe")
    assert cat.stdin_writable
    rt.write_stdin(cat.pid, b"hello\n")
    rt.write_stdin(cat.pid, b"world\n")
    rt.close_stdin(cat.pid)
    assert ended(rt, cat.pid).exit_code == 0
    assert rt.output(cat.pid, "stdout") == ["hello", "world"]
    e = api_error(lambda: rt.write_stdin(cat.pid, b"late"))
    assert (e.status, e.code) == (400, ErrorCode.STDIN_NOT_WRITABLE)
    closed = rt.start("sleep", ["5"])
    e = api_error(lambda: rt.write_stdin(closed.pid, b"x"))
    assert (e.status, e.code) == (400, ErrorCode.STDIN_NOT_WRITABLE)
    rt.kill(closed.pid)


def test_output_snapshot_and_follow(daemon: Daemon, rt: RuntimeClient) -> None:
    p = rt.start("sh", ["-c", "echo one; echo two >&2; sleep 0.5; echo three"])
    followed = list(rt.follow(p.pid))  # returns once the process ended
    assert [(d["line"], d["stream"]) for d in followed] == [("one", "stdout"), ("two", "stderr"),
                                                          ("three", "stdout")]
    assert rt.output(p.pid, "stdout") == ["one", "three"] and rt.output(p.pid, "stderr") == ["two"]
    snap = rt.request("GET", f"/processes/{p.pid}/output")[1]
    assert json.loads(snap) == {"pid": p.pid, "lines": ["one", "two", "three"], "line_count": 3}
    resp = daemon.raw("GET", f"/api/v1/processes/{p.pid}/stderr/follow", headers={"Accept": "text/event-stream"})
    events = sse_events(resp.read().decode())
    assert events[0][0] == "output" and json.loads(events[0][1])["line"] == "two"
    assert events[-1] == ("eof", "{}")


# --- files ---

def test_files_round_trip(daemon: Daemon, rt: RuntimeClient) -> None:
    root = daemon.root
    data = bytes(range(256)) * 40 + b"\r\n\0end"
    path = f"{root}/a/b/blob.bin"
    rt.write_file(path, data)
    assert rt.read_file(path) == data
    assert (root / "a/b/blob.bin").read_bytes() == data
    listing = rt.list_dir(f"{root}/a/b")
    assert listing["path"] == f"{root}/a/b"
    [entry] = listing["entries"]
    assert (entry["name"], entry["is_dir"], entry["size"]) == ("blob.bin", False, len(data))
    assert {"name": "b", "is_dir": True} .items() <= rt.list_dir(f"{root}/a")["entries"][0].items()
    rt.delete_file(path)
    assert (api_error(lambda: rt.read_file(path)).status, api_error(lambda: rt.delete_file(path)).status) == (404, 404)
    e = api_error(lambda: rt.read_file(f"{root}/a"))
    assert (e.status, e.code) == (400, ErrorCode.IS_DIRECTORY)
    (root / "plain.txt").write_text("x")
    e = api_error(lambda: rt.list_dir(f"{root}/plain.txt"))
    assert (e.status, e.code) == (400, ErrorCode.NOT_A_DIRECTORY)
    assert api_error(lambda: rt.read_file("relative/path")).status == 400
    odd = f"{root}/with space/ünï+code&x=1.txt"
    rt.write_file(odd, b"odd")
    assert rt.read_file(odd) == b"odd" and (root / "with space/ünï+code&x=1.txt").read_bytes() == b"odd"


def test_files_refuse_traversal(daemon: Daemon, rt: RuntimeClient) -> None:
    root = daemon.root
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret").write_text("secret")
    (root / "link-out").symlink_to(outside)
    (root / "file-out").symlink_to(outside / "secret")
    for call in (lambda: rt.read_file(f"{root}/../outside/secret"), lambda: rt.read_file(f"{outside}/secret"),
                 lambda: rt.read_file(f"{root}/link-out/secret"), lambda: rt.read_file(f"{root}/file-out"),
                 lambda: rt.write_file(f"{root}/link-out/new", b"x"), lambda: rt.list_dir(f"{root}/link-out"),
                 lambda: rt.delete_file(f"{root}/link-out/secret"), lambda: rt.read_file("/etc/passwd")):
        e = api_error(call)
        assert (e.status, e.code) == (403, ErrorCode.PATH_TRAVERSAL)
    assert (outside / "secret").read_text() == "secret" and not (outside / "new").exists()


# --- auth and robustness ---

def test_auth(daemon: Daemon) -> None:
    for token in (None, "wrong-token"):
        resp = daemon.raw("GET", "/api/v1/health", token=token)
        assert resp.status == 401 and json.loads(resp.read())["code"] == ErrorCode.INVALID_TOKEN
    e = api_error(lambda: RuntimeClient(daemon.url, token="wrong").info())
    assert (e.status, e.code) == (401, ErrorCode.INVALID_TOKEN)
    assert api_error(lambda: RuntimeClient(daemon.url).wait_healthy(timeout=5)).status == 401  # at once
    assert daemon.raw("GET", "/api/v1/health").status == 200


def test_a_new_token_file_takes_over_at_once(tmp_path: Path) -> None:
    """A daemon restored from a memory snapshot into another sandbox finds that sandbox's token in
    its token file: it answers to it, and no longer to the one it started with."""
    d = Daemon(tmp_path)
    try:
        (tmp_path / "token").write_text("the-new-token\n")
        assert RuntimeClient(d.url, token="the-new-token").health() == {"healthy": True}
        assert d.raw("GET", "/api/v1/health").status == 401
        (tmp_path / "token").write_text("")  # an empty file changes nothing
        assert RuntimeClient(d.url, token="the-new-token").health() == {"healthy": True}
    finally:
        d.stop()


def test_malformed_requests_never_stop_the_daemon(daemon: Daemon, rt: RuntimeClient) -> None:
    junk = [b"GARBAGE\r\n\r\n", b"\x00\xff\xfe binary \r\n\r\n", b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n",
            b"POST /api/v1/processes HTTP/1.1\r\nContent-Length: 100\r\nAuthorization: Bearer " + TOKEN.encode()
            + b"\r\n\r\n{\"comm",
            b"PUT /api/v1/files?path=" + str(daemon.root / "x").encode() + b" HTTP/1.1\r\nTransfer-Encoding: chunked\r\nAuthorization: Bearer "
            + TOKEN.encode() + b"\r\n\r\nzz\r\n",
            b"GET /api/v1/health HTTP/1.1\r\nContent-Length: -5\r\n\r\n"]
    for raw in junk:
        with socket.create_connection(("127.0.0.1", daemon.port), timeout=5) as s:
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
            answer = s.recv(65536)
        assert not answer or b"Traceback" not in answer
        assert rt.health() == {"healthy": True}
    assert daemon.proc.poll() is None
    assert not (daemon.root / "x").exists()  # the broken chunked upload left no file


def test_chunked_upload(daemon: Daemon) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", daemon.port)
    path = f"{daemon.root}/chunked.bin"
    conn.request("PUT", f"/api/v1/files?path={path}", body=iter([b"part one, ", b"part two"]),
                 headers={"Authorization": f"Bearer {TOKEN}"}, encode_chunked=True)
    assert conn.getresponse().status == 204
    assert Path(path).read_bytes() == b"part one, part two"


def test_the_daemon_imports_only_the_standard_library(tmp_path: Path) -> None:
    """Isolated mode (-I -S: no site-packages, no PYTHONPATH) from a copy of the package."""
    shutil.copytree(REPO / "sandbox_runtime", tmp_path / "sandbox_runtime")
    code = ("import sys; sys.path.insert(0, sys.argv[1]);"
            "import sandbox_runtime.__main__, sandbox_runtime.client;"
            "print([m for m in sys.modules if m.split('.')[0] not in sys.stdlib_module_names"
            " and m != '__main__' and not m.startswith('sandbox_runtime')])")
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_token_from_the_environment_is_hidden_and_sigterm_stops_everything(tmp_path: Path) -> None:
    d = Daemon(tmp_path, token_in_env=True)
    assert d.raw("GET", "/api/v1/info", token=None).status == 401
    sleeper = d.client.start("sleep", ["60"])
    events = list(d.client.run("sh", ["-c", f"echo ${{{TOKEN_ENV}:-unset}}"]))
    assert [d for n, d in events if n == "output"][0]["line"] == "unset"  # processes never see it
    assert d.stop() == 0
    assert wait_until(lambda: gone(sleeper.pid), 3)


def test_user_switching(rt: RuntimeClient) -> None:
    def ids(user) -> list[str]:
        return [d["line"] for n, d in rt.run("sh", ["-c", "id -u; id -g; echo $HOME"], user=user) if n == "output"]

    if os.geteuid() != 0:
        e = api_error(lambda: ids("65534:65534"))
        assert e.status == 400 and "cannot start" in e.message
        return
    nobody = pwd.getpwnam("nobody")
    assert ids("nobody") == [str(nobody.pw_uid), str(nobody.pw_gid), nobody.pw_dir]
    assert ids("65534:65534")[:2] == ["65534", "65534"]
    assert ids({"uid": 65534, "gid": 12345})[:2] == ["65534", "12345"]
    e = api_error(lambda: ids("nobody:no-such-group"))
    assert e.status == 400 and "unknown group" in e.message


def test_the_tensorlake_sdk_drives_the_daemon(daemon: Daemon) -> None:
    """The unmodified SDK, pointed straight at the daemon (the proxy in between is the service's)."""
    sandbox_mod = pytest.importorskip("tensorlake.sandbox")
    sb = sandbox_mod.Sandbox("sbx-test", proxy_url=daemon.url, api_key=TOKEN)
    assert sb.health().healthy and sb.daemon_info().version
    result = sb.run("sh", ["-c", "echo out; echo err >&2; exit 3"])
    assert (result.exit_code, result.stdout, result.stderr, result.reason.value) == (3, "out", "err", "exited")
    assert sb.run("sleep", ["10"], timeout=0.3).reason.value == "timed_out"
    cat = sb.start_process("cat", stdin_mode="pipe")
    sb.write_stdin(cat.pid, b"via sdk\n")
    sb.close_stdin(cat.pid)
    assert [e.line for e in sb.follow_output(cat.pid)] == ["via sdk"]
    assert sb.get_stdout(cat.pid).lines == ["via sdk"]
    sleeper = sb.start_process("sleep", ["30"], name="sdk-sleeper")
    assert sb.send_signal("sdk-sleeper", 15).success
    sb.kill_process(sleeper.pid)
    assert sleeper.pid in {p.pid for p in sb.list_processes()}
    path = f"{daemon.root}/sdk/file.bin"
    sb.write_file(path, b"\x00sdk\xff")
    assert sb.read_file(path).value == b"\x00sdk\xff"
    assert [e.name for e in sb.list_directory(f"{daemon.root}/sdk").entries] == ["file.bin"]
    sb.delete_file(path)
    with pytest.raises(Exception, match="PATH_TRAVERSAL"):
        sb.read_file("/etc/passwd")


def test_output_lines_ring_long_lines_and_unterminated_last_line(rt: RuntimeClient) -> None:
    script = ("import sys; w = sys.stdout.write\n"
              "for i in range(12000): w(f'line {i}\\n')\n"
              "w('x' * 100000 + '\\n'); w('no newline at the end')")
    p = rt.start(sys.executable, ["-c", script])
    ended(rt, p.pid)
    lines = wait_until(lambda: (got := rt.output(p.pid)) and got[-1] == "no newline at the end" and got)
    assert len(lines) == 10_000  # the ring keeps the last 10,000 lines
    assert lines[-4] == "line 11999" and lines[-3] == "x" * 65536 and lines[-2] == "x" * (100000 - 65536)


def test_exit_is_noticed_without_a_pidfd(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kernels without pidfd_open (or seccomp refusing it): the exit is polled for instead."""
    from sandbox_runtime import processes
    from sandbox_runtime.contract import CommandSpec

    monkeypatch.setattr(processes, "_pidfd_open", lambda pid: None)
    table = processes.ProcessTable()
    p = table.start(CommandSpec(command="sh", args=["-c", "echo a; exit 4"]))
    assert p.wait_done(5) and p.exit_status()["exit_code"] == 4
    assert [ln.text for ln in p.lines()] == ["a"]
    p = table.start(CommandSpec(command="sleep", args=["30"]), timeout=0.2)
    assert p.wait_done(5) and p.exit_status()["reason"] == "timed_out"


def test_concurrent_runs_each_get_their_own_stream(daemon: Daemon) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def one(i: int) -> tuple[list[str], dict]:
        with RuntimeClient(daemon.url, token=TOKEN) as c:
            events = list(c.run("sh", ["-c", f"echo run-{i}; sleep 0.2; echo done-{i}; exit {i}"]))
        return [d["line"] for n, d in events if n == "output"], events[-1][1]

    with ThreadPoolExecutor(12) as pool:
        results = list(pool.map(one, range(12)))
    for i, (lines, exit_) in enumerate(results):
        assert lines == [f"run-{i}", f"done-{i}"] and exit_["exit_code"] == i


def test_the_output_ring_is_bounded_in_characters_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbox_runtime import processes
    from sandbox_runtime.contract import CommandSpec

    monkeypatch.setattr(processes, "OUTPUT_CHARS_KEPT", 1000)
    p = processes.ProcessTable().start(CommandSpec(command="sh", args=["-c", "for i in 1 2 3 4 5; do "
                                                                        "printf '%0400d\\n' $i; done"]))
    assert p.wait_done(5)
    assert [int(ln.text) for ln in p.lines()] == [4, 5]  # 2 x 400 characters fit in 1000, 3 do not


# -- managed processes ----------------------------------------------------------------------------


def test_a_managed_process_restarts_on_failure_until_its_limit(rt: RuntimeClient) -> None:
    first = rt.start("sh", ["-c", "echo run; exit 3"], name="flaky",
                     restart={"policy": "on_failure", "max_restarts": 2, "initial_backoff_ms": 50})
    assert first.managed is not None and first.managed["id"] == "flaky" and first.managed["restart_count"] == 0
    done = wait_until(lambda: (m := rt.process("flaky").managed)["status"] == "stopped" and m, timeout=10)
    assert done["restart_count"] == 2 and "2 restarts" in done["last_error"]
    assert done["last_exit"]["exit_code"] == 3 and done["restart"]["policy"] == "on_failure"
    runs = [p for p in rt.processes() if p.name == "flaky"]
    assert len(runs) == 3 and len({p.pid for p in runs}) == 3 and all(p.exit_code == 3 for p in runs)
    assert rt.process("flaky").pid == max(runs, key=lambda p: p.handle).pid  # the name is the latest run's
    # restarted through the API, it is supervised again with its limit anew
    again = rt.restart("flaky")
    assert again.managed["restart_count"] == 3 and again.managed["last_error"] is None
    done = wait_until(lambda: (m := rt.process("flaky").managed)["status"] == "stopped" and m, timeout=10)
    assert done["restart_count"] == 5 and len([p for p in rt.processes() if p.name == "flaky"]) == 6

    # a clean exit is not a failure; a name alone restarts nothing
    ok = rt.start("true", name="clean", restart={"policy": "on_failure", "initial_backoff_ms": 10})
    named = rt.start("sh", ["-c", "exit 1"], name="just-named")
    time.sleep(0.5)
    assert rt.process(ok.pid).managed["status"] == "stopped" and rt.process("clean").pid == ok.pid
    assert rt.process("just-named").managed["restart"]["policy"] == "never"
    assert rt.process("just-named").pid == named.pid


def test_a_managed_process_always_comes_back_until_it_is_killed_through_the_api(rt: RuntimeClient) -> None:
    first = rt.start("sleep", ["300"], name="svc", restart={"policy": "always", "initial_backoff_ms": 20})
    rt.signal("svc", 9)  # a crash
    second = wait_until(lambda: (p := rt.process("svc")).pid != first.pid and p.status == "running" and p)
    assert second.managed["restart_count"] == 1 and second.managed["last_exit"]["signal"] == 9

    third = rt.restart("svc")  # at once, whatever the policy
    assert third.pid not in (first.pid, second.pid) and third.managed["restart_count"] == 2
    assert rt.process(second.pid).status == "signaled"

    rt.kill("svc")  # through the API: stopped for good
    # the run ends first, then its supervisor sees it and stops
    gone = wait_until(lambda: (p := rt.process("svc")).managed["status"] == "stopped" and p)
    time.sleep(0.3)  # nothing starts it again
    assert gone and gone.status != "running" and rt.process("svc").pid == gone.pid
    plain = rt.start("sleep", ["1"])
    e = api_error(lambda: rt.restart(plain.pid))
    assert e.status == 400 and "not a managed process" in e.message
    rt.kill(plain.pid)


def test_a_failing_health_check_kills_the_run_and_the_policy_decides(rt: RuntimeClient) -> None:
    port = free_port()
    sick = rt.start("sleep", ["300"], name="sick", restart={"policy": "on_failure", "max_restarts": 1,
                                                             "initial_backoff_ms": 20},
                    health_check={"type": "tcp", "port": port, "initial_delay_ms": 0, "interval_ms": 50,
                                  "failure_threshold": 2})
    assert sick.managed["health_status"] == "starting"
    done = wait_until(lambda: (m := rt.process("sick").managed)["status"] == "stopped" and m, timeout=10)
    assert done["restart_count"] == 1 and done["health_status"] == "unhealthy"
    assert done["last_exit"]["signal"] == 9

    served = rt.start("python3", ["-m", "http.server", str(port), "--bind", "127.0.0.1"], name="web",
                      health_check={"type": "http", "port": port, "path": "/", "initial_delay_ms": 3000,
                                    "interval_ms": 50, "failure_threshold": 20})  # the server's start-up
    healthy = wait_until(lambda: (m := rt.process("web").managed)["health_status"] == "healthy" and m, timeout=15)
    assert healthy and healthy["consecutive_health_failures"] == 0 and rt.process("web").pid == served.pid
    rt.kill("web")


# -- PTY sessions and TCP tunnels (WebSocket) -----------------------------------------------------


def _ws(daemon: Daemon, path: str, **headers: str):
    from websockets.sync.client import connect

    return connect(f"ws://127.0.0.1:{daemon.port}/api/v1{path}", max_size=None,
                   additional_headers={"Authorization": f"Bearer {TOKEN}", **headers})


def _pty_until(ws, marker: bytes, timeout: float = 10) -> bytes:
    """Terminal output (data frames) until ``marker`` has appeared."""
    out = b""
    deadline = time.monotonic() + timeout
    while marker not in out:
        frame = ws.recv(timeout=max(0.1, deadline - time.monotonic()))
        if frame[0] == 0:
            out += frame[1:]
    return out


def test_a_pty_session_echoes_resizes_and_ends_with_its_exit_code(daemon: Daemon, rt: RuntimeClient) -> None:
    import struct

    from websockets.exceptions import ConnectionClosed, InvalidStatus

    _, raw = rt.request("POST", "/pty", json_body={"command": "sh", "rows": 30, "cols": 100,
                                                   "env": {"GREETING": "hello"}}, ok=(201,))
    session = json.loads(raw)
    with pytest.raises(InvalidStatus) as bad:
        _ws(daemon, f"/pty/{session['session_id']}/ws", **{"X-PTY-Token": "wrong"}).close()
    assert bad.value.response.status_code == 401

    with _ws(daemon, f"/pty/{session['session_id']}/ws", **{"X-PTY-Token": session["token"]}) as ws:
        ws.send(bytes([2]))  # ready
        ws.send(b"\x00stty size; echo $GREETING-$((6*7))\n")
        assert b"30 100" in _pty_until(ws, b"hello-42")
        ws.send(struct.pack(">BHH", 1, 132, 43))  # resize: cols, rows
        ws.send(b"\x00stty size; echo R$((1+1))\n")
        assert b"43 132" in _pty_until(ws, b"R2")
        assert rt.request("POST", f"/pty/{session['session_id']}/resize", json_body={"rows": 50, "cols": 60},
                          ok=(204,))
        ws.send(b"\x00stty size; exit 7\n")
        frames = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                frames.append(ws.recv(timeout=10))
        assert b"50 60" in b"".join(f[1:] for f in frames if f[0] == 0)
        assert frames[-1] == bytes([3]) + struct.pack(">i", 7) and closed.value.rcvd.reason == "exit:7"

    # output written before a client attaches is kept for it; DELETE ends the session
    _, raw = rt.request("POST", "/pty", json_body={"command": "sh", "args": ["-c", "echo early; sleep 300"]},
                        ok=(201,))
    later = json.loads(raw)
    time.sleep(0.5)
    with _ws(daemon, f"/pty/{later['session_id']}/ws?token={later['token']}") as ws:
        ws.send(bytes([2]))
        assert b"early" in _pty_until(ws, b"early")
        assert rt.request("DELETE", f"/pty/{later['session_id']}", ok=(204,))
        with pytest.raises(ConnectionClosed):
            while True:
                ws.recv(timeout=10)
    assert api_error(lambda: rt.request("DELETE", f"/pty/{later['session_id']}", ok=(204,))).status == 404
    e = api_error(lambda: rt.request("POST", "/pty", json_body={"command": "sh", "rows": 0}, ok=(201,)))
    assert (e.status, e.code) == (400, ErrorCode.INVALID_REQUEST)


def test_a_tunnel_relays_a_tcp_stream_both_ways_and_closes_with_it(daemon: Daemon) -> None:
    import hashlib
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    payload = os.urandom(8 << 20)

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            asked = conn.recv(100)
            conn.sendall(asked.upper() + payload)

    threading.Thread(target=serve, daemon=True).start()
    got = b""
    with _ws(daemon, f"/tunnels/tcp?port={port}") as ws:
        ws.send(b"ping")
        from websockets.exceptions import ConnectionClosed

        with pytest.raises(ConnectionClosed):
            while True:
                got += ws.recv(timeout=10)
    assert got[:4] == b"PING" and hashlib.sha256(got[4:]).digest() == hashlib.sha256(payload).digest()
    server.close()

    from websockets.exceptions import ConnectionClosed
    with _ws(daemon, f"/tunnels/tcp?port={free_port()}") as ws, pytest.raises(ConnectionClosed) as refused:
        ws.recv(timeout=10)
    assert refused.value.rcvd.code == 1011 and "nothing answers" in refused.value.rcvd.reason
