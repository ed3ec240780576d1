"""Streaming multipart upload: the file part goes to a spool file as it arrives (hashed and size
checked on the way), then into storage atomically. Nothing is kept of a broken upload."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from python_multipart import MultipartParser
from python_multipart.multipart import parse_options_header
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request

from api.errors import ClientClosed
from pipelines.core.errors import InvalidRequest, PayloadTooLarge
from pipelines.core.records import FileRecord, Principal
from pipelines.core.requests import labels_problem, text_problem
from pipelines.usecases import files
from pipelines.usecases.runtime import Runtime

FILE_PARTS = ("file_bytes", "file")
MAX_FIELD_BYTES = 64 * 1024  # all non-file parts together (labels)
_EXTENDED = re.compile(rb"""(?:^|;)\s*filename\*\s*=\s*"?([A-Za-z0-9_-]+)'[^']*'([^";]+)"?""", re.IGNORECASE)


def _text(raw: bytes) -> str:
    """A header parameter's bytes as text: UTF-8 (what browsers, httpx and curl send), else
    Latin-1 (older clients), so every byte sequence gives a name and none is mangled."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _extended_filename(disposition: bytes) -> str | None:
    """RFC 5987 ``filename*=UTF-8''%E6%8A%A5%E5%91%8A.txt`` (wins over ``filename`` when both are
    given, as RFC 6266 says)."""
    m = _EXTENDED.search(disposition)
    if m is None:
        return None
    charset = m.group(1).decode("ascii").lower()
    try:
        return unquote(m.group(2).decode("ascii"), encoding=charset, errors="strict")
    except (LookupError, UnicodeDecodeError, ValueError):
        return None


@dataclass
class UploadedFile:
    path: str | None  # None: the form had no file part (allowed with ``require_file=False``)
    file_name: str | None
    size: int
    sha256: str
    labels: dict[str, str] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)  # the other small text fields

    def discard(self) -> None:
        if self.path is None:
            return
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


class _State:
    def __init__(self, spool_dir: str, max_bytes: int) -> None:
        self.spool_dir, self.max_bytes = spool_dir, max_bytes
        self.headers: dict[str, bytes] = {}
        self._hname = b""
        self._hvalue = b""
        self.part_name: str | None = None
        self.part_filename: str | None = None
        self.is_file = False
        self.value = bytearray()
        self.fh = None
        self.path: str | None = None
        self.size = 0
        self.digest = hashlib.sha256()
        self.file_name: str | None = None
        self.labels: dict[str, str] = {}
        self.fields: dict[str, str] = {}
        self.file_seen = False
        self.field_bytes = 0
        self.ended = False
        self.error: Exception | None = None

    # python-multipart callbacks
    def on_part_begin(self) -> None:
        self.headers, self.part_name, self.part_filename, self.is_file = {}, None, None, False
        self.value = bytearray()

    def on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._hname += data[start:end]

    def on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._hvalue += data[start:end]

    def on_header_end(self) -> None:
        self.headers[self._hname.decode("latin-1").lower()] = self._hvalue  # bytes: decoded per parameter
        self._hname, self._hvalue = b"", b""

    def on_headers_finished(self) -> None:
        raw = self.headers.get("content-disposition", b"")
        _, params = parse_options_header(raw)  # bytes in, the same bytes out
        name = params.get(b"name")
        self.part_name = _text(name) if name else None
        self.part_filename = _extended_filename(raw)
        if self.part_filename is None and params.get(b"filename") is not None:
            self.part_filename = _text(params[b"filename"])
        self.is_file = self.part_name in FILE_PARTS and not self.file_seen
        if self.is_file:
            self.file_seen = True
            self.file_name = os.path.basename(self.part_filename) if self.part_filename else None
            fd, self.path = tempfile.mkstemp(prefix="upload-", dir=self.spool_dir)
            self.fh = os.fdopen(fd, "wb")

    def on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self.error:
            return
        piece = data[start:end]
        if self.is_file:
            self.size += len(piece)
            if self.size > self.max_bytes:
                self.error = PayloadTooLarge(
                    f"the file exceeds the upload limit of {self.max_bytes} bytes "
                    "(DOCKLAKE_LIMITS__MAX_UPLOAD_BYTES)")
                return
            self.digest.update(piece)
            self.fh.write(piece)  # type: ignore[union-attr]
        else:
            self.value += piece
            self.field_bytes += len(piece)
            if self.field_bytes > MAX_FIELD_BYTES:
                self.error = InvalidRequest("the form fields besides the file exceed 64 KiB in all",
                                            code="INVALID_MULTIPART")

    def on_part_end(self) -> None:
        if self.is_file and self.fh is not None:
            self.fh.close()
        elif self.part_name == "labels" and not self.error:
            self._add_labels(self.value.decode("utf-8", "replace"))
            if not self.error and (problem := labels_problem(self.labels)) is not None:
                self.error = InvalidRequest(problem, code="INVALID_MULTIPART")
        elif self.part_name and not self.error:
            text = self.value.decode("utf-8", "replace")
            if (problem := text_problem(text)) is not None:
                self.error = InvalidRequest(f"form field {self.part_name!r} {problem}", code="INVALID_MULTIPART")
            self.fields[self.part_name] = text

    def on_end(self) -> None:
        self.ended = True

    def _add_labels(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        if text.startswith("{"):
            try:
                obj = json.loads(text)
            except json.JSONDecodeError:
                self.error = InvalidRequest("labels must be key=value or a JSON object",
                                            code="INVALID_MULTIPART")
                return
            if not isinstance(obj, dict):
                self.error = InvalidRequest("labels JSON must be an object", code="INVALID_MULTIPART")
                return
            self.labels.update({str(k): v if isinstance(v, str) else json.dumps(v) for k, v in obj.items()})
            return
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            self.error = InvalidRequest(f"label {text!r} is not key=value", code="INVALID_MULTIPART")
            return
        self.labels[key.strip()] = value

    def cleanup(self) -> None:
        if self.fh is not None and not self.fh.closed:
            self.fh.close()
        if self.path:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass


async def receive_upload(request: Request, spool_dir: str, max_bytes: int, *,
                         require_file: bool = True) -> UploadedFile:
    ctype, params = parse_options_header(request.headers.get("content-type", ""))
    boundary = params.get(b"boundary")
    if ctype != b"multipart/form-data" or not boundary:
        raise InvalidRequest("the upload must be multipart/form-data with a 'file_bytes' part",
                             code="INVALID_MULTIPART")
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > max_bytes + 1024 * 1024:
        raise PayloadTooLarge(f"the upload exceeds the limit of {max_bytes} bytes (DOCKLAKE_LIMITS__MAX_UPLOAD_BYTES)")
    os.makedirs(spool_dir, exist_ok=True)
    st = _State(spool_dir, max_bytes)
    cb = {n: getattr(st, n) for n in ("on_part_begin", "on_part_data", "on_part_end", "on_header_field",
                                       "on_header_value", "on_header_end", "on_headers_finished", "on_end")}
    parser = MultipartParser(boundary, cb, max_header_size=4096)  # type: ignore[arg-type]
    budget = max_bytes + MAX_FIELD_BYTES + 1024 * 1024  # the file, the fields, boundaries, headers
    received = 0
    try:
        async for chunk in request.stream():
            received += len(chunk)
            if received > budget:  # whatever Content-Length said (or did not say)
                raise PayloadTooLarge(f"the upload exceeds the limit of {max_bytes} bytes "
                                      "(DOCKLAKE_LIMITS__MAX_UPLOAD_BYTES)")
            if chunk:
                parser.write(chunk)
            if st.error:
                raise st.error
        parser.finalize()
        if st.error:
            raise st.error
        if not st.ended:
            raise InvalidRequest("the upload was interrupted before the multipart body ended",
                                 code="MULTIPART_STREAM_END")
        if require_file and (not st.file_seen or st.path is None):
            raise InvalidRequest("the multipart body has no 'file_bytes' (or 'file') part",
                                 code="INVALID_MULTIPART")
    except ClientDisconnect:
        st.cleanup()
        raise ClientClosed("the client closed the connection before the upload completed") from None
    except Exception as exc:
        st.cleanup()
        if isinstance(exc, (InvalidRequest, PayloadTooLarge)):
            raise
        raise InvalidRequest(f"malformed multipart body: {exc}", code="INVALID_MULTIPART") from exc
    return UploadedFile(st.path, st.file_name, st.size, st.digest.hexdigest(), st.labels, st.fields)


async def receive_file(request: Request, rt: Runtime, principal: Principal) -> FileRecord:
    """Receive a multipart upload and keep its file (``files.store``); the spooled copy is removed."""
    s = rt.settings
    up = await receive_upload(request, str(s.data_dir / "spool"), s.limits.max_upload_bytes)
    try:
        return await run_in_threadpool(files.store, rt, principal, Path(up.path or ""), file_name=up.file_name,
                                       size=up.size, sha256=up.sha256, labels=up.labels)
    finally:
        up.discard()
