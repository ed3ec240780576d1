"""The request-id / access-log / metrics middleware (log setup: ``pipelines.core.logs``)."""

from __future__ import annotations

import time
import uuid

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.middleware.metrics import HTTP_LATENCY, HTTP_REQUESTS

QUIET_PATHS = ("/healthz", "/readyz", "/metrics")


log = structlog.get_logger("docklake.http")


class RequestContextMiddleware:
    """Gives every request an id (``X-Request-Id``), logs it, and counts it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        rid = headers.get(b"x-request-id", b"").decode("latin-1")[:64] or uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = rid
        structlog.contextvars.bind_contextvars(request_id=rid)
        start = time.perf_counter()
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [(b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            elapsed = time.perf_counter() - start
            route = scope.get("route")
            path_tmpl = getattr(route, "path", None) or "unmatched"
            method = scope.get("method", "")
            HTTP_REQUESTS.labels(method, path_tmpl, str(status)).inc()
            HTTP_LATENCY.labels(method, path_tmpl).observe(elapsed)
            if scope.get("path") not in QUIET_PATHS:
                log.info("request", method=method, path=scope.get("path"), status=status,
                         ms=round(elapsed * 1000, 2))
            structlog.contextvars.unbind_contextvars("request_id")
