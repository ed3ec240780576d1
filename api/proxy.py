"""The per-sandbox proxy: requests for a sandbox's runtime daemon (or a port it exposes) are
streamed to its container, unbuffered both ways.

A request is for a sandbox when it carries ``X-Tensorlake-Sandbox-Id``, or its Host is
``<id>.local`` / ``<port>-<id>.local`` (or under ``DOCKLAKE_SANDBOX__PROXY_DOMAIN``), or its path
starts with the ``/sandboxes/<id>/proxy`` that ``sandbox_url`` hands out; WebSockets go the same
way (``proxy_ws``). The caller's bearer key
must belong to the sandbox's organization and project, unless the sandbox allows unauthenticated
ingress; the daemon then gets the sandbox's own token instead. Errors are the runtime's JSON
``{"error", "code"}``; none hangs: a sandbox that is not running answers 409 at once, an
unreachable one 502 after a short connect timeout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import httpx
import structlog
from fastapi.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api import proxy_ws
from pipelines.core.errors import SandboxError
from pipelines.core.sandbox_records import DAEMON_PORT, Sandbox, SandboxStatus

log = structlog.get_logger("docklake.proxy")

PATH_FORM = re.compile(r"^/sandboxes/([a-z0-9][a-z0-9-]*)/proxy(/.*)?$")
HOST_LABEL = re.compile(r"^(?:(\d{1,5})-)?([a-z0-9][a-z0-9-]*)$")
# not passed on (a Content-Length is: the daemon reads bodies by it, and with it the body is not
# re-sent chunked)
HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
       "transfer-encoding", "upgrade", "host", "authorization"}
RESUME_WAIT_MS = 30_000


@dataclass(frozen=True)
class Target:
    ref: str  # sandbox id (or name)
    port: int
    path: str


def target_of(scope: Scope, domain: str) -> Target | None:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    path = scope["path"]
    m = PATH_FORM.match(path)
    in_path, rest = (m.group(1), m.group(2) or "/") if m else (None, path)
    explicit = headers.get("x-tensorlake-sandbox-id", "").strip().lower()
    if explicit:
        port, ref = DAEMON_PORT, explicit
        hm = HOST_LABEL.match(explicit)
        if hm and hm.group(1):
            port, ref = int(hm.group(1)), hm.group(2)
        return Target(ref, port, rest)
    host = headers.get("host", "").rsplit(":", 1)[0].lower() if not headers.get("host", "").startswith("[") else ""
    for suffix in (".local", f".{domain}" if domain else None):
        if suffix and host.endswith(suffix) and host != suffix.lstrip("."):
            label = host[: -len(suffix)]
            hm = HOST_LABEL.match(label)
            if hm:
                return Target(hm.group(2), int(hm.group(1)) if hm.group(1) else DAEMON_PORT, rest)
    if in_path:
        return Target(in_path, DAEMON_PORT, rest)
    return None


async def _json_error(send: Send, status: int, message: str, code: str) -> None:
    import orjson

    body = orjson.dumps({"error": message, "code": code})
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class SandboxProxyMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._client: httpx.AsyncClient | None = None

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(connect=3.0, read=None, write=30.0, pool=10.0),
                limits=httpx.Limits(max_connections=1000, max_keepalive_connections=100),
                follow_redirects=False)
        return self._client

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        services = scope["app"].state.services
        target = target_of(scope, services.settings.sandbox.proxy_domain)
        if target is None:
            await self.app(scope, receive, send)
            return
        try:
            sb = await self._authorise(scope, services, target)
        except _Refused as r:
            if scope["type"] == "websocket":
                await proxy_ws.refuse(scope, send, r.status, r.message, r.code)
            else:
                await _json_error(send, r.status, r.message, r.code)
            return
        if sb is None:
            return
        services.sandboxes.touch(sb.id)
        if scope["type"] == "websocket":
            host = sb.address.rsplit(":", 1)[0]  # type: ignore[union-attr]
            await proxy_ws.relay(scope, receive, send, f"ws://{host}:{target.port}{target.path}",
                                 sb.token if target.port == DAEMON_PORT else None,
                                 lambda: services.sandboxes.touch(sb.id))
            return
        await self._forward(scope, receive, send, sb, target)

    async def _authorise(self, scope: Scope, services: object, target: Target) -> Sandbox | None:
        svc = services.sandboxes  # type: ignore[attr-defined]
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        scheme, _, token = headers.get("authorization", "").partition(" ")
        principal = None
        if scheme.lower() == "bearer" and token.strip():
            principal = services.cached_principal(token.strip())  # type: ignore[attr-defined]
            if principal is None:
                principal = await run_in_threadpool(services.authenticate, token.strip())  # type: ignore[attr-defined]
        sb = await run_in_threadpool(svc.addressed, target.ref, principal)
        if sb is None:
            raise _Refused(404, f"sandbox {target.ref!r} not found", "SANDBOX_NOT_FOUND")
        if not sb.spec.allow_unauthenticated_access:
            if principal is None:
                raise _Refused(401, "missing or invalid bearer token for this sandbox", "INVALID_TOKEN")
            if (principal.organization_id, principal.project_id) != (sb.organization_id, sb.project_id):
                raise _Refused(404, f"sandbox {target.ref!r} not found", "SANDBOX_NOT_FOUND")
        if target.port != DAEMON_PORT and target.port not in sb.spec.exposed_ports:
            raise _Refused(403, f"port {target.port} of sandbox {sb.id} is not exposed (PATCH exposed_ports)",
                           "PORT_NOT_EXPOSED")
        if sb.status == SandboxStatus.suspended and sb.spec.auto_resume and principal is not None:
            try:
                await run_in_threadpool(svc.resume, principal, sb.namespace, sb.id)
            except SandboxError:
                pass
            sb, _ = await run_in_threadpool(svc.wait_for, sb, SandboxStatus.running, RESUME_WAIT_MS)
        if sb.status != SandboxStatus.running or not sb.address:
            raise _Refused(409, f"sandbox {sb.id} is {sb.status.value}, not running", "SANDBOX_NOT_RUNNING")
        return sb

    async def _forward(self, scope: Scope, receive: Receive, send: Send, sb: Sandbox, target: Target) -> None:
        host = sb.address.rsplit(":", 1)[0]  # type: ignore[union-attr]
        url = f"http://{host}:{target.port}{target.path}"
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]
                   if k.decode("latin-1").lower() not in HOP and not k.lower().startswith(b"x-tensorlake-")]
        if target.port == DAEMON_PORT:
            headers.append(("authorization", f"Bearer {sb.token}"))

        gone = False  # the client hung up before its whole body came

        async def body() -> object:
            nonlocal gone
            while True:
                message: Message = await receive()
                if message["type"] == "http.disconnect":
                    # stop short: the upstream request then fails its Content-Length, so the daemon
                    # never takes a truncated body as whole (nothing is raised in this generator:
                    # an exception's traceback through a finished async generator's frame is not
                    # safe to walk for a log)
                    gone = True
                    return
                chunk = message.get("body", b"")
                if chunk:
                    yield chunk
                if not message.get("more_body", False):
                    return

        # a body only when the request has one: a body-less GET sent on as chunked leaves the
        # daemon unread bytes, and a socket closed with unread bytes is reset, cutting the reply
        names = {k.lower() for k, _ in headers}
        has_body = "transfer-encoding" in {k.decode("latin-1").lower() for k, _ in scope["headers"]} or (
            "content-length" in names and dict((k.lower(), v) for k, v in headers)["content-length"] != "0")
        client = self.client()
        request = client.build_request(scope["method"], url, headers=headers, content=body() if has_body else None)
        try:
            upstream = await client.send(request, stream=True)
        except Exception as exc:
            if gone:  # whatever the upstream says of a body cut short, nobody is left to answer
                log.info("proxy_client_gone", sandbox_id=sb.id, method=scope["method"], path=target.path,
                         error=type(exc).__name__)
                return
            if isinstance(exc, httpx.TimeoutException):
                await _json_error(send, 504, f"sandbox {sb.id} did not answer in time", "CONNECTION_TIMEOUT")
                return
            if isinstance(exc, httpx.HTTPError):
                await _json_error(send, 502, f"sandbox {sb.id} is unreachable: {type(exc).__name__}",
                                  "SANDBOX_UNREACHABLE")
                return
            raise
        try:
            out = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in upstream.headers.multi_items()
                   if k.lower() not in HOP]
            await send({"type": "http.response.start", "status": upstream.status_code, "headers": out})
            async for chunk in upstream.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except httpx.HTTPError as exc:
            log.info("proxy_stream_closed", sandbox_id=sb.id, error=type(exc).__name__)
        finally:
            await upstream.aclose()


class _Refused(Exception):
    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status, self.message, self.code = status, message, code
