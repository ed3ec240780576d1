"""TCP tunnels: the SDK's ``create_tunnel(port)`` opens a WebSocket at
``/api/v1/tunnels/tcp?port=N`` for each local connection, and the daemon relays it to
``127.0.0.1:N`` inside the sandbox: binary messages are the bytes of the stream, both ways. A
close on either side closes the other; each direction has a thread of its own and blocking
sends, so a slow reader slows its writer instead of filling memory.
"""

from __future__ import annotations

import socket
import threading

from sandbox_runtime.websocket import Closed, WebSocket

CHUNK = 256 * 1024


def relay(ws: WebSocket, port: int) -> None:
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    except OSError as exc:
        ws.close(1011, f"nothing answers on port {port} in the sandbox ({exc.strerror or exc})")
        return
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def to_client() -> None:
        try:
            while True:
                data = sock.recv(CHUNK)
                if not data:
                    break
                ws.send_binary(data)
        except (OSError, Closed):
            pass
        ws.close(1000, "the sandbox's side closed")

    back = threading.Thread(target=to_client, daemon=True, name=f"tunnel-{port}")
    back.start()
    try:
        while True:
            _, msg = ws.recv()
            sock.sendall(msg)
    except (Closed, OSError):
        pass
    finally:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        back.join(5)
        sock.close()
