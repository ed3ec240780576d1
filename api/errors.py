"""Every error the API answers, mapped to the spec's bodies in one place.

Document endpoints answer ``ApiError`` JSON (``message``, ``code``, ``timestamp``, ``trace_id``);
an invalid JSON body is 422 ``text/plain``; invalid query parameters are 422 ApiError JSON.
"""

from __future__ import annotations

import time

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from assets.catalog.db import is_transient
from assets.storage import is_outage
from pipelines.core import errors as e

log = structlog.get_logger("docklake.api")


class Unauthorized(e.DocklakeError):
    code = "UNAUTHORIZED"


class ClientClosed(e.DocklakeError):
    code = "MULTIPART_STREAM_END"


STATUS: list[tuple[type[e.DocklakeError], int]] = [
    (Unauthorized, 401),
    (e.SandboxNotFound, 404),
    (e.SandboxConflict, 409),
    (e.SandboxInvalid, 400),
    (e.SandboxUnavailable, 500),
    (ClientClosed, 499),
    (e.NotFound, 404),
    (e.ForbiddenSource, 403),
    (e.AlreadyExists, 409),
    (e.PayloadTooLarge, 413),
    (e.InvalidQuery, 422),
    (e.InvalidRequest, 400),
    (e.DocumentError, 400),
]


SANDBOX_PATHS = ("/sandboxes", "/snapshots", "/archived-sandboxes", "/file-systems", "/v1/namespaces/")


def is_sandbox_path(request: Request) -> bool:
    return request.url.path.startswith(SANDBOX_PATHS)


def status_for(exc: e.DocklakeError) -> int:
    for cls, status in STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def api_error(request: Request, status: int, message: str, code: str,
              details: object | None = None) -> JSONResponse:
    body: dict[str, object] = {
        "message": message,
        "code": code,
        "timestamp": int(time.time() * 1000),
        "trace_id": getattr(request.state, "request_id", None),
    }
    if details is not None:
        body["details"] = details
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body, status_code=status, headers=headers)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
        msg = str(err.get("msg", "")).removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts) or "invalid request"


def install(app: FastAPI) -> None:
    @app.exception_handler(e.DocklakeError)
    async def _docklake(request: Request, exc: e.DocklakeError) -> Response:
        if isinstance(exc, e.SandboxError) or (is_sandbox_path(request) and not isinstance(exc, Unauthorized)):
            return PlainTextResponse(exc.message, status_code=status_for(exc))
        return api_error(request, status_for(exc), exc.message, exc.code)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        msg = _validation_message(exc)
        if is_sandbox_path(request):  # sandbox endpoints answer text/plain, whatever was invalid
            return PlainTextResponse(f"Invalid request: {msg}", status_code=422)
        if any(err.get("loc", ("",))[0] == "body" for err in exc.errors()):
            return PlainTextResponse(f"Invalid request body: {msg}", status_code=422)
        details = [{"property": ".".join(str(x) for x in err.get("loc", ())[1:]), "message": err.get("msg")}
                   for err in exc.errors()]
        return api_error(request, 422, msg, "INVALID_QUERY_PARAMS", details)

    @app.exception_handler(ValidationError)
    async def _model(request: Request, exc: ValidationError) -> Response:
        # a model built from a translated request (the v1 settings → v2 options), not the body
        # FastAPI validated itself: the request asked for something invalid
        msg = "; ".join(f"{'.'.join(str(x) for x in err.get('loc', ()))}: {err.get('msg')}" for err in exc.errors())
        return api_error(request, 400, msg or "invalid request", "INVALID_CONFIGURATION")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400 and exc.detail == BODY_PARSE_DETAIL:
            # FastAPI's own words for a body json.loads gave up on: not UTF-8, or nested deeper
            # than the parser goes. An invalid body is 422 text/plain, like every other.
            return PlainTextResponse("Invalid request body: not valid JSON (malformed, not UTF-8, or "
                                     "nested too deeply)", status_code=422)
        code = {404: "ENTITY_NOT_FOUND", 405: "INVALID_CONFIGURATION"}.get(exc.status_code, "INTERNAL_ERROR")
        response = api_error(request, exc.status_code, str(exc.detail), code)
        response.headers.update(exc.headers or {})
        if exc.status_code == 405:  # every method of the path, not only its first route's
            response.headers["Allow"] = ", ".join(_allowed(request))
        return response

    app.add_middleware(CatchAllMiddleware)


BODY_PARSE_DETAIL = "There was an error parsing the body"


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _allowed(request: Request) -> list[str]:
    """The methods some route serves at this path, asked of the routes themselves (included routers
    hide their routes' paths from a walk over ``app.routes``)."""
    allowed = []
    for method in _METHODS:
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] == Match.FULL for route in request.app.router.routes):
            allowed.append(method)
    return allowed


class CatchAllMiddleware:
    """The outermost layer: an exception nothing else handled becomes a 500 ApiError here, and is
    not raised further, so the server keeps the client's keep-alive connection (Starlette's own
    last resort re-raises, and the server then drops the connection and the client's next
    request with it)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            if started:
                log.exception("unhandled_error", path=scope.get("path"))
                raise  # half a response went out: only closing the connection can say so
            request = Request(scope)
            response: Response
            if is_transient(exc) or is_outage(exc):
                # the catalog or the object store away for a moment: nothing was wrong with the
                # request, and nothing was half done (each write is one transaction, or atomic)
                log.warning("dependency_unavailable", path=scope.get("path"), error=repr(exc))
                message = "the catalog or the object store cannot be reached just now; try again shortly"
                response = (PlainTextResponse(message, status_code=503) if is_sandbox_path(request) else
                            api_error(request, 503, message, "SERVICE_UNAVAILABLE"))
                response.headers["Retry-After"] = "5"
            else:
                log.exception("unhandled_error", path=scope.get("path"))
                response = api_error(request, 500, "internal error; see the server log for the trace id",
                                     "INTERNAL_ERROR")
            await response(scope, receive, send)
