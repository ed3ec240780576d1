"""What every resource's wire module shares: JSON bytes written with orjson, RFC 3339 times in
query parameters, the paginated envelope (snake_case and the SDK's older camelCase keys), and the
error bodies a route declares (``ApiError``, mapped from the exception tree in ``api.errors``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import orjson
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from pipelines.core.errors import InvalidQuery
from pipelines.core.records import Page


def dumps(content: Any) -> bytes:
    """JSON bytes, with orjson (several times faster than the standard library). What orjson refuses
    (a lone surrogate or very deep nesting in a row stored before such input was refused) is written
    by the standard library instead, escaped: a stored value never makes a 500."""
    try:
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS)
    except (TypeError, ValueError):
        return json.dumps(content, ensure_ascii=True, default=str, allow_nan=False).encode()


class JSON(JSONResponse):
    """A JSON response written by ``dumps`` (a ``JSONResponse``, so the OpenAPI document shows the
    route's response model rather than a string)."""

    def render(self, content: Any) -> bytes:
        return dumps(content)


def parse_rfc3339(value: str | None, name: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InvalidQuery(f"{name} must be an RFC 3339 timestamp, got {value!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1_000_000)


class Paginated(BaseModel):
    has_more: bool
    next_cursor: str | None
    prev_cursor: str | None
    hasMore: bool  # noqa: N815 - wire name
    nextCursor: str | None  # noqa: N815
    prevCursor: str | None  # noqa: N815


def paginated(page: Page, items: list[Any]) -> dict[str, Any]:
    """The envelope of a list: ``items`` and the cursors, under both spellings the SDKs read."""
    return {
        "items": items,
        "has_more": page.has_more,
        "next_cursor": page.next_cursor,
        "prev_cursor": page.prev_cursor,
        "hasMore": page.has_more,
        "nextCursor": page.next_cursor,
        "prevCursor": page.prev_cursor,
    }


class ApiError(BaseModel):
    message: str
    code: str
    timestamp: int = Field(description="Milliseconds since the epoch.")
    trace_id: str | None = None
    details: Any | None = None


_ERRORS = {
    400: "Invalid request (ApiError).",
    401: "Missing or invalid API key (ApiError).",
    403: "Not allowed by this server's settings (ApiError).",
    404: "Not found for this caller (ApiError).",
    409: "Already exists (ApiError).",
    413: "Over a configured size limit (ApiError).",
    499: "The client closed the connection before the upload completed (ApiError).",
    500: "Internal error; the body names the trace id (ApiError).",
}
TEXT_422 = {"description": "Invalid request body (text/plain).",
            "content": {"text/plain": {"schema": {"type": "string"}}}}
JSON_422 = {"description": "Invalid query parameter (ApiError).", "model": ApiError}


def responses(*codes: int, body: bool = False, query: bool = False) -> dict[int | str, dict[str, Any]]:
    """The error responses of a route: ``codes`` as ApiError JSON, 422 as ``text/plain`` for an
    invalid body (``body``) or ApiError JSON for an invalid query (``query``), and always 401
    and 500."""
    out: dict[int | str, dict[str, Any]] = {
        c: {"description": _ERRORS[c], "model": ApiError} for c in sorted({*codes, 401, 500})}
    if body:
        out[422] = TEXT_422
    elif query:
        out[422] = JSON_422
    return out
