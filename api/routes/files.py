"""``/documents/v2/files``: upload, list, metadata, delete."""

from __future__ import annotations

import shutil
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from api.deps import EngineDep, PrincipalDep, SettingsDep, StorageDep
from api.upload import receive_upload
from api.wire import JSON, file_metadata, paginated, parse_rfc3339, rfc3339
from assets import files as files_repo
from assets.catalog import now_us
from assets.pagination import MAX_LIMIT
from pipelines.errors import InvalidFile
from pipelines.stages.detect import detect_file

router = APIRouter(prefix="/documents/v2/files", tags=["files"])


def _valid_id(file_id: str) -> str:
    if not files_repo.FILE_ID.match(file_id):
        raise InvalidFile(f"invalid file id {file_id!r}: file ids look like file_<hex>")
    return file_id


@router.put("")
async def upload_file(request: Request, principal: PrincipalDep, settings: SettingsDep,
                      storage: StorageDep, engine: EngineDep) -> dict:
    up = await receive_upload(request, str(settings.data_dir / "spool"), settings.max_upload_bytes)
    file_id = files_repo.new_file_id()
    key = files_repo.storage_key(principal, file_id)

    def store() -> files_repo.FileRecord:
        mime = detect_file(up.path, up.file_name)
        with open(up.path, "rb") as src, storage.atomic_writer(key) as dst:
            shutil.copyfileobj(src, dst, 1024 * 1024)
        rec = files_repo.FileRecord(file_id, up.file_name, mime, up.size, up.sha256, now_us(), key,
                                    up.labels)
        try:
            files_repo.insert_file(engine, principal, rec)
        except Exception:
            storage.delete(key)
            raise
        return rec

    try:
        rec = await run_in_threadpool(store)
    finally:
        up.discard()
    return {"file_id": rec.id, "created_at": rfc3339(rec.created_us)}


@router.get("", response_class=JSON)
async def list_files(
    principal: PrincipalDep,
    engine: EngineDep,
    cursor: str | None = None,
    direction: Literal["next", "prev"] = "next",
    limit: Annotated[int, Query(ge=0, le=MAX_LIMIT)] = 100,
    file_name: str | None = None,
    filename: str | None = None,
    created_after: str | None = None,
    created_before: str | None = None,
) -> JSON:
    after = parse_rfc3339(created_after, "created_after")
    before = parse_rfc3339(created_before, "created_before")

    def run() -> dict:
        page = files_repo.list_files(engine, principal, cursor=cursor, direction=direction, limit=limit,
                                     file_name=file_name or filename, created_after=after,
                                     created_before=before)
        return paginated(page, [file_metadata(r) for r in page.rows])

    return JSON(await run_in_threadpool(run))


@router.get("/{file_id}/metadata")
def file_meta(file_id: str, principal: PrincipalDep, engine: EngineDep) -> dict:
    rec = files_repo.get_file(engine, principal, _valid_id(file_id))
    if rec is None:
        raise InvalidFile(f"file {file_id} does not exist")
    return file_metadata(rec)


@router.delete("/{file_id}", status_code=204)
def delete_file(file_id: str, principal: PrincipalDep, engine: EngineDep, storage: StorageDep) -> Response:
    rec = files_repo.delete_file(engine, principal, _valid_id(file_id))
    if rec is None:
        raise InvalidFile(f"file {file_id} does not exist")
    storage.delete(rec.storage_key)
    return Response(status_code=204)
