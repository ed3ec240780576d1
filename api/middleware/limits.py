"""A cap on request bodies (uploads have their own streaming limit in ``api/upload.py``)."""

from __future__ import annotations

import json
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

UPLOAD_PATHS = ("/documents/v2/files",)
SLACK = 1024 * 1024  # JSON around the largest raw_text allowed


class BodyLimitMiddleware:
    """413 for a JSON body larger than the upload limit, by Content-Length or as it streams."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH") \
                or scope["path"] in UPLOAD_PATHS:
            await self.app(scope, receive, send)
            return
        limit = scope["app"].state.services.settings.limits.max_upload_bytes + SLACK
        length = dict(scope.get("headers") or []).get(b"content-length", b"")
        if length.isdigit() and int(length) > limit:
            await _too_large(send, limit)
            return
        seen = 0
        rejected = False

        async def counted() -> Message:
            nonlocal seen, rejected
            if rejected:
                return {"type": "http.disconnect"}
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > limit:
                # Answer 413 now and tell the app the client is gone; whatever it answers is dropped.
                rejected = True
                await _too_large(send, limit)
                return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not rejected:
                await send(message)

        await self.app(scope, counted, guarded_send)


async def _too_large(send: Send, limit: int) -> None:
    body = json.dumps({"message": f"the request body exceeds {limit} bytes (DOCKLAKE_LIMITS__MAX_UPLOAD_BYTES)",
                       "code": "INVALID_FILE", "timestamp": int(time.time() * 1000)}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
