"""Large uploads in three steps (the v1 ``files_large`` pair): announce the file (name, size,
SHA-256), send its bytes to the URL given, then finalize: the bytes become a file only if their
size and checksum are the ones announced."""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterable

from assets.catalog import files as files_repo
from assets.catalog.db import now_us
from pipelines.core.errors import InvalidFile, InvalidRequest, NotFound, PayloadTooLarge
from pipelines.core.records import FileRecord, Principal
from pipelines.core.requests import text_problem
from pipelines.stages.detect import detect_mime, normalize_mime
from pipelines.usecases.runtime import Runtime


def _key(p: Principal, upload_id: str, what: str) -> str:
    return f"uploads/{p.organization_id}/{p.project_id}/{upload_id}.{what}"


def _meta(rt: Runtime, p: Principal, upload_id: str) -> dict:
    if not upload_id.startswith("upload_") or not upload_id[7:].isalnum():
        raise NotFound(f"upload {upload_id} not found")
    try:
        return json.loads(rt.storage.read_bytes(_key(p, upload_id, "json")))
    except FileNotFoundError:
        raise NotFound(f"upload {upload_id} not found") from None


def init(rt: Runtime, p: Principal, *, file_name: str, file_size: int, sha256: str,
         mime_type: str | None) -> str:
    if (problem := text_problem(file_name)) is not None or not file_name.strip():
        raise InvalidRequest(f"filename {problem or 'is empty'}")
    if not 0 <= file_size <= rt.settings.limits.max_upload_bytes:
        raise PayloadTooLarge(f"file_size must be 0 to {rt.settings.limits.max_upload_bytes} bytes "
                              "(DOCKLAKE_LIMITS__MAX_UPLOAD_BYTES)")
    if len(sha256) != 64 or any(c not in "0123456789abcdefABCDEF" for c in sha256):
        raise InvalidRequest("sha256_checksum must be 64 hexadecimal digits")
    upload_id = "upload_" + secrets.token_hex(12)
    meta = {"file_name": file_name, "file_size": file_size, "sha256": sha256.lower(),
            "mime_type": normalize_mime(mime_type) if mime_type else None}
    rt.storage.put_bytes(_key(p, upload_id, "json"), json.dumps(meta).encode())
    return upload_id


def write(rt: Runtime, p: Principal, upload_id: str, chunks: Iterable[bytes]) -> int:
    """Receive the bytes (again, if sent again); how many."""
    meta = _meta(rt, p, upload_id)
    size = 0
    with rt.storage.atomic_writer(_key(p, upload_id, "bin")) as fh:
        for chunk in chunks:
            size += len(chunk)
            if size > meta["file_size"]:
                raise PayloadTooLarge(f"more bytes than the {meta['file_size']} announced")
            fh.write(chunk)
    return size


def finalize(rt: Runtime, p: Principal, upload_id: str) -> FileRecord:
    meta = _meta(rt, p, upload_id)
    data_key = _key(p, upload_id, "bin")
    if not rt.storage.exists(data_key):
        raise InvalidFile(f"nothing was uploaded for {upload_id} yet: PUT the bytes to its presigned_url first")
    digest, size, head = hashlib.sha256(), 0, b""
    with rt.storage.open(data_key) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            head = head or block[:8192]
            digest.update(block)
            size += len(block)
    if size != meta["file_size"] or digest.hexdigest() != meta["sha256"]:
        raise InvalidFile(f"the bytes received ({size} bytes, sha256 {digest.hexdigest()}) are not the file "
                          f"announced ({meta['file_size']} bytes, sha256 {meta['sha256']}); upload them again")
    file_id = files_repo.new_file_id()
    key = files_repo.storage_key(p, file_id)
    with rt.storage.open(data_key) as src, rt.storage.atomic_writer(key) as dst:
        for block in iter(lambda: src.read(1 << 20), b""):
            dst.write(block)
    rec = FileRecord(file_id, meta["file_name"], meta["mime_type"] or detect_mime(head, meta["file_name"]), size, meta["sha256"],
                     now_us(), key, {})
    files_repo.insert_file(rt.engine, p, rec)
    for what in ("bin", "json"):
        rt.storage.delete(_key(p, upload_id, what))
    return rec
