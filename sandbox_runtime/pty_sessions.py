"""PTY sessions: a command on a pseudo-terminal of its own, driven over a WebSocket as the
Tensorlake SDK does (``sandbox.create_pty``).

``POST /api/v1/pty`` starts it (command, args, env, working_dir, rows, cols) and answers
``{session_id, token}``; the WebSocket at ``/api/v1/pty/{id}/ws`` takes the token in the
``X-PTY-Token`` header (or ``?token=``). Binary messages carry an opcode byte: 0x00 data (both
ways), 0x01 resize (``>HH`` cols, rows), 0x02 ready (the client is listening: what the terminal
wrote before is sent then, nothing is lost), 0x03 exit (``>i`` the exit code, then the close,
reason ``exit:N``). ``POST …/resize`` resizes too; ``DELETE /api/v1/pty/{id}`` kills the
session (its client is closed with reason ``session terminated``). A client may leave and
attach again; output is kept for it up to ``KEPT`` bytes. Sessions end with the sandbox.
"""

from __future__ import annotations

import fcntl
import hmac
import os
import secrets
import signal
import struct
import subprocess
import termios
import threading
from typing import Any

from sandbox_runtime.contract import ErrorCode, RuntimeApiError, invalid, not_found
from sandbox_runtime.websocket import BINARY, Closed, WebSocket

OP_DATA, OP_RESIZE, OP_READY, OP_EXIT = 0x00, 0x01, 0x02, 0x03
KEPT = 1 << 20  # output kept for a client that has not attached yet (or left)
MAX_SESSIONS = 64


def _winsize(fd: int, rows: int, cols: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def dimension(doc: dict[str, Any], key: str, default: int | None = None) -> int:
    """A terminal's ``rows`` or ``cols`` from a request body (``default`` when left out)."""
    value = doc.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000:
        raise invalid(f"'{key}' must be an integer from 1 to 10000")
    return value


class Session:
    def __init__(self, session_id: str, doc: dict[str, Any]) -> None:
        command = doc.get("command")
        if not isinstance(command, str) or not command:
            raise invalid("'command' is required and must be a non-empty string")
        args = doc.get("args") or []
        env = doc.get("env") or {}
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise invalid("'args' must be a list of strings")
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise invalid("'env' must be an object of strings")
        cwd = doc.get("working_dir")
        if cwd is not None and not os.path.isdir(cwd):
            raise invalid(f"working_dir {cwd!r} is not an existing directory")
        rows, cols = dimension(doc, "rows", 24), dimension(doc, "cols", 80)
        self.id, self.token = session_id, secrets.token_urlsafe(24)
        self.master, slave = os.openpty()
        _winsize(self.master, rows, cols)
        try:
            self.proc = subprocess.Popen(
                [command, *args], stdin=slave, stdout=slave, stderr=slave, cwd=cwd, close_fds=True,
                env={**os.environ, "TERM": "xterm-256color", **env}, start_new_session=True,
                preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))  # the terminal is its own
        except OSError as exc:
            os.close(self.master)
            raise invalid(f"cannot start {command!r}: {exc.strerror or exc}") from None
        finally:
            os.close(slave)
        self.exit_code: int | None = None
        self._kept = bytearray()
        self._client: WebSocket | None = None
        self._ready = False
        self._lock = threading.Lock()
        self._done = threading.Event()
        threading.Thread(target=self._pump, daemon=True, name=f"pty-{session_id}").start()

    def check(self, token: str | None) -> None:
        if token is None or not hmac.compare_digest(token.encode(), self.token.encode()):
            raise RuntimeApiError(401, ErrorCode.INVALID_TOKEN, "missing or invalid PTY token (X-PTY-Token)")

    def resize(self, rows: int, cols: int) -> None:
        _winsize(self.master, rows, cols)

    def _pump(self) -> None:
        """Terminal output to the client (or kept for it), then the exit."""
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: every holder of the terminal's other side has gone
                data = b""
            if not data:
                break
            with self._lock:
                client = self._client if self._ready else None
                if client is None:
                    self._kept += data
                    del self._kept[:-KEPT]
            if client is not None:
                self._send(client, bytes([OP_DATA]) + data)
        rc = self.proc.wait()
        self.exit_code = rc if rc >= 0 else 128 - rc  # a signal as a shell reports it
        os.close(self.master)
        self._done.set()
        with self._lock:
            client = self._client if self._ready else None
        if client is not None:
            self._send(client, bytes([OP_EXIT]) + struct.pack(">i", self.exit_code))
            client.close(1000, f"exit:{self.exit_code}")

    def _send(self, client: WebSocket, frame: bytes) -> None:
        try:
            client.send_binary(frame)
        except Closed:
            with self._lock:
                if self._client is client:
                    self._client, self._ready = None, False

    def attach(self, ws: WebSocket) -> None:
        """Serve one client until it leaves or the session ends (a newer client replaces it)."""
        with self._lock:
            old, self._client, self._ready = self._client, ws, False
        if old is not None:
            old.close(1000, "another client attached")
        try:
            while True:
                kind, msg = ws.recv()
                if kind != BINARY or not msg:
                    continue
                op = msg[0]
                if op == OP_DATA and self.exit_code is None:
                    os.write(self.master, msg[1:])
                elif op == OP_RESIZE and len(msg) >= 5:
                    cols, rows = struct.unpack(">HH", msg[1:5])
                    if rows and cols and self.exit_code is None:
                        self.resize(rows, cols)
                elif op == OP_READY:
                    self._flush(ws)
        except (Closed, OSError):
            pass
        finally:
            with self._lock:
                if self._client is ws:
                    self._client, self._ready = None, False

    def _flush(self, ws: WebSocket) -> None:
        with self._lock:  # held while sending: the pump's next output waits, so the order holds
            kept, self._kept = bytes(self._kept), bytearray()
            self._ready = self._client is ws
            if kept:
                try:
                    ws.send_binary(bytes([OP_DATA]) + kept)
                except Closed:
                    return
        if self._done.is_set() and self.exit_code is not None:
            self._send(ws, bytes([OP_EXIT]) + struct.pack(">i", self.exit_code))
            ws.close(1000, f"exit:{self.exit_code}")

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        with self._lock:
            client = self._client
        if client is not None:
            client.close(1000, "session terminated")


class Sessions:
    def __init__(self) -> None:
        self._by_id: dict[str, Session] = {}
        self._lock = threading.Lock()

    def create(self, doc: Any) -> Session:
        if not isinstance(doc, dict):
            raise invalid("the request body must be a JSON object")
        with self._lock:
            for sid in [k for k, s in self._by_id.items() if s._done.is_set() and s._client is None]:
                del self._by_id[sid]  # ended and nobody listening any more
            if len(self._by_id) >= MAX_SESSIONS:
                raise invalid(f"at most {MAX_SESSIONS} PTY sessions at once: delete some")
            session = Session(secrets.token_hex(8), doc)
            self._by_id[session.id] = session
        return session

    def get(self, session_id: str) -> Session:
        with self._lock:
            session = self._by_id.get(session_id)
        if session is None:
            raise not_found(f"no PTY session {session_id!r}")
        return session

    def delete(self, session_id: str) -> None:
        session = self.get(session_id)
        session.kill()
        with self._lock:
            self._by_id.pop(session_id, None)

    def all(self) -> list[Session]:
        with self._lock:
            return list(self._by_id.values())
