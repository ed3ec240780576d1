"""A small host-side client for the runtime API, on the standard library (``http.client``).

One client keeps one keep-alive connection for plain requests (use one client per thread); each
stream (``run``, ``follow``) gets a connection of its own. Failures raise ``RuntimeApiError``.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from sandbox_runtime.contract import (
    API_PREFIX,
    EOF,
    OUTPUT,
    ErrorCode,
    ProcessInfo,
    RuntimeApiError,
    bearer,
    iter_sse,
)

Event = tuple[str, dict[str, Any]]


class RuntimeClient:
    def __init__(self, base_url: str, token: str | None = None, headers: dict[str, str] | None = None,
                 timeout: float = 30.0) -> None:
        url = urlsplit(base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"base_url must be http(s)://host[:port][/prefix], not {base_url!r}")
        self._scheme, self._netloc = url.scheme, url.netloc
        self._prefix = url.path.rstrip("/") + API_PREFIX
        self._headers = dict(headers or {})
        if token is not None:
            self._headers["Authorization"] = bearer(token)
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    # --- plumbing ---

    def _connect(self, timeout: float | None) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        return cls(self._netloc, timeout=timeout)

    def _path(self, path: str, query: dict[str, str] | None = None) -> str:
        return self._prefix + path + (f"?{urlencode(query)}" if query else "")

    def _send(self, conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None,
              headers: dict[str, str] | None) -> http.client.HTTPResponse:
        conn.request(method, path, body=body, headers={**self._headers, **(headers or {})})
        return conn.getresponse()

    def request(self, method: str, path: str, *, query: dict[str, str] | None = None, json_body: Any = None,
                data: bytes | None = None, ok: tuple[int, ...] = (200,)) -> tuple[int, bytes]:
        """One request on the kept connection (reopened once if the daemon had closed it)."""
        headers = {}
        if json_body is not None:
            data = json.dumps(json_body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            reused = self._conn is not None
            if self._conn is None:
                self._conn = self._connect(self.timeout)
            try:
                resp = self._send(self._conn, method, self._path(path, query), data, headers)
                raw = resp.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.close()
                if reused and attempt == 1:
                    continue  # the daemon closed an idle connection: try once on a fresh one
                raise
            if resp.will_close:
                self.close()
            if resp.status not in ok:
                raise RuntimeApiError.from_body(resp.status, raw)
            return resp.status, raw
        raise AssertionError("unreachable")

    def _json(self, method: str, path: str, **kw: Any) -> Any:
        return json.loads(self.request(method, path, **kw)[1])

    def _stream(self, method: str, path: str, json_body: Any = None) -> Iterator[Event]:
        conn = self._connect(None)
        try:
            headers = {"Accept": "text/event-stream"}
            body = None
            if json_body is not None:
                body = json.dumps(json_body).encode()
                headers["Content-Type"] = "application/json"
            resp = self._send(conn, method, self._path(path), body, headers)
            if resp.status != 200:
                raise RuntimeApiError.from_body(resp.status, resp.read())
            yield from iter_sse(iter(resp.readline, b""))
        finally:
            conn.close()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> RuntimeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- daemon ---

    def health(self) -> dict[str, Any]:
        return self._json("GET", "/health")

    def info(self) -> dict[str, Any]:
        return self._json("GET", "/info")

    def create_pty(self, command: str, **options: Any) -> dict[str, Any]:
        """A PTY session (``args``, ``env``, ``working_dir``, ``rows``, ``cols``): its id and token."""
        return self._json("POST", "/pty", json_body={"command": command, **options}, ok=(201,))

    def restore_scratch(self, tar: bytes) -> None:
        """Extract a tar of ``tmp/…`` and ``dev/shm/…`` files inside the sandbox (docklake's own)."""
        self.request("PUT", "/scratch", data=tar, ok=(204,))

    def logs(self, after_ms: int = 0) -> dict[str, Any]:
        """Every process's kept output with timestamps, written at ``after_ms`` or later
        (docklake's ``/api/v1/logs``)."""
        return self._json("GET", "/logs", query={"after": str(after_ms)} if after_ms else None)

    def wait_healthy(self, timeout: float = 10.0, interval: float = 0.02) -> float:
        """Seconds until ``/health`` answered healthy; ``TimeoutError`` after ``timeout``."""
        start = time.monotonic()
        while True:
            try:
                if self.health().get("healthy"):
                    return time.monotonic() - start
            except RuntimeApiError as e:
                if e.status == 401:
                    raise  # waiting longer will not help
                self.close()
            except OSError:
                self.close()
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"the runtime at {self._netloc} was not healthy within {timeout} s")
            time.sleep(interval)

    # --- processes ---

    def start(self, command: str, args: list[str] | None = None, **options: Any) -> ProcessInfo:
        """Start a process; ``options`` are the request's other fields (env, working_dir, stdin_mode,
        stdout_mode, stderr_mode, user, name)."""
        doc = self._json("POST", "/processes", json_body={"command": command, "args": args or [], **options},
                         ok=(201,))
        return ProcessInfo.from_json(doc)

    def processes(self) -> list[ProcessInfo]:
        return [ProcessInfo.from_json(p) for p in self._json("GET", "/processes")["processes"]]

    def process(self, pid: int | str) -> ProcessInfo:
        return ProcessInfo.from_json(self._json("GET", _ref(pid)))

    def kill(self, pid: int | str) -> None:
        self.request("DELETE", _ref(pid), ok=(204,))

    def restart(self, pid: int | str) -> ProcessInfo:
        """Start a managed process again at once (its new run)."""
        return ProcessInfo.from_json(self._json("POST", f"/processes/{pid}/restart"))

    def signal(self, pid: int | str, sig: int | str) -> bool:
        return bool(self._json("POST", _ref(pid) + "/signal", json_body={"signal": sig})["success"])

    def write_stdin(self, pid: int | str, data: bytes) -> None:
        self.request("POST", _ref(pid) + "/stdin", data=data, ok=(204,))

    def close_stdin(self, pid: int | str) -> None:
        self.request("POST", _ref(pid) + "/stdin/close", ok=(204,))

    def output(self, pid: int | str, stream: str = "output") -> list[str]:
        return self._json("GET", f"{_ref(pid)}/{stream}")["lines"]

    def follow(self, pid: int | str, stream: str = "output") -> Iterator[dict[str, Any]]:
        """The output events (``line``, ``timestamp``, ``stream``), kept then live, until the
        process ends."""
        for name, data in self._stream("GET", f"{_ref(pid)}/{stream}/follow"):
            if name == EOF:
                return
            if name == OUTPUT:
                yield data

    def run(self, command: str, args: list[str] | None = None, **options: Any) -> Iterator[Event]:
        """``(event, data)`` for ``started``, each ``output``, then ``exit``; ``options``: env,
        working_dir, timeout (seconds), user."""
        yield from self._stream("POST", "/processes/run", {"command": command, "args": args or [], **options})

    # --- files ---

    def read_file(self, path: str) -> bytes:
        return self.request("GET", "/files", query={"path": path})[1]

    def write_file(self, path: str, data: bytes) -> None:
        self.request("PUT", "/files", query={"path": path}, data=data, ok=(204,))

    def delete_file(self, path: str) -> None:
        self.request("DELETE", "/files", query={"path": path}, ok=(204,))

    def list_dir(self, path: str) -> dict[str, Any]:
        return self._json("GET", "/files/list", query={"path": path})


def _ref(pid: int | str) -> str:
    if isinstance(pid, str) and not pid:
        raise RuntimeApiError(400, ErrorCode.INVALID_REQUEST, "empty process reference")
    return "/processes/" + quote(str(pid), safe="")
