"""A small WebSocket server side (RFC 6455) for the runtime daemon, on the standard library only:
the upgrade of one of its HTTP connections, then messages both ways on the blocking socket.

Enough for PTY sessions and TCP tunnels: binary and text messages (fragmented ones joined),
ping answered with pong, the close handshake with its code and reason. Frames from the client
must be masked (they are, from every client); the server's are not. Sends are serialised by a
lock, so a reader thread and a writer thread can share one socket; a blocking send is the
back-pressure.
"""

from __future__ import annotations

import base64
import hashlib
import socket
import struct
import threading
from typing import IO, TYPE_CHECKING

from sandbox_runtime.contract import invalid

if TYPE_CHECKING:
    from sandbox_runtime.daemon import Handler

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
CONT, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
MAX_MESSAGE = 64 * 1024 * 1024


class Closed(Exception):
    """The other side closed (``code``, ``reason``) or the connection broke."""

    def __init__(self, code: int = 1006, reason: str = "") -> None:
        super().__init__(f"{code} {reason}")
        self.code, self.reason = code, reason


def is_upgrade(h: Handler) -> bool:
    return "websocket" in h.headers.get("Upgrade", "").lower()


def accept(h: Handler) -> WebSocket:
    """Answer the handler's upgrade request with 101 and take over its connection."""
    key = h.headers.get("Sec-WebSocket-Key", "")
    if not is_upgrade(h) or not key or h.headers.get("Sec-WebSocket-Version", "13") != "13":
        raise invalid("this endpoint speaks WebSocket: send an Upgrade: websocket request")
    digest = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
    h.close_connection = True
    h._replied = True  # the daemon's own answer is this one
    head = ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {digest}\r\n\r\n")
    h.wfile.write(head.encode())
    h.wfile.flush()
    h.connection.settimeout(None)  # a session may idle longer than an HTTP connection
    return WebSocket(h.connection, h.rfile)


class WebSocket:
    def __init__(self, sock: socket.socket, rfile: IO[bytes]) -> None:
        self.sock, self.rfile = sock, rfile  # rfile: what the HTTP parser may already have buffered
        self._send_lock = threading.Lock()
        self.closed = False

    def _read(self, n: int) -> bytes:
        data = self.rfile.read(n)
        if len(data) < n:
            raise Closed(1006, "connection lost")
        return data

    def _frame(self) -> tuple[bool, int, bytes]:
        b0, b1 = self._read(2)
        length = b1 & 0x7F
        if length == 126:
            length = struct.unpack(">H", self._read(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", self._read(8))[0]
        if length > MAX_MESSAGE:
            raise Closed(1009, "message too big")
        mask = self._read(4) if b1 & 0x80 else b""
        payload = self._read(length) if length else b""
        if mask:
            payload = _unmask(payload, mask)
        return bool(b0 & 0x80), b0 & 0x0F, payload

    def recv(self) -> tuple[int, bytes]:
        """The next message: (TEXT or BINARY, payload). Raises ``Closed`` once the peer closed
        (the close is answered) or the connection broke."""
        parts: list[bytes] = []
        kind = None
        while True:
            fin, op, payload = self._frame()
            if op == PING:
                self._send(PONG, payload)
                continue
            if op == PONG:
                continue
            if op == CLOSE:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 1005
                reason = payload[2:].decode("utf-8", "replace")
                self.close(code if code != 1005 else 1000)
                raise Closed(code, reason)
            if op in (TEXT, BINARY):
                kind, parts = op, [payload]
            elif op == CONT and kind is not None:
                parts.append(payload)
            else:
                self.close(1002, "protocol error")
                raise Closed(1002, "protocol error")
            if fin:
                return kind, b"".join(parts)

    def _send(self, op: int, payload: bytes) -> None:
        n = len(payload)
        head = bytes([0x80 | op]) + (bytes([n]) if n < 126 else
                                     b"\x7e" + struct.pack(">H", n) if n < 65536 else b"\x7f" + struct.pack(">Q", n))
        with self._send_lock:
            if self.closed and op != CLOSE:
                raise Closed(1006, "already closed")
            try:
                self.sock.sendall(head + payload)
            except OSError as exc:
                self.closed = True
                raise Closed(1006, str(exc)) from exc

    def send_binary(self, data: bytes) -> None:
        self._send(BINARY, data)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send the close frame once (the peer's answer is not waited for)."""
        if self.closed:
            return
        try:
            self._send(CLOSE, struct.pack(">H", code) + reason.encode()[:120])
        except Closed:
            pass
        self.closed = True


def _unmask(payload: bytes, mask: bytes) -> bytes:
    # XOR with the repeating 4-byte key, done as one big integer (fast enough for tunnels)
    n = len(payload)
    key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
    return (int.from_bytes(payload, "big") ^ key).to_bytes(n, "big")
