"""Uploaded files: store (from a spooled upload), get, list and delete, scoped to the caller."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from assets.catalog import files as files_repo
from assets.catalog.db import now_us
from pipelines.core.errors import InvalidFile
from pipelines.core.records import FileRecord, Page, Principal
from pipelines.stages.detect import detect_file
from pipelines.usecases.runtime import Runtime


def _valid_id(file_id: str) -> str:
    if not files_repo.FILE_ID.match(file_id):
        raise InvalidFile(f"invalid file id {file_id!r}: file ids look like file_<hex>")
    return file_id


def store(rt: Runtime, p: Principal, spooled: Path, *, file_name: str | None, size: int, sha256: str,
          labels: dict[str, Any]) -> FileRecord:
    """Keep an upload that was received into ``spooled``: its type is detected from its content,
    the bytes go to storage (atomically) and the record to the catalog."""
    file_id = files_repo.new_file_id()
    key = files_repo.storage_key(p, file_id)
    mime = detect_file(str(spooled), file_name)
    with open(spooled, "rb") as src, rt.storage.atomic_writer(key) as dst:
        shutil.copyfileobj(src, dst, 1024 * 1024)
    rec = FileRecord(file_id, file_name, mime, size, sha256, now_us(), key, labels)
    try:
        files_repo.insert_file(rt.engine, p, rec)
    except Exception:
        rt.storage.delete(key)
        raise
    return rec


def get(rt: Runtime, p: Principal, file_id: str) -> FileRecord:
    rec = files_repo.get_file(rt.engine, p, _valid_id(file_id))
    if rec is None:
        raise InvalidFile(f"file {file_id} does not exist")
    return rec


def list_files(rt: Runtime, p: Principal, *, cursor: str | None, direction: str, limit: int,
               file_name: str | None, created_after: int | None, created_before: int | None) -> Page:
    """A page of ``FileRecord``s."""
    return files_repo.list_files(rt.engine, p, cursor=cursor, direction=direction, limit=limit,
                                 file_name=file_name, created_after=created_after,
                                 created_before=created_before)


def delete(rt: Runtime, p: Principal, file_id: str) -> None:
    rec = files_repo.delete_file(rt.engine, p, _valid_id(file_id))
    if rec is None:
        raise InvalidFile(f"file {file_id} does not exist")
    rt.storage.delete(rec.storage_key)
