"""File records in the catalog; the bytes live in ``Storage`` under ``files/<org>/<project>/``."""

from __future__ import annotations

import re
import secrets
from typing import Any

from sqlalchemy import Engine, delete, func, insert, select

from assets.catalog.db import files, now_us, write_txn
from assets.catalog.pagination import paginate
from pipelines.core.records import FileRecord, Page, Principal

FILE_ID = re.compile(r"^file_[A-Za-z0-9]{1,36}$")


def new_file_id() -> str:
    return "file_" + secrets.token_hex(12)


def storage_key(p: Principal, file_id: str) -> str:
    return f"files/{p.organization_id}/{p.project_id}/{file_id}"


def insert_file(engine: Engine, p: Principal, rec: FileRecord) -> None:
    with write_txn(engine) as conn:
        conn.execute(insert(files).values(
            id=rec.id, organization_id=p.organization_id, project_id=p.project_id,
            file_name=rec.file_name, mime_type=rec.mime_type, file_size=rec.file_size,
            checksum_sha256=rec.checksum_sha256, labels=rec.labels, storage_key=rec.storage_key,
            created_us=rec.created_us or now_us(),
        ))


def substring_match(engine: Engine, column: Any, needle: str) -> Any:
    """A case-sensitive substring test on every backend (LIKE folds case in SQLite)."""
    fn = func.instr if engine.dialect.name == "sqlite" else func.strpos
    return fn(column, needle) > 0


def _scoped(p: Principal):  # type: ignore[no-untyped-def]
    return (files.c.organization_id == p.organization_id) & (files.c.project_id == p.project_id)


def get_file(engine: Engine, p: Principal, file_id: str) -> FileRecord | None:
    with engine.connect() as conn:
        row = conn.execute(select(files).where(_scoped(p), files.c.id == file_id)).mappings().first()
    return FileRecord.from_row(row) if row else None


def delete_file(engine: Engine, p: Principal, file_id: str) -> FileRecord | None:
    with write_txn(engine) as conn:
        row = conn.execute(select(files).where(_scoped(p), files.c.id == file_id)).mappings().first()
        if row is None:
            return None
        conn.execute(delete(files).where(files.c.id == file_id))
    return FileRecord.from_row(row)


def list_files(engine: Engine, p: Principal, *, cursor: str | None, direction: str, limit: int,
               file_name: str | None, created_after: int | None, created_before: int | None) -> Page:
    q = select(files).where(_scoped(p))
    if file_name:
        q = q.where(substring_match(engine, files.c.file_name, file_name))
    if created_after is not None:
        q = q.where(files.c.created_us > created_after)
    if created_before is not None:
        q = q.where(files.c.created_us < created_before)
    with engine.connect() as conn:
        page = paginate(conn, q, files.c.created_us, files.c.id, cursor=cursor,
                        direction=direction, limit=limit)  # type: ignore[arg-type]
    page.rows = [FileRecord.from_row(r) for r in page.rows]
    return page
