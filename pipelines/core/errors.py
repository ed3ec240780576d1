"""Errors raised by docklake's document and job code.

    DocklakeError
    ├── InvalidRequest            – the request cannot be served as given (400)
    │   ├── InvalidQuery          – a list query parameter is invalid (422)
    │   ├── InvalidPageRange
    │   ├── InvalidMimeType
    │   └── InvalidFile           – unknown/invalid file id, broken upload
    ├── NotFound                  – the resource does not exist for this caller (404)
    ├── PayloadTooLarge           – an upload or download over the configured limit (413)
    └── DocumentError             – a document could not be processed (job ends ``failure``)
        ├── UnsupportedFormat
        ├── CorruptDocument
        ├── EncryptedDocument     – password-protected
        ├── EmptyDocument         – no pages
        ├── ImageTooLarge         – over the pixel limit (decompression bomb)
        └── DocumentTooLarge      – over a page, column or result-size limit
    SandboxError                  – sandbox endpoints (text/plain bodies)
    ├── SandboxInvalid            – bad request or unsuitable state (400)
    ├── SandboxNotFound           – no such sandbox, snapshot or mount (404)
    ├── SandboxConflict           – name taken, wrong state, mount conflict (409)
    └── SandboxUnavailable        – no Docker engine, or it failed (500)

The API maps this tree to the spec's error bodies in one place (``api/errors.py``); each class
carries the Tensorlake ``ApiErrorCode`` that goes on the wire.
"""

from __future__ import annotations


class DocklakeError(Exception):
    code = "INTERNAL_ERROR"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


class InvalidRequest(DocklakeError):
    code = "INVALID_CONFIGURATION"


class InvalidQuery(InvalidRequest):
    code = "INVALID_QUERY_PARAMS"


class InvalidPageRange(InvalidRequest):
    code = "INVALID_PAGE_RANGE"


class InvalidMimeType(InvalidRequest):
    code = "INVALID_MIME_TYPE"


class InvalidFile(InvalidRequest):
    code = "INVALID_FILE"


class NotFound(DocklakeError):
    code = "ENTITY_NOT_FOUND"


class ForbiddenSource(DocklakeError):
    """A source outside what the operator allowed (``DOCKLAKE_INGEST__ROOTS``)."""

    code = "FORBIDDEN_SOURCE"


class AlreadyExists(DocklakeError):
    code = "ENTITY_ALREADY_EXISTS"


class InvalidDatasetName(InvalidRequest):
    code = "INVALID_DATASET_NAME"


class PayloadTooLarge(DocklakeError):
    code = "INVALID_FILE"


class DocumentError(DocklakeError):
    code = "INVALID_FILE"


class UnsupportedFormat(DocumentError):
    code = "INVALID_MIME_TYPE"


class CorruptDocument(DocumentError):
    code = "INVALID_FILE"


class EncryptedDocument(DocumentError):
    """The document is password-protected."""

    code = "INVALID_FILE"


class EmptyDocument(DocumentError):
    """The document has no pages (or no content at all)."""

    code = "INVALID_FILE"


class ImageTooLarge(DocumentError):
    """An image over the pixel limit (a decompression bomb, or simply too big to process)."""

    code = "INVALID_FILE"


class DocumentTooLarge(DocumentError):
    """More pages, table columns or result bytes than the configured limits allow."""

    code = "INVALID_FILE"


class SandboxError(DocklakeError):
    code = "SANDBOX_ERROR"


class SandboxInvalid(SandboxError):
    code = "INVALID_REQUEST"


class SandboxNotFound(SandboxError):
    code = "NOT_FOUND"


class SandboxConflict(SandboxError):
    code = "CONFLICT"


class SandboxUnavailable(SandboxError):
    code = "ENGINE_UNAVAILABLE"


def describe(exc: BaseException) -> str:
    """One line a user can act on for any exception: a docklake error's own message; running out
    of memory names the limit; otherwise the exception's type and text (never an empty reason)."""
    if isinstance(exc, DocklakeError):
        return exc.message
    if isinstance(exc, MemoryError):
        return "ran out of memory (the limit per document is DOCKLAKE_LIMITS__JOB_MEMORY_MB)"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
