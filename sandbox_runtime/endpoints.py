"""The runtime API's endpoints and its route table: what each ``/api/v1/...`` request does to
the processes (``processes.ProcessTable``) and the files (``files.Files``) of the sandbox.

Kept apart from ``daemon``, which owns the HTTP side (server, connections, bodies, errors,
event streams): an endpoint here only reads the request through the handler's helpers and
answers through them.

Managed processes (``restart``, ``health_check``, ``/restart``) are ``supervisor``'s, PTY sessions
``pty_sessions``'s and TCP tunnels ``tunnels``'s (both over ``websocket``).
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Callable

from sandbox_runtime import pty_sessions, supervisor, tunnels, websocket
from sandbox_runtime.contract import (
    EOF,
    EXIT,
    STARTED,
    STREAMS,
    VERSION,
    ErrorCode,
    RunRequest,
    RuntimeApiError,
    StartRequest,
    encode_sse,
    exit_event,
    invalid,
    signal_body,
    started_event,
)
from sandbox_runtime.files import CHUNK

if TYPE_CHECKING:
    from sandbox_runtime.daemon import Handler

Route = tuple["re.Pattern[str]", dict[str, Callable[..., None]]]
REF = r"/processes/(?P<ref>[^/]+)"
OUT = r"(?P<which>stdout|stderr|output)"


def health(h: Handler) -> None:
    h.send_json(200, {"healthy": True})


def info(h: Handler) -> None:
    procs = h.server.table.all()
    h.send_json(200, {"version": VERSION, "uptime_secs": int(time.monotonic() - h.server.started),
                      "running_processes": sum(p.running for p in procs), "total_processes": len(procs)})


def start_process(h: Handler) -> None:
    proc = supervisor.start(h.server.table, StartRequest.parse(h.json_body()))
    h.send_json(201, proc.info().to_json())


def list_processes(h: Handler) -> None:
    h.send_json(200, {"processes": [p.info().to_json() for p in h.server.table.all()]})


def get_process(h: Handler, ref: str) -> None:
    h.send_json(200, h.process(ref).info().to_json())


def kill_process(h: Handler, ref: str) -> None:
    proc = h.process(ref)
    if proc.managed is not None and proc.managed.current is proc:
        proc.managed.stop()  # a managed process killed through the API stays stopped
    else:
        proc.kill_group()
    h.send(204)


def signal_process(h: Handler, ref: str) -> None:
    proc = h.process(ref)
    proc.send_signal(signal_body(h.json_body()))
    h.send_json(200, {"success": True})


def restart_process(h: Handler, ref: str) -> None:
    proc = h.process(ref)
    if proc.managed is None:
        raise RuntimeApiError(400, ErrorCode.INVALID_REQUEST, f"process {ref!r} is not a managed process: only "
                              "one started with a name, a restart policy or a health check can be restarted")
    h.send_json(200, proc.managed.restart_now().info().to_json())


def write_stdin(h: Handler, ref: str) -> None:
    proc = h.process(ref)
    body = h.body()
    while True:
        chunk = body.read(CHUNK)
        if not chunk:
            break
        proc.write_stdin(chunk)
    h.send(204)


def close_stdin(h: Handler, ref: str) -> None:
    h.process(ref).close_stdin()
    h.send(204)


def _streams(which: str) -> tuple[str, ...]:
    return STREAMS if which == "output" else (which,)


def output(h: Handler, ref: str, which: str) -> None:
    proc = h.process(ref)
    lines: list[str] = [ln.text for ln in proc.lines(_streams(which))]
    h.send_json(200, {"pid": proc.pid, "lines": lines, "line_count": len(lines)})


def follow(h: Handler, ref: str, which: str) -> None:
    proc = h.process(ref)
    h.start_stream()
    h.stream_output(proc, _streams(which))
    h.stream(encode_sse(EOF, {}))
    h.end_stream()


def run(h: Handler) -> None:
    req = RunRequest.parse(h.json_body())
    proc = h.server.table.start(req, timeout=req.timeout)
    h.start_stream()
    h.stream(encode_sse(STARTED, started_event(proc.handle, proc.pid, proc.started_at)))
    h.stream_output(proc)
    st = proc.exit_status()
    h.stream(encode_sse(EXIT, exit_event(st["exit_code"], st["signal"], st["reason"])))
    h.end_stream()


def logs(h: Handler) -> None:
    """Every process the daemon knows, with its kept output line by line (sequence, time in ms,
    stream, text): docklake's own endpoint, which the lifecycle API's ``logs`` reads and keeps
    when the container goes. ``after`` (ms): only the lines written since."""
    after = h.query("after") or "0"
    if not after.isdigit():
        raise invalid("'after' must be a time in milliseconds since the epoch")
    since = int(after)
    h.send_json(200, {"processes": [
        {"pid": p.pid, "name": p.name, "command": " ".join([p.spec.command, *p.spec.args]),
         "started_at": p.started_at,
         "lines": [[ln.seq, ln.timestamp, ln.stream, ln.text] for ln in p.lines() if ln.timestamp >= since]}
        for p in h.server.table.all()]})


SCRATCH = ("tmp", "dev/shm")  # the writable places outside /workspace, which a snapshot keeps


def restore_scratch(h: Handler) -> None:
    """Put back what a snapshot kept of /tmp and /dev/shm (a tar of their files, sent by docklake
    when a sandbox starts from a snapshot); extracted here, inside the sandbox, so a link in it
    leads where it leads in the sandbox."""
    import tarfile

    with tarfile.open(fileobj=h.body(), mode="r|") as tar:
        for member in tar:
            name = member.name.lstrip("./")
            if ".." in name.split("/") or not any(name == d or name.startswith(d + "/") for d in SCRATCH):
                raise invalid(f"{member.name!r} is not under /tmp or /dev/shm")
            if member.isdev():
                continue
            tar.extract(member, "/", numeric_owner=True)
    h.send(204)


def read_file(h: Handler) -> None:
    with h.server.files.open_read(h.query("path")) as f:
        h.send_file(f)


def write_file(h: Handler) -> None:
    h.server.files.write(h.query("path"), h.body())
    h.send(204)


def delete_file(h: Handler) -> None:
    h.server.files.delete(h.query("path"))
    h.send(204)


def list_dir(h: Handler) -> None:
    h.send_json(200, h.server.files.list_dir(h.query("path")))


def pty_create(h: Handler) -> None:
    session = h.server.ptys.create(h.json_body())
    h.send_json(201, {"session_id": session.id, "token": session.token})


def pty_list(h: Handler) -> None:
    h.send_json(200, {"sessions": [{"session_id": s.id, "pid": s.proc.pid, "exit_code": s.exit_code}
                                   for s in h.server.ptys.all()]})


def pty_delete(h: Handler, sid: str) -> None:
    h.server.ptys.delete(sid)
    h.send(204)


def pty_resize(h: Handler, sid: str) -> None:
    session = h.server.ptys.get(sid)
    doc = h.json_body()
    if not isinstance(doc, dict):
        raise invalid("the body must be a JSON object {rows, cols}")
    session.resize(pty_sessions.dimension(doc, "rows"), pty_sessions.dimension(doc, "cols"))
    h.send(204)


def pty_ws(h: Handler, sid: str) -> None:
    session = h.server.ptys.get(sid)
    session.check(h.headers.get("X-PTY-Token") or h.query("token"))
    session.attach(websocket.accept(h))


def tunnel(h: Handler) -> None:
    raw = h.query("port") or ""
    if not raw.isdigit() or not 1 <= int(raw) <= 65535:
        raise invalid("'port' must be a TCP port (1-65535)")
    tunnels.relay(websocket.accept(h), int(raw))


ROUTES: list[Route] = [(re.compile(p), m) for p, m in [
    ("/health", {"GET": health}),
    ("/info", {"GET": info}),
    ("/processes", {"GET": list_processes, "POST": start_process}),
    ("/processes/run", {"POST": run}),
    (REF, {"GET": get_process, "DELETE": kill_process}),
    (REF + "/signal", {"POST": signal_process}),
    (REF + "/restart", {"POST": restart_process}),
    (REF + "/stdin", {"POST": write_stdin}),
    (REF + "/stdin/close", {"POST": close_stdin}),
    (REF + "/" + OUT, {"GET": output}),
    (REF + "/" + OUT + "/follow", {"GET": follow}),
    ("/logs", {"GET": logs}),
    ("/scratch", {"PUT": restore_scratch}),
    ("/files", {"GET": read_file, "PUT": write_file, "DELETE": delete_file}),
    ("/files/list", {"GET": list_dir}),
    ("/pty", {"POST": pty_create, "GET": pty_list}),
    ("/pty/(?P<sid>[^/]+)", {"DELETE": pty_delete}),
    ("/pty/(?P<sid>[^/]+)/resize", {"POST": pty_resize}),
    ("/pty/(?P<sid>[^/]+)/ws", {"GET": pty_ws}),
    ("/tunnels/tcp", {"GET": tunnel}),
]]
