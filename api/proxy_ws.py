"""WebSockets through the per-sandbox proxy: the runtime daemon's (PTY sessions, TCP tunnels) and
those of a user's own service on an exposed port.

The caller is routed and authorised as for HTTP (``api.proxy``); the upstream WebSocket is
opened first, so a sandbox that refuses or does not answer is an HTTP error on the upgrade (the
runtime's JSON body) rather than an accepted socket that closes at once. Then messages are
relayed both ways as they come, text as text and binary as binary, each direction awaiting the
other side's send, so a slow reader slows its writer (back-pressure) and nothing is buffered
beyond a message. A close on either side closes the other with the same code and reason (a PTY's
``exit:N`` reaches the SDK).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import orjson
import structlog
from starlette.types import Receive, Scope, Send
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

log = structlog.get_logger("docklake.proxy")

# what the client's upgrade request carries that is the connection's own, not the request's
NOT_FORWARDED = {"host", "connection", "upgrade", "authorization", "sec-websocket-key", "sec-websocket-version",
                 "sec-websocket-extensions", "sec-websocket-protocol", "content-length", "transfer-encoding"}


async def refuse(scope: Scope, send: Send, status: int, message: str, code: str) -> None:
    """Answer the upgrade with an HTTP error (where the server can), else close it (403)."""
    if "websocket.http.response" in scope.get("extensions", {}):
        body = orjson.dumps({"error": message, "code": code})
        await send({"type": "websocket.http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})


async def relay(scope: Scope, receive: Receive, send: Send, url: str, token: str | None,
                touch: Any) -> None:
    """Open ``url`` (a ws:// address in the sandbox) and relay the caller's WebSocket to it.
    ``token`` is the daemon's (None for a user's port); ``touch`` marks the sandbox active."""
    headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]
               if k.decode("latin-1").lower() not in NOT_FORWARDED and not k.lower().startswith(b"x-tensorlake-")]
    if token is not None:
        headers.append(("Authorization", f"Bearer {token}"))
    if scope.get("query_string"):
        url += "?" + scope["query_string"].decode("latin-1")
    try:
        upstream = await connect(url, additional_headers=headers, subprotocols=scope.get("subprotocols") or None,
                                 open_timeout=10, ping_interval=None, max_size=None, compression=None,
                                 user_agent_header=None)
    except InvalidStatus as exc:
        body = exc.response.body or b""
        try:
            doc = orjson.loads(body)
            message, code = str(doc.get("error")), str(doc.get("code"))
        except (orjson.JSONDecodeError, AttributeError):
            message, code = body.decode("utf-8", "replace")[:500] or "refused", "UPSTREAM_REFUSED"
        await refuse(scope, send, exc.response.status_code, message, code)
        return
    except (TimeoutError, OSError, InvalidHandshake) as exc:
        await refuse(scope, send, 502, f"the sandbox's WebSocket did not open: {type(exc).__name__}",
                     "SANDBOX_UNREACHABLE")
        return
    await send({"type": "websocket.accept", "subprotocol": upstream.subprotocol})

    async def from_client() -> None:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                await upstream.close(code=message.get("code") or 1000, reason=message.get("reason") or "")
                return
            if message["type"] == "websocket.receive":
                touch()
                data = message.get("bytes")
                await upstream.send(data if data is not None else message.get("text") or "")

    async def from_upstream() -> None:
        try:
            async for data in upstream:
                touch()
                await send({"type": "websocket.send", **({"bytes": data} if isinstance(data, bytes) else {"text": data})})
        except ConnectionClosed:
            pass
        rcvd = upstream.close_rcvd
        with contextlib.suppress(Exception):  # the client may be gone already
            await send({"type": "websocket.close", "code": rcvd.code if rcvd else 1011,
                        "reason": (rcvd.reason if rcvd else "the sandbox's side went away")[:120]})

    tasks = [asyncio.create_task(from_client()), asyncio.create_task(from_upstream())]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        if tasks[1] in done:  # the sandbox closed: the client has been told; stop reading it
            tasks[0].cancel()
        else:  # the client left: the upstream close is under way, let its end arrive
            await asyncio.wait([tasks[1]], timeout=5)
    except (ConnectionClosed, OSError) as exc:
        log.info("proxy_websocket_closed", error=type(exc).__name__)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await upstream.close()

