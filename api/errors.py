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
from starlette.exceptions import HTTPException as StarletteHTTPException

from pipelines import errors as e

log = structlog.get_logger("docklake.api")


class Unauthorized(e.DocklakeError):
    code = "UNAUTHORIZED"


class ClientClosed(e.DocklakeError):
    code = "MULTIPART_STREAM_END"


STATUS: list[tuple[type[e.DocklakeError], int]] = [
    (Unauthorized, 401),
    (ClientClosed, 499),
    (e.NotFound, 404),
    (e.PayloadTooLarge, 413),
    (e.InvalidQuery, 422),
    (e.InvalidRequest, 400),
    (e.DocumentError, 400),
]


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
        parts.append(f"{loc or 'body'}: {err.get('msg')}")
    return "; ".join(parts) or "invalid request"


def install(app: FastAPI) -> None:
    @app.exception_handler(e.DocklakeError)
    async def _docklake(request: Request, exc: e.DocklakeError) -> Response:
        return api_error(request, status_for(exc), exc.message, exc.code)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        msg = _validation_message(exc)
        if any(err.get("loc", ("",))[0] == "body" for err in exc.errors()):
            return PlainTextResponse(f"Invalid request body: {msg}", status_code=422)
        details = [{"property": ".".join(str(x) for x in err.get("loc", ())[1:]), "message": err.get("msg")}
                   for err in exc.errors()]
        return api_error(request, 422, msg, "INVALID_QUERY_PARAMS", details)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        code = {404: "ENTITY_NOT_FOUND", 405: "INVALID_CONFIGURATION"}.get(exc.status_code, "INTERNAL_ERROR")
        return api_error(request, exc.status_code, str(exc.detail), code)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled_error", path=request.url.path)
        return api_error(request, 500, "internal error; see the server log for the trace id",
                         "INTERNAL_ERROR")
