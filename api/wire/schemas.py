"""The wire shapes as the OpenAPI document declares them (``/docs``, clients, the fuzz test).

Routes answer pre-serialised JSON (``api.wire.documents``), so these models describe responses without
costing a validation per request. ``responses(...)`` declares every error a route can answer,
with the body the spec gives it (``api.errors``): ApiError JSON, or ``text/plain`` for an invalid
request body.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ApiError(BaseModel):
    message: str
    code: str
    timestamp: int = Field(description="Milliseconds since the epoch.")
    trace_id: str | None = None
    details: Any | None = None


class FileCreated(BaseModel):
    file_id: str
    created_at: str


class FileMetadata(BaseModel):
    file_id: str
    file_name: str | None
    mime_type: str
    file_size: int
    checksum_sha256: str
    created_at: str
    labels: dict[str, Any]
    # the SDK's (older) camelCase model of the same record
    id: str
    name: str
    fileSize: int  # noqa: N815 - wire name
    mimeType: str  # noqa: N815
    createdAt: str  # noqa: N815
    updatedAt: str  # noqa: N815


class _Paginated(BaseModel):
    has_more: bool
    next_cursor: str | None
    prev_cursor: str | None
    hasMore: bool  # noqa: N815 - wire name
    nextCursor: str | None  # noqa: N815
    prevCursor: str | None  # noqa: N815


class FileList(_Paginated):
    items: list[FileMetadata]


class ParseCreated(BaseModel):
    parse_id: str
    created_at: str


class Fragment(BaseModel):
    fragment_type: str
    content: dict[str, Any]
    reading_order: int | None
    bbox: dict[str, float] | None


class Page(BaseModel):
    page_number: int
    page_fragments: list[Fragment]
    dimensions: list[int] | None
    page_dimensions: dict[str, int] | None
    skew_angle: float | None = None
    page_image: str | None = None


class Chunk(BaseModel):
    page_number: int
    content: str


class Citation(BaseModel):
    page_number: int
    bbox: dict[str, float] | None = Field(None, description="x1, y1, x2, y2 in PDF points, top-left origin")
    text: str = Field("", description="the words the value was read from")


class StructuredData(BaseModel):
    schema_name: str
    data: dict[str, Any] = Field(description="In the shape of the request's json_schema; null for what was "
                                             "not found")
    page_numbers: list[int]
    citations: dict[str, Citation] | None = Field(None, description="With provide_citations: field path "
                                                                     "(total, buyer.name, items[0]) → where it was read")


class PageClass(BaseModel):
    page_class: str
    page_numbers: list[int]
    classification_reasons: dict[str, str] = Field(default_factory=dict)


class ParseResult(BaseModel):
    parse_id: str
    status: str = Field(description="pending, processing, successful or failure")
    created_at: str
    finished_at: str | None
    error: str | None
    labels: dict[str, Any]
    dataset_id: str | None
    total_pages: int | None
    parsed_pages_count: int
    message_update: str | None
    pages: list[Page] | None
    chunks: list[Chunk]
    page_classes: list[PageClass] | None
    structured_data: list[StructuredData] | None
    merged_tables: list[dict[str, Any]]
    usage: dict[str, int]
    options: dict[str, Any] | None = Field(None, description="With ?with_options=true.")


class ParseList(_Paginated):
    items: list[ParseResult]


class DatasetCreated(BaseModel):
    name: str
    dataset_id: str
    created_at: str


class DatasetAnalytics(BaseModel):
    total_processing_parse_jobs: int
    total_pending_parse_jobs: int
    total_error_parse_jobs: int
    total_successful_parse_jobs: int
    total_jobs: int


class Dataset(BaseModel):
    name: str
    dataset_id: str
    description: str | None
    status: str = Field(description="`processing` while any of its jobs is pending or processing, else `idle`.")
    created_at: str
    updated_at: str
    analytics: DatasetAnalytics | None = Field(None, description="With ?include_analytics=true.")
    configuration: dict[str, Any] | None = Field(None, description="With ?include_configuration=true: the "
                                                 "settings its next jobs get.")


class DatasetList(_Paginated):
    items: list[Dataset]


class QueryRequest(BaseModel):
    sql: str = Field(description="DuckDB SQL over the tables jobs, documents, pages, fragments and chunks "
                     "(the caller's own).")
    dataset_id: str | None = Field(None, description="Only this dataset's jobs and results.")


class QueryAnswer(BaseModel):
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool = Field(description="More rows matched than DOCKLAKE_API__QUERY_MAX_ROWS.")


class WebhookCreate(BaseModel):
    url: str = Field(description="Where to POST the events (http or https; loopback and private addresses only "
                     "with DOCKLAKE_LIMITS__ALLOW_PRIVATE_URLS).")
    events: list[str] | None = Field(None, description="parse.completed and/or parse.failed (default: both).")
    dataset_id: str | None = Field(None, description="Only this dataset's jobs.")


class WebhookInfo(BaseModel):
    webhook_id: str
    url: str
    events: list[str]
    dataset_id: str | None
    created_at: str
    secret: str | None = Field(None, description="Shown when the webhook is created: the key of its signatures.")


class WebhookList(BaseModel):
    items: list[WebhookInfo]


class DeliveryAttempt(BaseModel):
    attempt: int
    at: str
    status_code: int | None
    error: str | None
    duration_ms: int


class DeliveryInfo(BaseModel):
    delivery_id: str
    event: str
    parse_id: str
    status: str = Field(description="pending, delivered or failed.")
    attempts: int
    created_at: str
    next_attempt_at: str | None
    delivered_at: str | None
    last_error: str | None
    history: list[DeliveryAttempt]


class DeliveryList(_Paginated):
    items: list[DeliveryInfo]


class Health(BaseModel):
    status: str


class SandboxCapabilities(BaseModel):
    engine: bool = Field(description="A Docker engine answers (sandboxes can run).")
    image: bool = Field(description="The default sandbox image is on the engine.")
    memory_snapshots: bool = Field(description="`snapshot_type: memory` is served (CRIU under an "
                                               "experimental engine); else it is refused with 400.")
    file_systems: bool = Field(description="File systems can be attached to sandboxes.")
    warm: int = Field(description="Pool containers ready to be handed out.")


class Ready(BaseModel):
    ready: bool
    checks: dict[str, str]
    sandboxes: SandboxCapabilities | None = Field(None, description="What this host's sandboxes can do "
                                                  "(informational: it does not make the service unready).")


_ERRORS = {
    400: "Invalid request (ApiError).",
    401: "Missing or invalid API key (ApiError).",
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


UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {"multipart/form-data": {"schema": {
            "type": "object",
            "properties": {
                "file_bytes": {"type": "string", "format": "binary", "description": "The file ('file' also works)."},
                "labels": {"type": "string", "description": "key=value, or a JSON object; may repeat."},
            },
            "required": ["file_bytes"],
        }}},
    },
}
SSE_200 = {200: {"description": "The job (JSON), or with `Accept: text/event-stream` its progress: "
                                "parse_queued, parse_update, then parse_done or parse_failed.",
                 "content": {"text/event-stream": {"schema": {"type": "string"}}}}}
