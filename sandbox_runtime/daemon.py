"""The runtime daemon's HTTP server: HTTP/1.1 with keep-alive, one thread per connection, JSON
errors ``{"error","code"}`` for every failure, server-sent events over chunked responses.

This module is the HTTP side only (the server, request bodies, routing, answers and event
streams); what each endpoint does, and which endpoints there are, is ``endpoints``'s.
"""

from __future__ import annotations

import hmac
import json
import os
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any, Callable
from urllib.parse import parse_qs, unquote, urlsplit

from sandbox_runtime.contract import (
    API_PREFIX,
    KEEPALIVE,
    OUTPUT,
    STREAMS,
    VERSION,
    ErrorCode,
    RuntimeApiError,
    encode_sse,
    invalid,
    not_found,
    os_error,
    output_event,
    presented_token,
)
from sandbox_runtime.endpoints import ROUTES
from sandbox_runtime.files import CHUNK, Files
from sandbox_runtime.processes import Line, Process, ProcessTable
from sandbox_runtime.pty_sessions import Sessions

MAX_JSON = 1024 * 1024


class RuntimeServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], *, token: str | None = None, files_root: str = "/",
                 quiet: bool = False, token_file: str | None = None) -> None:
        self.token = token
        # with a token file, the token is read again whenever the file changes: a daemon restored
        # from a memory snapshot into another sandbox (or a later life of its own) then answers to
        # that sandbox's token, not the one it was checkpointed with
        self.token_file = token_file
        self._token_stamp = _stamp(token_file)
        self._token_lock = threading.Lock()
        self.files = Files(files_root)
        self.table = ProcessTable()
        self.ptys = Sessions()
        self.started = time.monotonic()
        self.quiet = quiet
        super().__init__(address, Handler)


    def current_token(self) -> str | None:
        if self.token_file is None:
            return self.token
        stamp = _stamp(self.token_file)
        if stamp != self._token_stamp and stamp is not None:
            with self._token_lock:
                try:
                    with open(self.token_file, encoding="utf-8") as f:
                        token = f.read().strip()
                except OSError:
                    token = ""
                if token:
                    self.token, self._token_stamp = token, stamp
        return self.token


def _stamp(path: str | None) -> tuple[int, int, int] | None:
    """What tells a file's new content from its old: inode, size, modification time."""
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class _LengthBody:
    """A request body of ``Content-Length`` bytes."""

    def __init__(self, rfile: IO[bytes], length: int) -> None:
        self.rfile, self.left = rfile, length

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        data = self.rfile.read(n) if n else b""
        if len(data) < n:
            raise invalid("the request body ended before its Content-Length")
        self.left -= len(data)
        return data

    @property
    def done(self) -> bool:
        return self.left == 0


class _ChunkedBody:
    """A request body sent with ``Transfer-Encoding: chunked``."""

    def __init__(self, rfile: IO[bytes]) -> None:
        self.rfile, self.left, self.done = rfile, 0, False

    def read(self, n: int = -1) -> bytes:
        out = bytearray()
        while not self.done and (n < 0 or len(out) < n):
            if self.left == 0:
                try:
                    size = int(self.rfile.readline(1024).split(b";")[0].strip(), 16)
                except ValueError:
                    raise invalid("malformed chunked request body") from None
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    self.done = True
                    break
                self.left = size
            data = self.rfile.read(self.left if n < 0 else min(self.left, n - len(out)))
            if not data:
                raise invalid("the chunked request body was cut short")
            out += data
            self.left -= len(data)
            if self.left == 0:
                self.rfile.readline(16)
        return bytes(out)


class Handler(BaseHTTPRequestHandler):
    server: RuntimeServer
    protocol_version = "HTTP/1.1"
    server_version = f"docklake-runtime/{VERSION}"
    disable_nagle_algorithm = True  # else every response waits ~40 ms for a delayed ACK
    timeout = 600  # an idle keep-alive connection is closed after this many seconds

    # --- plumbing ---

    def _dispatch(self) -> None:
        self._body: Any = None
        self._replied = False
        url = urlsplit(self.path)
        self._query = parse_qs(url.query)
        try:
            self._check_token()
            handler, params = self._route(url.path)
            handler(self, **params)
        except RuntimeApiError as e:
            self._error(e)
        except OSError as e:
            if isinstance(e, (BrokenPipeError, ConnectionResetError)):
                self.close_connection = True
            else:
                self._error(os_error(e, self._query.get("path", [url.path])[0]))
        except Exception:
            traceback.print_exc(file=sys.stderr)
            self._error(RuntimeApiError(500, ErrorCode.INTERNAL_ERROR, "internal error (see the daemon's log)"))
        finally:
            if self._unread_body():
                self.close_connection = True  # an unread body would be taken for the next request

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _dispatch

    def _check_token(self) -> None:
        token = self.server.current_token()
        if token is None:
            return
        given = presented_token(self.headers.get("Authorization"))
        if given is None or not hmac.compare_digest(given.encode(), token.encode()):
            raise RuntimeApiError(401, ErrorCode.INVALID_TOKEN, "missing or invalid bearer token")

    def _route(self, path: str) -> tuple[Callable[..., None], dict[str, str]]:
        if not path.startswith(API_PREFIX + "/"):
            raise not_found(f"no such endpoint: {path}")
        rest = path[len(API_PREFIX):]
        for pattern, methods in ROUTES:
            m = pattern.fullmatch(rest)
            if m is None:
                continue
            if self.command not in methods:
                self._allow = ", ".join(sorted(methods))
                raise RuntimeApiError(405, ErrorCode.METHOD_NOT_ALLOWED,
                                      f"{self.command} is not allowed on {path} (allowed: {self._allow})")
            return methods[self.command], {k: unquote(v) for k, v in m.groupdict().items() if v is not None}
        raise not_found(f"no such endpoint: {path}")

    def _unread_body(self) -> bool:
        if self._body is not None:
            return not self._body.done
        return self.headers.get("Content-Length") not in (None, "0") or "Transfer-Encoding" in self.headers

    def body(self) -> Any:
        """The request body, as a reader (consume it, or the connection is closed after the answer)."""
        if self._body is None:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                self._body = _ChunkedBody(self.rfile)
            else:
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                except ValueError:
                    raise invalid("invalid Content-Length") from None
                if length < 0:
                    raise invalid("invalid Content-Length")
                self._body = _LengthBody(self.rfile, length)
        return self._body

    def json_body(self) -> Any:
        body = self.body()
        raw = body.read(MAX_JSON + 1)
        if len(raw) > MAX_JSON:
            raise RuntimeApiError(413, ErrorCode.INVALID_REQUEST, f"a JSON body may be at most {MAX_JSON} bytes")
        try:
            return json.loads(raw)
        except ValueError as e:
            raise invalid(f"the body is not valid JSON: {e}") from None

    def query(self, name: str) -> str | None:
        values = self._query.get(name)
        return values[0] if values else None

    def process(self, ref: str) -> Process:
        return self.server.table.get(ref)

    def send(self, status: int, body: bytes = b"", content_type: str | None = None,
             headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if status != 204:
            self.send_header("Content-Length", str(len(body)))
        if self._unread_body():
            self._drain()
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self._replied = True
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def _drain(self, most: int = MAX_JSON) -> None:
        """Read and drop a small unread body (so the connection can stay open), else close."""
        try:
            body = self.body()
            while not body.done and most > 0:
                chunk = body.read(min(CHUNK, most))
                if not chunk:
                    break
                most -= len(chunk)
        except (RuntimeApiError, OSError):
            pass
        if self._unread_body():
            self.close_connection = True

    def send_file(self, f: IO[bytes]) -> None:
        """A file's bytes: its size up front, then streamed (what a /proc file holds, read whole)."""
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            self.send(200, f.read(), "application/octet-stream")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        self._replied = True
        while size > 0 and self.command != "HEAD":
            chunk = f.read(min(CHUNK, size))
            if not chunk:  # the file shrank meanwhile: the client sees a short body, not wrong bytes
                self.close_connection = True
                break
            self.wfile.write(chunk)
            size -= len(chunk)

    def send_json(self, status: int, doc: Any) -> None:
        self.send(status, json.dumps(doc, separators=(",", ":")).encode(), "application/json")

    def _error(self, e: RuntimeApiError) -> None:
        if self._replied:  # a stream had begun: all that can be done is to end it
            self.close_connection = True
            return
        headers = {"Allow": self._allow} if e.status == 405 else None
        if e.status == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        self.send(e.status, json.dumps(e.body()).encode(), "application/json", headers)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors the stdlib raises itself (a malformed request line, an unknown method): JSON too."""
        self.close_connection = True
        reason = message or self.responses.get(code, ("error",))[0]
        codes = {404: ErrorCode.NOT_FOUND, 501: ErrorCode.UNSUPPORTED}
        body = json.dumps({"error": reason, "code": codes.get(code, ErrorCode.INVALID_REQUEST)}).encode()
        self.send_response(code, reason)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and code >= 200 and code not in (204, 304):
            self.wfile.write(body)

    def start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Accel-Buffering", "no")
        self._chunked = self.request_version != "HTTP/1.0"
        if self._chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.close_connection = True
            self.send_header("Connection", "close")
        self.end_headers()
        self._replied = True

    def stream(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if self._chunked else data)

    def end_stream(self) -> None:
        if self._chunked:
            self.wfile.write(b"0\r\n\r\n")

    def stream_output(self, proc: Process, streams: tuple[str, ...] = STREAMS) -> None:
        for batch in proc.follow(streams):
            self.stream(b"".join(_output(ln) for ln in batch) if batch else KEEPALIVE)

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        if not self.server.quiet and not getattr(self, "path", "").endswith("/health"):
            self.log_message('"%s" %s', self.requestline, code)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the stdlib's name)
        sys.stderr.write(f"runtime {self.address_string()} {format % args}\n")


def _output(line: Line) -> bytes:
    return encode_sse(OUTPUT, output_event(line.text, line.timestamp, line.stream))
